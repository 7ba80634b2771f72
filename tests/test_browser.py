"""The app as a person uses it: real Chromium, the app started as the README does.

Skipped with a message where Chromium or Playwright is missing, except when
DPX_REQUIRE_BROWSER=1 (set by .ci/run), where a missing browser fails.
Screenshots of every page go to test-artifacts/browser/.
"""

from __future__ import annotations

import pathlib
import re
import time

import pytest

from tests.browser import (
    NAV_LINK,
    full_page_screenshot,
    require_browser_or_skip,
    running_app,
    wait_for_page,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts" / "browser"
require_browser_or_skip()

pytestmark = pytest.mark.browser

#: sidebar label -> url path; every page of app.py
PAGES = {
    "Overview": "",
    "Data": "data",
    "Local DP": "local",
    "Central DP": "central",
    "Sparse vector": "svt",
    "Accountant": "accountant",
    "Compare": "compare",
    "Audit": "audit",
    "Learning": "learning",
    "People": "people",
    "Publish": "publish",
}
CHART_PAGES = {"Local DP", "Central DP", "Sparse vector", "Accountant", "Compare", "Audit", "Learning"}
#: Pages that draw nothing on this upload, and the sentence that says why (walk.csv names no person).
EXPLAINED = {"People": "A person identifier is the column that says whose row each row is"}
UPLOAD = (
    "colour,score,hours\n"
    + "\n".join(f"{c},{i % 5 + 1},{(i * 7) % 60}" for i, c in enumerate(["red", "green", "blue", "grey"] * 100))
    + "\n"
).encode()


@pytest.fixture
def page(browser, app_url):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    p = context.new_page()
    dialogs, offsite = [], []
    p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    # no request leaves the machine: fonts, icons, images, links followed, all served by the app itself
    p.on("request", lambda r: r.url.startswith((app_url, "data:", "blob:", "about:")) or offsite.append(r.url))
    p.goto(app_url)
    wait_for_page(p)
    yield p
    assert not dialogs, f"a script ran in the page: {dialogs}"
    assert not offsite, f"requests left the machine: {sorted(set(offsite))[:5]}"
    context.close()


def assert_no_error(p) -> None:
    assert p.locator('[data-testid="stException"]').count() == 0, p.locator(
        '[data-testid="stException"]'
    ).first.inner_text()
    errors = p.locator('[data-testid="stAlertContentError"]')
    assert errors.count() == 0, errors.first.inner_text()


def sidebar_text(p) -> str:
    return p.locator('[data-testid="stSidebarContent"]').inner_text()


def upload(p, name: str, raw: bytes) -> None:
    p.locator(NAV_LINK, has_text="Data").click()
    wait_for_page(p)
    p.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": name, "mimeType": "text/csv", "buffer": raw}
    )
    p.wait_for_function(f"() => document.body.innerText.includes({name!r})", timeout=30_000)
    wait_for_page(p)


def first_metric(p) -> str:
    return p.locator('[data-testid="stMetricValue"]').first.inner_text()


def offsite_targets(p, base: str) -> list[str]:
    """Every image, frame, stylesheet or link in the page that points to another host (none may)."""
    return p.evaluate(
        """(base) => [...document.querySelectorAll('img[src], iframe[src], link[href], a[href], source[src]')]
            .map(e => e.src || e.href)
            .filter(u => u && !u.startsWith(base) && !/^(data|blob|about|javascript):/.test(u))""",
        base,
    )


def test_walk_every_page_after_an_upload(page, app_url):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    upload(page, "walk.csv", UPLOAD)
    assert "walk.csv" in sidebar_text(page)
    for label, path in PAGES.items():
        page.locator(NAV_LINK, has_text=label).first.click()
        page.wait_for_url(re.compile(rf"/{path}(\?.*)?$"))
        wait_for_page(page)
        assert_no_error(page)
        if label in CHART_PAGES:
            assert page.locator(".js-plotly-plot").count() > 0, f"no chart drawn on {label}"
        if label in EXPLAINED:
            assert EXPLAINED[label] in page.locator('[data-testid="stMain"]').inner_text(), label
        assert "walk.csv" in sidebar_text(page), f"{label} lost the uploaded dataset"
        assert not offsite_targets(page, app_url), (label, offsite_targets(page, app_url))
        full_page_screenshot(page, ARTIFACTS / f"{path or 'home'}.png")


