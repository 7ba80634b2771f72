"""The Sparse vector page: runs, reruns on a slider move, and shows dpcore's numbers."""

import numpy as np
import pytest

from dpcore import auto_mean, choose_clipping_bound, naive_range_query, range_query_svt, svt_noise_scales
from explorer import svt_range_queries
from explorer.columns import numeric_values, suggest_bounds
from explorer.dataset import load_demo
from tests.apptest import assert_clean, assert_epsilon_widens, metric, open_page

SEED = 2017  # the sidebar's default seed
MEAN, RANGES = "Automatic mean", "Range queries"  # the tabs after the first; only the open one runs


def page_rng(salt, seed=SEED):
    """The generator ``ui.rng(salt)`` gives for this seed."""
    return np.random.default_rng([seed, sum(map(ord, salt))])


def census(column="age"):
    frame = load_demo("census").frame
    return numeric_values(frame[column])[0], frame[column]


def candidates(at):
    largest = at.number_input(key="svt_max_bound").value
    return np.linspace(largest / 100, largest, 100)


def test_page_shows_the_numbers_of_dpcore():
    at = open_page("svt")
    assert_clean(at)
    assert at.selectbox(key="svt_column").value == "age"
    values, _ = census()
    cand, eps = candidates(at), at.select_slider(key="svt_epsilon").value
    assert cand[-1] == 200.0  # twice the suggested upper bound 83, rounded up to one significant digit
    chosen = choose_clipping_bound(values, cand, eps, page_rng("svt-bound"))
    assert metric(at, "Chosen bound, simulated (AboveThreshold)") == f"{chosen:g}"
    at = open_page("svt", svt_view=MEAN)
    assert_clean(at)
    assert candidates(at)[-1] == cand[-1]
    sims = auto_mean(values, cand, eps, page_rng("svt-mean-sims"), trials=1_000)
    assert metric(at, "Theoretical std (delta method)") == f"{sims.approx_error_std():,.4f}"
    assert metric(at, "Empirical std of the error") == f"{sims.error.std(ddof=1):,.4f}"
    one = auto_mean(values, cand, eps, page_rng("svt-mean"), lattice=True)  # the published mean
    assert metric(at, "Noisy mean, simulated") == f"{one.noisy_value:,.3f}"


def test_range_table_reproduces_svt_and_naive_and_a_slider_move_updates_it():
    at = open_page("svt", svt_view=RANGES)
    before = metric(at, "SVT answer noise scale 2c/ε")
    at.select_slider(key="svt_epsilon").set_value(4.0).run()
    assert_clean(at)
    assert metric(at, "SVT answer noise scale 2c/ε") != before
    assert metric(at, "SVT answer noise scale 2c/ε") == f"{svt_noise_scales(20, 3, 4.0).answer:,.3g}"
    # the ranges are page parameters drawn from the page seed; the counts are plain counting
    values, series = census()
    lo, hi = suggest_bounds(series)
    ends = np.sort(np.round(page_rng("svt-ranges").uniform(lo, hi, size=(20, 2)), 1), axis=1)  # age: span 66, 1 decimal
    xs = np.sort(values)
    true = np.searchsorted(xs, ends[:, 1], "right") - np.searchsorted(xs, ends[:, 0], "left")
    threshold = round(0.25 * values.size)
    svt = dict(range_query_svt(true, threshold, 3, 4.0, page_rng("svt-release"), lattice=True))  # published
    naive = dict(naive_range_query(true, threshold, 4.0, page_rng("svt-naive"), lattice=True))
    table = at.dataframe[0].value
    assert table["true count"].tolist() == true.tolist()
    assert np.flatnonzero(table["passed SVT"]).tolist() == sorted(svt)
    # shown in whole units, by the one rounding rule (explorer.export.rounded)
    assert table["SVT answer"].dropna().tolist() == [float(np.round(svt[i])) for i in sorted(svt)]
    assert np.flatnonzero(table["passed naive"]).tolist() == sorted(naive)
    assert metric(at, "Queries passed: SVT / naive") == f"{len(svt)} / {len(naive)}"
    # where Sparse stopped (its c-th positive) is marked and said: the queries after it were never asked
    asked = sorted(svt)[2] + 1 if len(svt) == 3 else 20
    assert svt_range_queries.stopped_after(table["passed SVT"].to_numpy(), 3) == asked
    said = " ".join(m.value for m in at.markdown)
    if asked < 20:
        assert f"Sparse stopped at query {asked} of 20" in said and f"the {20 - asked} after it" in said
    else:
        assert "Sparse asked all 20 queries" in said


