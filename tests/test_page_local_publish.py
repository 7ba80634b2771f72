"""Local DP's Publish sections, and how one data's publications under two relations meet in the log.

A local estimate holds under replace one record (n public); a central count under add/remove one record. The first
publication fixes the relation of the data's log: a central count after a local estimate is charged 2ε there
(group privacy), a local estimate after a central count is refused in one sentence.
"""

from __future__ import annotations

import pytest

from explorer import publishing, state
from tests.apptest import open_page

DOMAIN = "White\nBlack\nAsian-Pac-Islander\nAmer-Indian-Eskimo\nOther"


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))


def _fingerprint(at) -> str:
    ds = at.session_state[state.DATASET]
    return ds.fingerprint or ds.identity


def _published(at):
    return [d.value for d in at.dataframe if list(d.value.columns) == ["label", "released value"]]


def test_local_counts_publish_the_declared_domain_under_replace_one():
    at = open_page("local", ldp_column="race", ldp_pub_domain_race=DOMAIN, ldp_epsilon=2)
    at.button(key="ldp_pub_publish").click().run()
    assert not at.exception, [e.value for e in at.exception]
    table = _published(at)[-1]
    assert table["label"].tolist() == [*DOMAIN.split("\n"), "(other)"]  # everyone reports: (other) is always there
    assert any("replace one record" in s.value for s in at.success)
    assert publishing.publication_log().spent(_fingerprint(at)).epsilon == pytest.approx(2.0)


def test_a_local_mean_needs_declared_bounds():
    at = open_page("local", ldp_view="Mean of a number")
    assert [b for b in at.button if b.key == "ldpm_pub_publish"][0].disabled
    at = open_page("local", ldp_view="Mean of a number", ldpm_pub_lower_age="0", ldpm_pub_upper_age="100")
    at.button(key="ldpm_pub_publish").click().run()
    assert len(_published(at)) == 1


def test_a_central_count_after_a_local_estimate_is_charged_twice_and_the_reverse_is_refused():
    local = open_page("local", ldp_column="race", ldp_pub_domain_race=DOMAIN, ldp_epsilon=1)
    local.button(key="ldp_pub_publish").click().run()
    central = open_page("central", cen_query="Count", cen_epsilon=1)
    assert any("charged ε = 2" in c.value for c in central.caption), [c.value for c in central.caption]
    central.button(key="cen_pub_publish").click().run()
    assert publishing.publication_log().spent(_fingerprint(central)).epsilon == pytest.approx(3.0)


def test_a_local_estimate_after_a_central_count_is_refused_in_one_sentence(tmp_path):
    central = open_page("central", cen_query="Count", cen_epsilon=1)
    central.button(key="cen_pub_publish").click().run()
    local = open_page("local", ldp_column="race", ldp_pub_domain_race=DOMAIN)
    button = [b for b in local.button if b.key == "ldp_pub_publish"][0]
    assert button.disabled
    assert any("keeps the relation of its first publication" in i.value for i in local.info), [
        i.value for i in local.info
    ]
