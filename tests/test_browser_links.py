"""The link is the screen (issue 24): every page driven in Chromium through view switches and slider moves, its link
then opened in a new browser context, which must show the same widgets and the same numbers.

One server and one browser for the module, one walk per page. Every interaction waits for Streamlit's own idle
state: the app root's ``data-test-script-state`` counted by a MutationObserver (a run that started after the
interaction and has finished), no stale element, every chart drawn and no background job of the page unfinished;
never a fixed sleep. Simulated numbers are seeded (the seed is in the link), so the receiver's page must show the
sender's numbers exactly.

Also here: ε typed as well as slid (one key in the link), and the session that survives a reload (the upload and
the budget come back to the same browser, not to another browser opening the same link).
"""

from __future__ import annotations

import re

import pytest

from tests.apptest import ROOT
from tests.browser import NAV_LINK, require_browser_or_skip
from tests.test_default_views import VIEWS

require_browser_or_skip()

pytestmark = pytest.mark.browser

#: Every page of app.py by its URL path, with every view the walk visits: None (the page's default view), ("tab", i)
#: (the i-th tab of the page's first row of tabs), ("radio", key, label) (that option of the radio switch ``key``) or
#: ("select", key, i) (the i-th option of the selectbox ``key``). Every view of tests/test_default_views.VIEWS is
#: here (Learning's parts excepted: each of its three tabs opens on its first part), checked below.
CENTRAL_QUERIES = tuple(view["cen_query"] for view in VIEWS["central"][1:])  # after the default, Count
PAGES = {
    "": [None],
    "data": [None],
    "local": [None, ("tab", 1)],
    "central": [None] + [("radio", "cen_query", q) for q in CENTRAL_QUERIES],
    "svt": [None, ("tab", 1), ("tab", 2)],
    "accountant": [None],
    "compare": [None, ("select", "cmp_query", 1), ("select", "cmp_query", 2)],
    "audit": [None, ("tab", 1)],
    "people": [None, ("tab", 1)],
    "learning": [None, ("tab", 1), ("tab", 2)],
    "publish": [None],
}
WALKS = [(path, view) for path, views in PAGES.items() for view in views]
TIMEOUT = 120_000

#: The page is drawn: no stale element or skeleton, every chart drawn, no background job of the page unfinished.
DRAWN = """() => {
    const app = document.querySelector('[data-testid="stApp"]');
    if (!app || app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
    if (app.getAttribute('data-test-script-state') === 'running') return false;
    if (document.querySelector('[data-stale="true"], [data-testid="stSkeleton"]')) return false;
    if (document.querySelector('[class*="st-key-jobs_cancel_"]')) return false;
    const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')];
    return charts.every(c => c.querySelector('.main-svg'));
}"""


#: Every keyed widget's value as the page shows it, and every number on the page: metrics, tables and text.
SNAPSHOT = """() => {
    const widgets = {};
    for (const el of document.querySelectorAll('[class*="st-key-"]')) {
        const key = [...el.classList].find(c => c.startsWith('st-key-')).slice(7);
        if (key.startsWith('dpx_nav') || key.startsWith('jobs_')) continue;
        const tab = el.querySelector('[role="tablist"] [role="tab"][aria-selected="true"]');
        const radio = el.querySelector('[data-testid="stRadio"] input[type="radio"]:checked');
        const select = el.querySelector('[data-testid="stSelectbox"] [data-baseweb="select"]');
        const range = el.querySelector('input[type="range"]');
        const input = el.querySelector('input[type="number"], input[type="text"], textarea');
        const box = el.querySelector('input[type="checkbox"]');
        if (tab) widgets[key] = tab.innerText;
        else if (radio) widgets[key] = radio.closest('label').innerText;
        else if (select) widgets[key] = select.innerText;
        else if (range) widgets[key] = range.getAttribute('aria-valuetext') || range.value;
        else if (input) widgets[key] = input.value;
        else if (box) widgets[key] = String(box.checked);
    }
    const main = document.querySelector('[data-testid="stMain"]');
    const metrics = [...main.querySelectorAll('[data-testid="stMetric"]')].map(m => m.innerText);
    const text = main.innerText;
    return {widgets, metrics, text};
}"""

#: Text that may differ between two correct sessions: clock times and durations.
VOLATILE = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d)?(\.\d+)?|\d+(\.\d+)? ?(s|ms|seconds?)\b")


