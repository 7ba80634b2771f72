"""Sparse vector's Publish sections: the candidates and ranges declared, the threshold in rows, secure noise."""

from __future__ import annotations

import numpy as np
import pytest

from dpcore import evenly_spaced_candidates, publish
from explorer import releases
from tests.apptest import open_page

N_CANDIDATES = 100  # app_pages/svt.py


@pytest.fixture(autouse=True)
def own_log(tmp_path, monkeypatch):
    monkeypatch.setenv("DPX_DATA_DIR", str(tmp_path))


def _published(at):
    return [d.value for d in at.dataframe if list(d.value.columns) == ["label", "released value"]]


def test_each_view_publishes_only_once_its_facts_are_declared():
    for link, key in [
        ({}, "svt_pub_walk_publish"),
        ({"svt_view": "Automatic mean"}, "svt_pub_mean_publish"),
        ({"svt_view": "Range queries"}, "svt_pub_ranges_publish"),
    ]:
        at = open_page("svt", **link)
        assert [b for b in at.button if b.key == key][0].disabled, key
        assert any("To publish, declare" in i.value for i in at.info)


def test_the_clipping_bound_is_one_of_the_declared_candidates():
    at = open_page("svt", svt_pub_largest_age="200")
    at.button(key="svt_pub_walk_publish").click().run()
    chosen = float(_published(at)[-1]["released value"][0])
    candidates = evenly_spaced_candidates(200.0, N_CANDIDATES)  # the page walks N_CANDIDATES of them
    assert np.any(np.isclose(candidates, chosen, rtol=0, atol=1e-9)), chosen


def test_range_counts_list_declared_ranges_only_with_their_noisy_counts():
    link = {"svt_view": "Range queries", "svt_pub_lower_age": "17", "svt_pub_upper_age": "90"}
    at = open_page("svt", **link, svt_pub_threshold_age="1000")
    at.button(key="svt_pub_ranges_publish").click().run()
    table = _published(at)[-1]
    declared = releases.random_ranges(17.0, 90.0, 20, [2017, sum(map(ord, "svt-ranges"))])
    labels = {f"[{a:g}, {b:g}]" for a, b in declared}
    assert set(table["label"]) <= labels and 0 < len(table) <= 3  # at most c = 3 answered


def test_nothing_above_the_threshold_is_a_publication_too_not_a_refusal():
    """A refusal when no range passes would say that no range holds that many rows."""
    values = np.random.default_rng(0).uniform(0, 50, 500)
    release = publish.publish_range_counts(values, [[0, 10], [5, 45]], 10**6, 2, 1.0)
    assert release.values == () and release.labels == ()


@pytest.mark.parametrize(
    "page, link, key",
    [
        ("local", {"ldp_column": "race", "ldp_pub_domain_race": "White\nBlack"}, "ldp_pub_publish"),
        (
            "local",
            {"ldp_view": "Mean of a number", "ldpm_pub_lower_age": "0", "ldpm_pub_upper_age": "100"},
            "ldpm_pub_publish",
        ),
        ("svt", {"svt_view": "Automatic mean", "svt_pub_largest_age": "200"}, "svt_pub_mean_publish"),
    ],
    ids=["local counts", "local mean", "automatic mean"],
)
def test_the_same_link_and_seed_publish_different_noise_each_time(page, link, key):
    """No publication can be reproduced from the link (its seed included) or redrawn by a rerun."""
    published = []
    for _ in range(2):
        at = open_page(page, seed=2017, **link)
        at.button(key=key).click().run()
        assert not at.exception, [e.value for e in at.exception]
        published.append(tuple(_published(at)[-1]["released value"]))
        at.run()
        assert tuple(_published(at)[-1]["released value"]) == published[-1]  # shown again, not redrawn
    assert published[0] != published[1]