def test_keyboard_slider_move_changes_a_figure_and_the_link_reproduces_it(page, browser, app_url):
    page.goto(f"{app_url}/local")
    wait_for_page(page)
    before = first_metric(page)
    # the ε slider is the first slider of the page body
    thumb = page.locator('[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]').first
    thumb.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "(v) => { const m = document.querySelector('[data-testid=\"stMetricValue\"]');"
        " return m && m.innerText !== v; }",
        arg=before,
        timeout=30_000,
    )
    wait_for_page(page)
    # the link says the ε the slider shows (the link's update is a message of its own, which may land after the
    # page is drawn: waited for, never assumed; a link that stays behind the screen fails here, as in issue 24)
    page.wait_for_function(
        """() => {
            const r = document.querySelector('[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]');
            const v = r && r.getAttribute('aria-valuetext');
            return v && new RegExp('[?&]ldp_epsilon=' + v.replace('.', '\\.') + '(&|$)').test(location.search);
        }""",
        timeout=30_000,
    )
    after = first_metric(page)
    assert after != before
    assert "ldp_epsilon=" in page.url, page.url
    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    other.goto(page.url)
    wait_for_page(other)
    assert first_metric(other) == after
    other.context.close()


def test_a_tab_is_part_of_the_link(page, browser, app_url):
    page.goto(f"{app_url}/svt")
    wait_for_page(page)
    page.get_by_role("tab", name="Range queries").click()
    page.wait_for_function("() => document.body.innerText.includes('Queries passed: SVT / naive')", timeout=30_000)
    wait_for_page(page)
    assert_no_error(page)
    assert "svt_view=Range" in page.url, page.url
    shown = page.locator('[data-testid="stMetric"]', has_text="Queries passed").inner_text()
    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    other.goto(page.url)
    wait_for_page(other)
    assert other.locator('[data-testid="stMetric"]', has_text="Queries passed").inner_text() == shown
    assert other.locator('[data-testid="stMetric"]', has_text="Chosen bound").count() == 0  # the walk's tab did not run
    other.context.close()


def test_audit_opens_from_a_mechanism_page_with_its_settings_and_its_link_reproduces_it(page, browser, app_url):
    def bound(p) -> str:
        return (
            p.locator('[data-testid="stMetric"]', has_text="Lower bound on ε")
            .locator('[data-testid="stMetricValue"]')
            .inner_text()
        )

    page.goto(f"{app_url}/local?ldp_mechanism=OUE&ldp_epsilon=2")
    wait_for_page(page)
    page.locator('[data-testid="stPageLink"] a', has_text="Audit this mechanism").locator("visible=true").first.click()
    page.wait_for_url(re.compile(r"/audit\?.*aud_mechanism=oue"), timeout=30_000)
    wait_for_page(page)
    assert_no_error(page)
    assert "aud_oue_epsilon=2" in page.url and "aud_oue_k=" in page.url, page.url
    text = page.locator('[data-testid="stMain"]').inner_text()
    assert "OUE: unary encoding" in text and "Not refuted." in text
    page.get_by_role("button", name="Sum noised for sensitivity 1").click()  # an exhibit: the URL follows
    page.wait_for_url(re.compile(r"aud_broken=sensitivity_one"), timeout=30_000)
    wait_for_page(page)
    assert_no_error(page)
    assert "aud_mechanism=laplace_sum" in page.url
    assert "Refuted." in page.locator('[data-testid="stMain"]').inner_text()
    shown = bound(page)
    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    other.goto(page.url)
    wait_for_page(other)
    assert bound(other) == shown and float(shown) > 1
    other.context.close()


