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
