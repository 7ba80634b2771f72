"""Every page's default view, and every view its view switch reaches with the other widgets at their defaults, runs
without a refusal (issue 24, "Must show") on three uploaded files of 60, 300 and 32,561 rows, each with numeric and
categorical columns: no exception, no error box, no "must be" sentence, no default refused by its widget.

One AppTest per file (uploaded once through the Data page), walked through every page and view by setting the view
switch's state: about as fast as the pages themselves. The pages come from app.py, so a page registered there later
is walked too (its default view; its switch once it is listed in :data:`VIEWS`).
"""

import re
import time

import numpy as np
import pytest

from explorer import training
from explorer.learning_dp_sgd import SGD_PARTS
from explorer.learning_fedavg import FED_PARTS
from explorer.learning_noisy_gd import NGD_PARTS
from tests.apptest import PAGES, ROOT, open_page

SIZES = (60, 300, 32_561)

#: Each page's views: the view switch's state, first the default view (every switch is set, so a view visited
#: before does not carry over). Pages without a switch have one view.
VIEWS = {
    "home": [{}],
    "data": [{}],
    "local": [{"ldp_view": v} for v in ("Frequencies of a category", "Mean of a number")],
    "central": [
        {"cen_query": q}
        for q in (
            "Count",
            "Sum",
            "Mean",
            "Histogram",
            "Quantile",
            "Count where…",
            "Category counts",
            "Two-way table",
            "Per year or month",
            "Most common value",
        )
    ],
    "svt": [{"svt_view": v} for v in ("Choosing a clipping bound", "Automatic mean", "Range queries")],
    "accountant": [{}],
    "compare": [{"cmp_query": q} for q in ("Counts of a category", "Mean of a number", "Quantile or median")],
    "audit": [{"aud_view": v} for v in ("Audit a mechanism", "Floating-point attack")],
    "people": [{"ppl_view": v} for v in ("Bias against noise", "Group-by with unknown keys")],
    "learning": (
        [{"lrn_view": "Noisy gradient descent", "lrn_ngd_part": p} for p in NGD_PARTS]
        + [{"lrn_view": "DP-SGD", "lrn_sgd_part": p} for p in SGD_PARTS]
        + [{"lrn_view": "Federated averaging", "lrn_fed_part": p} for p in FED_PARTS]
    ),
}


def registered_pages() -> dict[str, str]:
    """The pages app.py registers, by name (its script's stem), in its order."""
    scripts = re.findall(r"st\.Page\(\s*\"(app_pages/(\w+)\.py)\"", (ROOT / "app.py").read_text(encoding="utf-8"))
    return {name: script for script, name in scripts}


#: Pages being added as this test was written: walked when app.py registers them.
OPTIONAL = {"people", "publish"}

#: (page, view) cases that refuse today, with the sentence and the file that says it (xfail, strict).
KNOWN: dict[tuple[str, str], str] = {}


def _cases():
    for page in registered_pages():
        for view in VIEWS.get(page, [{}]):
            name = "-".join(view.values()) or "default"
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN[page, name])] if (page, name) in KNOWN else []
            yield pytest.param(page, view, id=f"{page}-{name}", marks=marks)


def rows(n: int, seed: int = 24) -> bytes:
    """A CSV of n rows like a survey's: an age (whole years), hours a week (a float), a 5-category text column and a
    yes/no column that depends on the age."""
    rng = np.random.default_rng([seed, n])
    age = rng.integers(17, 91, n)
    hours = rng.normal(40, 12, n).clip(1, 99).round(1)
    sector = rng.choice(["private", "public", "self-employed", "charity", "retired"], n, p=[0.5, 0.2, 0.15, 0.1, 0.05])
    answer = np.where(age + rng.normal(0, 15, n) > 45, "yes", "no")
    body = "".join(f"{a},{h},{s},{y}\n" for a, h, s, y in zip(age, hours, sector, answer))
    return ("age,hours,sector,answer\n" + body).encode()


@pytest.fixture(scope="module", params=SIZES, ids=[f"{n}_rows" for n in SIZES])
def app(request):
    """One session per file: the file uploaded through the Data page."""
    n = request.param
    at = open_page("data", timeout=300)
    at.file_uploader(key="data_upload").upload(f"rows_{n}.csv", rows(n), "text/csv").run()
    assert at.session_state["dataset"].n_rows == n
    assert at.session_state["dataset"].frame["sector"].nunique() == 5  # no category read as missing
    return at