def test_two_sessions_see_only_their_own_data_and_ledger(browser, app_url):
    a = browser.new_context().new_page()
    b = browser.new_context().new_page()
    for p in (a, b):
        p.goto(app_url)
        wait_for_page(p)
    upload(a, "alice.csv", UPLOAD)
    upload(b, "bob.csv", UPLOAD.replace(b"colour", b"shade"))
    assert "alice.csv" in sidebar_text(a) and "bob.csv" not in sidebar_text(a)
    assert "bob.csv" in sidebar_text(b) and "alice.csv" not in sidebar_text(b)
    a.goto(f"{app_url}/central")  # a central release: the default ledger is under add/remove one record
    wait_for_page(a)
    a.get_by_role("button", name="Record in the teaching ledger").first.click()
    a.wait_for_function("() => document.body.innerText.includes('1 simulated release(s) recorded')", timeout=30_000)
    b.reload()
    wait_for_page(b)
    assert "0 simulated release(s) recorded" in sidebar_text(b)
    a.context.close()
    b.context.close()


def test_hostile_upload_renders_as_text_and_downloads_neutralised(page, app_url):
    cells = ['=HYPERLINK("http://x")', "@SUM(A1)", "![p](http://example.invalid/p.png)", "<img src=x onerror=alert(1)>"]
    raw = (
        "<script>alert(2)</script>,note\n"
        + "\n".join(f'{i},"{cells[i % 4].replace(chr(34), chr(34) * 2)}"' for i in range(40))
        + "\n"
    ).encode()
    upload(page, "<b>hostile</b>.csv", raw)
    assert_no_error(page)
    assert not offsite_targets(page, app_url)
    assert page.locator("img[src='x']").count() == 0  # a cell was not rendered as HTML
    assert page.locator('[data-testid="stMain"] b', has_text="hostile").count() == 0  # nor the file name
    assert "<b>hostile</b>.csv" in sidebar_text(page)  # shown as the text it is
    # within the session (a new page load would be a new session, without the upload)
    page.locator(NAV_LINK, has_text="Local DP").click()
    wait_for_page(page)
    page.locator('[data-testid="stSelectbox"]', has_text="Column").first.click()
    page.get_by_role("option", name="note", exact=True).click()
    wait_for_page(page)
    assert_no_error(page)
    with page.expect_download() as info:
        page.get_by_role("button", name="Simulated release (CSV), not private").click()
    text = pathlib.Path(info.value.path()).read_text(encoding="utf-8-sig")
    labels = [line.split(",")[0].strip('"') for line in text.splitlines()[1:]]
    assert labels and all(label[0] not in "=+-@" for label in labels), labels
    assert any(label.startswith("'=HYPERLINK") for label in labels), (page.url, labels)
    assert not offsite_targets(page, app_url)
    # the most common value, a category value shown as a metric: text, never a fetched image
    page.locator(NAV_LINK, has_text="Central DP").click()
    wait_for_page(page)
    page.locator('[data-testid="stRadio"] label', has_text="Most common value").click()
    wait_for_page(page)
    assert_no_error(page)
    assert not offsite_targets(page, app_url), offsite_targets(page, app_url)
    assert page.locator('[data-testid="stMain"] img').count() == 0


def test_a_browser_among_protocol_sessions_stays_alive_and_correct(app_url):

    # the measurement lives in benchmarks/bench_load.py; here a short run checks behaviour under concurrency:
    # one keyboard-driven browser beside five protocol sessions walking the pages.
    # It runs in its own thread: the sync Playwright of the other tests keeps an event loop in this one.
    from concurrent.futures import ThreadPoolExecutor

    from benchmarks.bench_load import run_load, summarise

    with ThreadPoolExecutor(1) as pool:
        # at least three key presses however loaded the machine is (a 12 s walk alone made two under load 19)
        result = pool.submit(run_load, 6, 12, app_url, None, 1, None, 3).result()
    clicks, proto = summarise(result["browser"]), summarise(result["walks"])
    print(f"short load: browser {clicks}, protocol {proto}")
    assert clicks["alive"] == 1 and clicks["failed"] == 0 and clicks["reruns"] >= 3
    assert proto["alive"] == 5 and proto["failed"] == 0