#: Counts, in the page, the full script runs the server has finished: its ``ForwardMsg``s whose ``script_finished``
#: (field 6, a varint) is FINISHED_SUCCESSFULLY (0), read off the socket's frames by walking their top-level fields
#: (no frame is copied out of the browser).
COUNT_RUNS = """
(() => {
  window.__dpxRuns = 0;
  const finished = (buf) => {
    const b = new Uint8Array(buf);
    let i = 0;
    const varint = () => { let v = 0, s = 0, c; do { c = b[i++]; v += (c & 0x7f) * 2 ** s; s += 7; } while (c & 0x80 && i < b.length); return v; };
    while (i < b.length) {
      const tag = varint(), field = Math.floor(tag / 8), wire = tag % 8;
      if (wire === 0) { const v = varint(); if (field === 6) return v === 0; }
      else if (wire === 2) { const n = varint(); i += n; }  // i + varint() would read i before varint moves it
      else if (wire === 1) { i += 8; }
      else if (wire === 5) { i += 4; }
      else return false;
    }
    return false;
  };
  const count = (data) => {
    if (data instanceof ArrayBuffer) { if (data.byteLength < 512 && finished(data)) window.__dpxRuns += 1; }
    else if (data instanceof Blob && data.size < 512) data.arrayBuffer().then(d => { if (finished(d)) window.__dpxRuns += 1; });
  };
  const Native = window.WebSocket;
  function Counting(...args) {
    const ws = new Native(...args);
    ws.addEventListener('message', (e) => count(e.data));
    return ws;
  }
  Counting.prototype = Native.prototype;
  for (const k of ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED']) Counting[k] = Native[k];
  window.WebSocket = Counting;
})();
"""


def new_page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.add_init_script(COUNT_RUNS)
    return context.new_page()


def runs(p) -> int:
    return p.evaluate("() => window.__dpxRuns || 0")


def settle(p, before: int) -> None:
    """Wait until a full run that ended after ``before`` runs has been drawn (and any job it started has ended)."""
    p.wait_for_function(f"() => (window.__dpxRuns || 0) > {int(before)} && ({DRAWN})()", timeout=TIMEOUT, polling=50)
    # two animation frames: the widgets have applied the values the run sent them (a render barrier, not a sleep)
    p.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def open_url(p, url: str) -> None:
    p.goto(url)
    settle(p, 0)  # a new document counts from 0


def act(p, action) -> None:
    """Do ``action`` (a callable on the page) and wait for the rerun it starts to finish."""
    before = runs(p)
    action()
    settle(p, before)


def epsilon_thumb(p):
    """The first ε slider of the page's body (a widget whose key names an epsilon)."""
    return p.locator('[data-testid="stMain"] [class*="st-key-"][class*="epsilon"] input[type="range"]').first


def press(thumb, key: str):
    def do():
        thumb.focus()
        thumb.press(key)

    return do


def switch_view(p, how) -> None:
    main = p.locator('[data-testid="stMain"]')
    if how[0] == "tab":
        act(p, main.locator('[role="tablist"]').first.locator('[role="tab"]').nth(how[1]).click)
    elif how[0] == "radio":
        act(p, main.locator(f".st-key-{how[1]}").get_by_text(how[2], exact=True).first.click)
    else:
        main.locator(f".st-key-{how[1]} [data-testid='stSelectbox']").click()
        act(p, p.locator('[role="option"]').nth(how[2]).click)


def snapshot(p) -> dict:
    shot = p.evaluate(SNAPSHOT)
    shot["text"] = VOLATILE.sub("·", shot["text"])
    return shot


def query(url: str) -> dict:
    """The link's parameters but the tab's token (each session has its own)."""
    pairs = [kv.partition("=") for kv in (url.split("?", 1)[1] if "?" in url else "").split("&") if kv]
    return {k: v for k, _, v in pairs if k != "tab"}


def test_the_walks_cover_every_page_and_every_view():
    """A page or a view added to the app is walked, or this fails (the People page once went unwalked)."""
    app = (ROOT / "app.py").read_text()
    assert set(PAGES) == {""} | set(re.findall(r'url_path="(\w+)"', app))
    for path, views in PAGES.items():
        page = {"": "home"}.get(path, path)
        switches = {next(iter(v.values()), None) for v in VIEWS.get(page, [{}])} if page != "learning" else {0, 1, 2}
        assert len(views) == len(switches), (path, views, VIEWS[page])


def _walk_id(walk) -> str:
    path, view = walk
    return (path or "home") + ("" if view is None else "-" + str(view[-1]).replace(" ", "_").rstrip("…"))