SHARED = {"svt_column", "svt_epsilon"}  # the page script's picks (and the tabs, svt_view); each view adds its own
EXPLAINED = "How the sparse vector technique works, and how it goes wrong"


@pytest.mark.parametrize(
    "view,picks",
    [(None, {"svt_max_bound"}), (MEAN, {"svt_max_bound"}), (RANGES, {"svt_c", "svt_threshold", "svt_queries"})],
)
def test_each_view_keeps_its_picks_bound_to_the_url_under_their_keys(view, picks):
    at = open_page("svt", **({"svt_view": view} if view else {}))
    assert_clean(at)
    found = [*at.main.selectbox, *at.main.select_slider, *at.main.slider, *at.main.number_input]
    bound = {w.key: w.proto.query_param_key for w in found if w.key}
    assert SHARED | picks <= set(bound) and all(bound[key] == key for key in SHARED | picks), bound
    assert ("svt_c" in bound) == (view == RANGES)  # only the open view runs
    assert any(e.label == EXPLAINED for e in at.expander) == (view == RANGES)


def test_a_new_column_gets_its_own_candidate_bounds():
    at = open_page("svt", svt_max_bound=300)
    assert at.number_input(key="svt_max_bound").value == 300.0  # a shared link's bound is kept
    at.selectbox(key="svt_column").set_value("capital-gain").run()
    assert_clean(at)
    assert at.number_input(key="svt_max_bound").value == 60_000.0  # not the age bound of the link


def test_impossible_values_give_a_sentence_and_the_rest_still_renders():
    link = {"svt_max_bound": -5, "svt_c": 0, "svt_epsilon": 0}
    for view in (None, MEAN):  # the walk and the mean each say why the candidates cannot be used
        at = open_page("svt", **link, **({"svt_view": view} if view else {}))
        assert not at.exception
        errors = [e.value.replace("\\", "") for e in at.error]  # shown escaped: user text never becomes Markdown
        assert len(errors) == 1 and "The largest candidate bound must be above 0 (it was -5)." in errors[0], (
            view,
            errors,
        )
        assert any("**ε, privacy loss** to 0, which is not allowed" in i.value.replace("\\", "") for i in at.info)
    at = open_page("svt", **link, svt_view=RANGES)
    assert not at.exception and not at.error
    assert any("**c, most positives** to 0, which is not allowed" in i.value.replace("\\", "") for i in at.info)
    assert metric(at, "Queries passed: SVT / naive")  # the range queries render with the default c


def test_uploaded_csv_runs_and_one_without_numbers_says_so():
    at = open_page("data")
    rows = "\n".join(f"{i % 7},{(i * 37) % 101},g{i % 3}" for i in range(200))
    at.file_uploader(key="data_upload").upload("x.csv", f"a,b,c\n{rows}\n".encode(), "text/csv").run()
    at.query_params["svt_view"] = MEAN
    at.switch_page("app_pages/svt.py").run()
    assert_clean(at)
    assert at.selectbox(key="svt_column").value == "a"
    assert metric(at, "True mean (no clipping)") == f"{np.mean([i % 7 for i in range(200)]):,.3f}"

    at = open_page("data")
    at.file_uploader(key="data_upload").upload("words.csv", b"w\nx\ny\nx\nz\n", "text/csv").run()
    at.switch_page("app_pages/svt.py").run()
    assert_clean(at)
    assert any("no numeric column" in i.value for i in at.info)


def test_the_automatic_means_error_histogram_has_a_fixed_axis_so_epsilon_widens_it():
    at = open_page("svt", svt_view=MEAN, svt_epsilon=1.0)
    assert_clean(at)
    assert_epsilon_widens(at, "svt_mean_hist", "svt_epsilon", "Empirical std of the error")
    assert any("The x-axis is fixed at ±" in c.value for c in at.caption)