TITLES = set(PAGES)  # the navigation shows page titles only


def test_a_fresh_servers_first_visitors_see_the_real_navigation_and_are_heard(browser):
    # Its own server, opened by three visitors at once: at "/", and through two deep links. On a fresh
    # server app.py's st.navigation serves every path (there is no pages/ folder to discover).
    with running_app() as base:
        visits = {}
        for path in ("", "accountant", "local"):
            p = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
            p.goto(f"{base}/{path}", wait_until="commit")
            visits[path] = p
        links, not_found, drawn = set(), [], set()
        deadline = time.monotonic() + 60  # a loaded machine draws slowly: watch until every visitor has links
        while len(drawn) < len(visits) and time.monotonic() < deadline:  # every link ever shown is a page title
            for path, p in visits.items():
                seen = set(p.locator(f"{NAV_LINK}, [data-testid='stSidebarNav'] a").all_inner_texts())
                links |= seen
                drawn |= {path} if seen else set()
                if "Page not found" in p.locator("body").inner_text():
                    not_found.append(path)
            visits[""].wait_for_timeout(100)
        for path, p in visits.items():  # each page is drawn inside the frame: navigation and sidebar
            wait_for_page(p)
            assert_no_error(p)
            shown = p.locator(f"{NAV_LINK}, [data-testid='stSidebarNav'] a").all_inner_texts()
            assert {link.split("\n")[-1].strip() for link in shown} == TITLES, (path, shown)  # text: icon, title
            assert "census.csv" in sidebar_text(p), path
        assert {link.split("\n")[-1].strip() for link in links} == TITLES, links
        assert not not_found, not_found
        assert visits[""].locator("h1").first.inner_text() == "DP Explorer"
        assert visits["accountant"].locator("h1").first.inner_text() == "Privacy accountant"
        local = visits["local"]
        assert local.locator("h1").first.inner_text() == "Local differential privacy"
        before = first_metric(local)  # a session opened during start-up hears its input
        local.locator('[data-testid="stMain"] [data-testid="stSlider"] input[type="range"]').first.focus()
        local.keyboard.press("ArrowRight")
        local.wait_for_function(
            "(v) => { const m = document.querySelector('[data-testid=\"stMetricValue\"]');"
            " return m && m.innerText !== v; }",
            arg=before,
            timeout=30_000,
        )
        assert "ldp_epsilon=" in local.url
        for p in visits.values():
            p.context.close()


#: column names and values a browser would draw as a live link, as 60 px red text, or link of its own (bare URLs)
HOSTILE_LINK = '<a href="http://example.invalid/link">link</a>'
HOSTILE_STYLE = "font-size:60px;color:red"
HOSTILE_SPAN = f'<span style="{HOSTILE_STYLE}">BIG</span>'
#: the bare URL comes most often: the pages name the most common value in sentences
HOSTILE_CELLS = [
    "www.example.invalid",
    HOSTILE_LINK,
    HOSTILE_SPAN,
    "http://example.invalid/bare",
    "www.example.invalid",
]
#: (sidebar label, the control that opens a view, what the link then says): every page, and every view whose
#: charts or sentences name the column or its values
HOSTILE_WALK = [
    ("Overview", None, None),
    ("Data", None, None),
    ("Local DP", None, None),
    ("Local DP", ("tab", "Mean of a number"), "ldp_view=Mean"),
    ("Central DP", None, None),
    ("Central DP", ("radio", "Histogram"), "cen_query=Histogram"),
    ("Central DP", ("radio", "Category counts"), "cen_query=Category"),
    ("Central DP", ("radio", "Most common value"), "cen_query=Most"),
    ("Sparse vector", None, None),
    ("Sparse vector", ("tab", "Automatic mean"), "svt_view=Automatic"),
    ("Sparse vector", ("tab", "Range queries"), "svt_view=Range"),
    ("Accountant", None, None),
    ("Compare", None, None),
    ("Compare", ("select", "Mean of a number"), "cmp_query=Mean"),
    ("Audit", None, None),
    ("Learning", None, None),
    ("People", None, None),
    ("People", ("tab", "Group-by with unknown keys"), "ppl_view=Group"),
    ("Publish", None, None),
]