@pytest.mark.parametrize("walk", WALKS, ids=[_walk_id(w) for w in WALKS])
def test_the_link_after_view_switches_and_slider_moves_reproduces_the_page(browser, app_url, walk):
    path, view = walk
    sender = new_page(browser)
    open_url(sender, f"{app_url}/{path}?trials=100")  # the fewest simulated trials: a quick walk
    if epsilon_thumb(sender).count():
        act(sender, press(epsilon_thumb(sender), "ArrowLeft"))
    else:
        trials = sender.locator('[data-testid="stSidebar"] .st-key-trials input[type="range"]')
        act(sender, press(trials, "ArrowRight"))  # a page without ε: its simulations change with the trials
    if view is not None:
        switch_view(sender, view)
        if epsilon_thumb(sender).count():
            act(sender, press(epsilon_thumb(sender), "ArrowLeft"))
    if view == ("radio", "cen_query", "Category counts"):  # the walk: ε left, "Category counts", ε left
        assert epsilon_thumb(sender).get_attribute("aria-valuetext") == "0.6"
        assert query(sender.url)["cen_epsilon"] == "0.6", sender.url  # was 0.8: the link lagged behind the screen
    shown = snapshot(sender)
    receiver = new_page(browser)
    open_url(receiver, sender.url)
    got = snapshot(receiver)
    try:
        assert got["widgets"] == shown["widgets"], (query(sender.url), got["widgets"], shown["widgets"])
        assert got["metrics"] == shown["metrics"]
        assert got["text"] == shown["text"]
        # the receiver's link says what it shows (a value at the receiver's default is left out of it)
        assert query(receiver.url).items() <= query(sender.url).items(), (query(receiver.url), query(sender.url))
    finally:
        sender.context.close()
        receiver.context.close()


def test_sidebar_navigation_keeps_the_link_equal_to_the_screen(browser, app_url):
    p = new_page(browser)
    open_url(p, f"{app_url}/local")
    act(p, press(epsilon_thumb(p), "ArrowRight"))
    act(p, lambda: p.locator(NAV_LINK, has_text="Central DP").first.click())
    act(p, press(epsilon_thumb(p), "ArrowRight"))
    shown = snapshot(p)
    q = new_page(browser)
    open_url(q, p.url)
    assert snapshot(q)["widgets"] == shown["widgets"]
    p.context.close()
    q.context.close()


UPLOAD = (
    "colour,score\n" + "\n".join(f"{c},{i % 5}" for i, c in enumerate(["red", "blue", "green"] * 40)) + "\n"
).encode()


def sidebar(p) -> str:
    return p.locator('[data-testid="stSidebarContent"]').inner_text()


def test_a_reload_brings_back_the_upload_and_the_budget_and_a_shared_link_gives_neither(browser, app_url):
    p = new_page(browser)
    open_url(p, f"{app_url}/data")
    before = runs(p)
    p.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(
        {"name": "mine.csv", "mimeType": "text/csv", "buffer": UPLOAD}
    )
    p.wait_for_function(
        "() => document.querySelector('[data-testid=\"stSidebarContent\"]').innerText.includes('mine.csv')",
        timeout=TIMEOUT,
    )
    settle(p, before)
    act(p, lambda: p.locator(NAV_LINK, has_text="Accountant").first.click())
    p.get_by_text("Change the total budget", exact=False).first.click()
    total = p.locator(".st-key-acc_budget_epsilon input")
    total.fill("2")
    act(p, lambda: total.press("Enter"))
    act(p, p.locator(".st-key-acc_new_ledger button").first.click)
    assert "mine.csv" in sidebar(p) and "ε spent 0 of 2" in sidebar(p)
    token = dict(kv.split("=", 1) for kv in p.url.split("?")[1].split("&"))["tab"]
    p.reload()
    settle(p, 0)
    assert "mine.csv" in sidebar(p) and "ε spent 0 of 2" in sidebar(p)  # the same tab, reloaded: both are back
    assert f"tab={token}" not in p.url  # the new session answers to a token of its own
    other = new_page(browser)  # another browser (its own cookies) opening the same link
    open_url(other, p.url)
    assert "mine.csv" not in sidebar(other) and "ε spent 0 of 5" in sidebar(other)
    assert "This link was made on" in other.locator('[data-testid="stMain"]').inner_text()
    p.context.close()
    other.context.close()


def test_a_typed_epsilon_is_in_the_link_and_a_new_browser_opens_on_it(browser, app_url):
    p = new_page(browser)
    open_url(p, f"{app_url}/central?trials=100")
    box = p.locator(".st-key-cen_epsilon_typed input")
    box.fill("0.7")
    act(p, lambda: box.press("Enter"))
    assert p.locator('.st-key-cen_epsilon input[type="range"]').get_attribute("aria-valuetext") == "0.7"
    assert query(p.url)["cen_epsilon"] == "0.7" and not any(k.endswith("_typed") for k in query(p.url))
    shown = snapshot(p)
    q = new_page(browser)
    open_url(q, p.url)
    got = snapshot(q)
    assert got["widgets"] == shown["widgets"] and got["metrics"] == shown["metrics"]
    p.context.close()
    q.context.close()
