"""Every file of the upload corpus, through the real upload widget: loaded and profiled, or refused in one sentence."""

import pytest

from tests.apptest import open_page
from tests.upload_corpus import CORPUS


def _sidebar(at) -> str:
    return " ".join(t.value for t in at.sidebar.text)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_upload_loads_or_is_refused_and_loses_nothing(name):
    raw, expected = CORPUS[name]
    at = open_page("data")
    at.file_uploader(key="data_upload").upload(name, raw, "text/csv").run()
    assert not at.exception, [e.value for e in at.exception]
    if expected == "load":
        assert not at.error, [e.value for e in at.error]
        assert name in _sidebar(at)
        profile = at.dataframe[0].value
        assert len(profile) >= 1 and set(profile["kind"]) <= {"numeric", "categorical", "identifier-like", "empty"}
    else:
        assert "census.csv" in _sidebar(at), "a refused upload must leave the previous dataset active"
        messages = [e.value for e in at.error]
        assert len(messages) == 1 and expected in messages[0].lower(), messages
        assert "Traceback" not in messages[0]


@pytest.mark.parametrize(
    "page, query",
    [("local", {"ldp_view": "Mean of a number"}), ("compare", {"cmp_query": "Mean of a number"})],
    ids=["local-mean", "compare-mean"],
)
def test_the_heaviest_upload_loads_whole_and_the_once_unbounded_views_still_draw(page, query):
    # a million all-distinct floats at 10,000 trials: these views once took 130 s and 1.8 GB, then MemoryError
    from tests.apptest import PAGES
    from tests.upload_corpus import HEAVY_NAME, heavy_csv

    at = open_page("data", timeout=300, trials=10_000)
    at.file_uploader(key="data_upload").upload(HEAVY_NAME, heavy_csv(), "text/csv").run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert HEAVY_NAME in _sidebar(at) and "1,000,000 rows" in _sidebar(at), _sidebar(at)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(PAGES[page]).run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert at.session_state["trials"] == 10_000 and at.get("plotly_chart"), "the view drew nothing"