def shown_text(at) -> list[str]:
    parts = [*at.markdown, *at.caption, *at.info, *at.warning, *at.error, *at.subheader, *at.toast]
    return [str(p.value) for p in parts] + [f"{m.label} {m.value}" for m in at.metric]


#: A refusal in any text: "... must be an integer in [1, 266], got 500." or "... must be ... (it was 256)."
REFUSED_VALUE = re.compile(r"must be[^.]*(, got |\(it was )")


def refusals(at) -> list[str]:
    """What on the page refuses: exceptions, error boxes, a "must be" sentence in a notice or naming the refused
    value anywhere (an explanation's "must be" is not a refusal), defaults refused by their widget."""
    found = [f"exception: {e.value}" for e in at.exception] + [f"error: {e.value}" for e in at.error]
    notices = [str(n.value) for n in (*at.info, *at.warning, *at.toast)]
    found += [f"notice: {t}" for t in notices if "must be" in t or "not allowed" in t]
    found += [f"text: {t}" for t in shown_text(at) if REFUSED_VALUE.search(t) and t not in notices]
    return found


def visit(at, page: str, view: dict) -> None:
    """Open ``view`` of ``page`` as a click on its switch would (the state and the link: AppTest keeps the link of
    the last run, whose value would otherwise win over the state), and wait for any run in the server's pool."""
    for key, value in view.items():
        at.session_state[key] = value
        at.query_params[key] = value
    at.switch_page(registered_pages()[page]).run()
    deadline = time.monotonic() + 300
    while any(b.key and b.key.startswith("jobs_cancel_") for b in at.button):  # a run in the server's pool
        assert time.monotonic() < deadline, f"{page} {view} did not get its background results"
        time.sleep(0.3)
        at.run()


@pytest.mark.parametrize("page, view", list(_cases()))
def test_the_view_runs_without_a_refusal(app, page, view):
    visit(app, page, view)
    assert app.session_state["dataset"].name.startswith("rows_")  # still the uploaded file
    for key, value in view.items():
        assert app.session_state[key] == value, (key, app.session_state[key])  # the view asked for is the one shown
    assert not refusals(app), refusals(app)
    assert shown_text(app), f"{page} {view} showed nothing"
    walked = {key: {v[key] for v in VIEWS.get(page, []) if key in v} for key in view}
    for key, switch in ((k, w) for k in view for w in (*app.radio, *app.selectbox) if w.key == k):
        assert set(switch.options) == walked[key], (key, switch.options)  # every option of the switch is walked
    tabs = {t.label for t in app.tabs}
    assert tabs <= set().union(*walked.values()), tabs - set().union(*walked.values())  # every tab is walked


def test_every_page_is_registered_and_walked():
    assert set(PAGES) <= set(registered_pages())  # the pages tests/apptest.py knows; app.py may have more
    assert set(VIEWS) - set(registered_pages()) <= OPTIONAL, set(VIEWS) - set(registered_pages())


def test_the_learning_sentences_agree_with_their_numbers(app):
    """Found in the screenshots of the 300-row file: "example clipping is ahead by 0.0 points" beside two equal
    accuracies, and "Lower ε to see an optimum inside" when the best T is the sweep's first (a lower ε moves it
    further down)."""
    visit(app, "learning", {"lrn_view": "Noisy gradient descent", "lrn_ngd_part": "Gradient or example clipping"})
    shown = {m.label: m.value for m in app.metric}
    level = shown["Gradient clipping, test accuracy"] == shown["Example clipping, test accuracy"]
    caption = next(c.value for c in app.caption if c.value.startswith("Here "))
    assert ("level" in caption) == level and "ahead by 0.0 " not in caption, caption
    visit(app, "learning", {"lrn_view": "Noisy gradient descent", "lrn_ngd_part": "Best T at this ε"})
    best = int(next(m.value for m in app.metric if m.label == "Best T at this ε"))
    said = " ".join(m.value for m in app.markdown if "best T of the sweep is at its edge" in m.value)
    if best == training.SWEEP_ITERATIONS[0]:
        assert "Raise ε" in said and "Lower ε" not in said, said
    elif best == training.SWEEP_ITERATIONS[-1]:
        assert "Lower ε" in said and "Raise ε" not in said, said
    else:
        assert not said, said