def hostile_markup(p, base: str) -> list[str]:
    """Links (HTML or SVG) that lead off the machine or to the hostile URL, and elements with the hostile style."""
    return p.evaluate(
        """(base) => {
            const found = [];
            for (const a of document.querySelectorAll('a')) {
                const raw = a.getAttribute('href') ?? a.getAttributeNS('http://www.w3.org/1999/xlink', 'href');
                if (raw === null) continue;
                const url = new URL(raw, location.href).href;
                if (url.includes('example.invalid') || !(url.startsWith(base) || /^(data|blob|about):/.test(url)))
                    found.push('link to ' + url + ': ' + a.textContent.slice(0, 80));
            }
            for (const e of document.querySelectorAll('[style]'))
                if (/font-size:\\s*60px/.test(e.getAttribute('style'))) found.push('style: ' + e.outerHTML.slice(0, 160));
            return found;
        }""",
        base,
    )


def test_hostile_names_and_values_stay_text_in_every_chart_and_sentence(page, app_url):
    names = [
        f"{HOSTILE_LINK}{HOSTILE_SPAN} www.example.invalid",
        f"{HOSTILE_SPAN}{HOSTILE_LINK} http://example.invalid/n a@example.invalid",
        "g",
    ]
    rows = [[HOSTILE_CELLS[i % 5], str(i % 37), "ab"[(i // 3) % 2]] for i in range(400)]
    raw = "\n".join(",".join('"' + c.replace('"', '""') + '"' for c in row) for row in [names, *rows]) + "\n"
    upload(page, "hostile.csv", raw.encode())
    in_charts, sentences = set(), []
    for label, control, url in HOSTILE_WALK:
        if control is None:
            page.locator(NAV_LINK, has_text=label).first.click()
            page.wait_for_url(re.compile(rf"/{PAGES[label]}(\?.*)?$"))
        elif control[0] == "tab":
            page.get_by_role("tab", name=control[1]).click()
        elif control[0] == "radio":
            page.locator('[data-testid="stRadio"] label', has_text=control[1]).click()
        else:
            page.locator('[data-testid="stSelectbox"]', has_text="Query").first.click()
            page.get_by_role("option", name=control[1], exact=True).click()
        if url:
            page.wait_for_url(re.compile(re.escape(url)))
        wait_for_page(page)
        assert_no_error(page)
        view = f"{label} {control or ''}"
        assert not hostile_markup(page, app_url), (view, hostile_markup(page, app_url))
        shown = page.evaluate(
            """() => [
                [...document.querySelectorAll('.js-plotly-plot')].map(c => c.textContent).join(' '),
                [...document.querySelectorAll('[data-testid="stMarkdownContainer"]')].map(m => m.innerText).join(' '),
            ]"""
        )
        if HOSTILE_SPAN in shown[0]:
            in_charts.add(view)
        sentences.append(shown[1].replace("\u2060", ""))  # md()'s word joiners show nothing
    # the hostile text was on screen, as the text it is: in charts and in sentences, on the mechanism pages
    assert {"Local DP ", "Central DP ('radio', 'Histogram')", "Compare "} <= in_charts, in_charts
    said = " ".join(sentences)
    assert "'www.example.invalid'" in said and "http://example.invalid/n a@example.invalid" in said, said[-2000:]
