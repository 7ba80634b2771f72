"""Central DP on a file opened by path and sampled: the true answers are DuckDB's over every row (explorer.full_file).

The file has 300,000 rows and the sample 5,000 (``dataset.SAMPLE_ROWS`` forced small), so a truth over the sample
and one over the file differ by far more than any formatting: each assert below tells them apart.
"""

import json
import time

import duckdb
import numpy as np
import pandas as pd
import pytest

from dpcore import dp_count
from dpcore.contributions import ContributionBounds, PrivacyUnit
from explorer import cache, dataset, full_file, jobs, state, unit
from explorer.columns import encode_categories
from explorer.dataset import DATA_FOLDER_VARIABLE
from explorer.engine import aggregates
from tests.apptest import PAGES, assert_clean, metric, open_page
from tests.test_page_central import SEED, _num, _shown, _values

ROWS, KEPT, PERSONS = 300_000, 5_000, 20_000


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A Parquet file of ROWS rows: a number with missing cells, a category with cells spelled as missing, a person."""
    folder = tmp_path_factory.mktemp("data")
    path = folder / "big.parquet"
    duckdb.sql(
        "COPY (SELECT i % 20000 AS pid, CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 7919) % 1000) / 10.0 END AS x, "
        "CASE WHEN i % 17 = 0 THEN 'n/a' ELSE 'g' || ((i * 31) % 5) END AS grp "
        f"FROM range({ROWS}) t(i)) TO '{path}' (FORMAT parquet)"
    )
    return folder, pd.read_parquet(path)


@pytest.fixture()
def opened(table, monkeypatch):
    """The Central page on the file opened by path, its engine scans counted."""
    folder, _ = table
    monkeypatch.setenv(DATA_FOLDER_VARIABLE, str(folder))
    monkeypatch.setattr(dataset, "SAMPLE_ROWS", KEPT)
    cache.clear()  # every scan of this test is its own
    scans = []
    scan = full_file._scan

    def counted(*args):
        scans.append(args[2])
        return scan(*args)

    monkeypatch.setattr(full_file, "_scan", counted)

    def page(query, **state):
        at = open_page("data")
        at.selectbox(key="data_folder_file").set_value("big.parquet")
        at.button(key="data_folder_open").click().run()
        for key, value in state.items():
            at.session_state[key] = value
        at.session_state["cen_query"] = query
        at.switch_page(PAGES["central"]).run()
        return at

    return page, scans


def _said(at, words):
    return any(words in c.value.replace("\\", "") for c in at.caption)


def test_the_true_count_is_over_every_row_and_an_epsilon_move_does_not_scan_again(opened, table):
    page, scans = opened
    _, frame = table
    at = page("Count", cen_column="x")
    assert_clean(at)
    n = int(frame["x"].notna().sum())  # the rows with a value, of the whole file
    assert at.session_state[state.DATASET].n_rows == KEPT and at.session_state[state.DATASET].sampled
    assert metric(at, "True answer") == _num(n)
    # the seeded noise is added to the whole file's count: the same draw as dpcore's on that count with the page seed
    expected = dp_count(np.zeros(n), 1.0, 0).on_lattice(np.random.default_rng([SEED, sum(map(ord, "central"))]))
    assert metric(at, "Noisy answer (simulated, not private)") == _num(_shown(expected))
    assert _said(at, f"all {ROWS:,} rows") and _said(at, "computed by DuckDB")
    assert _said(at, f"{ROWS - n:,} missing values were left out")
    first = len(scans)
    assert first >= 1
    at.select_slider(key="cen_epsilon").set_value(0.5).run()
    assert_clean(at)
    assert len(scans) == first  # the aggregates were read back: no scan of the file
    assert metric(at, "True answer") == _num(n)
    moved = dp_count(np.zeros(n), 0.5, 0).on_lattice(np.random.default_rng([SEED, sum(map(ord, "central"))]))
    assert metric(at, "Noisy answer (simulated, not private)") == _num(_shown(moved))  # the noise at the new ε


def test_the_true_sum_and_mean_are_over_every_row(opened, table):
    page, _ = opened
    _, frame = table
    at = page("Sum", cen_column="x")
    assert_clean(at)
    lo, hi = at.number_input(key="cen_lower_x").value, at.number_input(key="cen_upper_x").value
    x = frame["x"].dropna()
    assert metric(at, "True answer") == _num(float(x.clip(lo, hi).sum()))
    assert _said(at, f"the true sum is {_num(float(x.sum()))}")  # the unclipped sum, also over every row
    at.radio(key="cen_query").set_value("Mean").run()
    assert_clean(at)
    assert metric(at, "True answer") == _num(float(x.clip(lo, hi).mean()))
    at.selectbox(key="cen_mechanism").set_value("Staircase").run()  # simulated only: floating-point noise
    assert_clean(at)
    assert metric(at, "True answer") == _num(float(x.clip(lo, hi).mean()))
    error = abs(float(metric(at, "Noisy answer (simulated, not private)")) - x.clip(lo, hi).mean())
    bound = float(metric(at, "95% error bound").lstrip("±"))
    assert error <= 5 * bound  # drawn around the whole file's mean, not the sample's (about 0.4 away)


def test_bounds_dpcore_refuses_get_its_one_sentence_before_any_scan(opened):
    page, scans = opened
    at = page("Sum", cen_column="x", cen_lower_x=500.0, cen_upper_x=10.0)
    assert not at.exception
    assert [e.value for e in at.error] and all("cannot be released" in e.value for e in at.error)
    assert not scans  # the settings were refused by dpcore first: nothing was asked of the engine


def test_the_histogram_counts_every_row_in_the_declared_bins(opened, table):
    page, _ = opened
    _, frame = table
    at = page("Histogram", cen_column="x", cen_bins=7)
    assert_clean(at)
    lo, hi = at.number_input(key="cen_lower_x").value, at.number_input(key="cen_upper_x").value
    x = frame["x"].dropna().to_numpy()
    expected = np.histogram(np.clip(x, lo, hi), bins=np.linspace(lo, hi, 8))[0]
    bars = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert np.array_equal(_values(bars[0]["y"]), expected) and expected.sum() > 50 * KEPT
    assert _said(at, f"{int((x > hi).sum()):,} above {hi:g} in the last")


def test_category_counts_are_over_every_row_for_the_categories_the_page_lists(opened, table):
    page, _ = opened
    _, frame = table
    at = page("Category counts", cen_category_column="grp")
    assert_clean(at)
    sample = at.session_state[state.DATASET]
    bars = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    labels = [str(v) for v in bars[0]["x"]]
    cells = frame["grp"].where(frame["grp"] != "n/a")  # the loader reads 'n/a' as missing
    assert labels == encode_categories(sample.frame["grp"])[1]  # the sample's categories, as the page lists them
    counts = cells.fillna("(missing)").value_counts()
    assert "(missing)" in labels and np.array_equal(_values(bars[0]["y"]), [counts[label] for label in labels])
    assert _said(at, f"all {ROWS:,} rows")


def test_a_count_where_two_conditions_hold_is_over_every_row(opened, table):
    page, _ = opened
    _, frame = table
    at = page(
        "Count where…",
        cen_where_column="x",
        cen_where_condition="≥",
        cen_where_value_x=50.0,
        cen_where_and=True,
        cen_where2_column="grp",
        cen_where2_condition="is not",
        cen_where2_value_grp="g1",
    )
    assert_clean(at)
    grp = frame["grp"].where(frame["grp"] != "n/a")  # missing: never matches, not even "is not"
    n = int(((frame["x"] >= 50) & grp.notna() & (grp != "g1")).sum())
    assert metric(at, "True answer") == _num(n) and n > 10 * KEPT
    assert _said(at, f"all {ROWS:,} rows")


def test_the_most_common_value_is_chosen_on_the_whole_files_counts(opened, table):
    page, _ = opened
    _, frame = table
    at = page("Most common value", cen_category="grp")
    assert_clean(at)
    counts = frame["grp"].where(frame["grp"] != "n/a").fillna("(missing)").value_counts()
    (shown,) = [m for m in at.metric if m.label == "True most common value"]
    assert shown.value == counts.index[0] and shown.delta == f"count {counts.iloc[0]:,}"
    assert counts.iloc[0] > 10 * KEPT and _said(at, f"all {ROWS:,} rows")


def test_a_person_unit_bounds_each_persons_rows_in_the_engine(opened, table):
    page, _ = opened
    _, frame = table

    at = open_page("data")  # the unit is declared on the Data page, after the file is opened
    at.selectbox(key="data_folder_file").set_value("big.parquet")
    at.button(key="data_folder_open").click().run()
    at.radio(key="unit").set_value(unit.PERSON).run()
    at.selectbox(key="unit_id").set_value("pid").run()
    at.number_input(key="unit_rows").set_value(3.0).run()
    at.switch_page(PAGES["central"]).run()
    at.selectbox(key="cen_column").set_value("x").run()  # the query is Count by default
    assert_clean(at)
    rows = frame.loc[frame["x"].notna(), "pid"].value_counts().to_numpy()  # about 14 rows each in the file
    assert metric(at, "True answer") == _num(int(np.minimum(rows, 3).sum()))  # which rows are kept changes no count
    assert _said(at, "keyed hash of this page's seed")
    at.radio(key="cen_query").set_value("Mean").run()
    assert_clean(at)
    assert _said(at, "keyed hash of this page's seed") and _said(at, f"all {ROWS:,} rows")
    at.radio(key="cen_query").set_value("Histogram").run()  # m rows in any bins: a bounding the engine lacks
    assert_clean(at)
    assert _said(at, f"Computed on the seeded sample of {KEPT:,} of the file's {ROWS:,} rows: under a person unit")


def test_a_view_that_needs_rows_says_it_is_on_the_sample(opened):
    page, _ = opened
    at = page("Quantile")
    assert_clean(at)
    assert _said(at, f"Computed on the seeded sample of {KEPT:,} of the file's {ROWS:,} rows")


def test_a_large_csv_is_read_by_the_loaders_cell_rules_or_left_to_the_sample(tmp_path):
    # over an upload's rows, so DuckDB reads it where it lies (explorer.csv_reader.read_path) and the sample is small
    rows = dataset.MAX_ROWS + 5
    i = np.arange(rows)
    g = np.where(i % 10 == 0, "NA", np.char.add(np.where(i % 4 == 0, " k", "k"), (i % 3).astype(str)))  # spaces
    x = np.where(i % 9 == 0, "n/a", np.char.mod("%.2f", (i % 1000) / 4))
    v = np.char.add((i % 7).astype(str), ",5")  # decimal commas: the loader reads them, SQL would not alike
    p = np.where(i == 12_345, "", np.char.add("p", (i % 5000).astype(str)))  # one row without a person
    body = np.char.add(np.char.add(np.char.add(np.char.add(g, ";"), x), ";"), np.char.add(np.char.add(v, ";"), p))
    (tmp_path / "long.csv").write_text("g;x;v;p\n" + "\n".join(body) + "\n")
    ds = dataset.load_path(tmp_path, "long.csv", seed=3, sample_rows=2_000)
    assert ds.sampled and ds.total_rows == rows
    cache.clear()

    numbers = pd.Series(np.where(i % 9 == 0, np.nan, (i % 1000) / 4))
    whole = full_file.whole_numeric(ds, "x", "sum", {"lower": 10.0, "upper": 200.0})
    assert whole.rows == numbers.notna().sum() and whole.total == pytest.approx(numbers.clip(10, 200).sum(), rel=1e-12)
    assert (whole.below, whole.above) == ((numbers < 10).sum(), (numbers > 200).sum())

    codes, labels, _ = encode_categories(ds.frame["g"])
    counted = full_file.whole_categories(ds, "g", labels)
    cells = pd.Series(np.char.strip(g)).replace("NA", "(missing)").value_counts()  # stripped; 'NA' is missing
    assert counted.counts == tuple(int(cells[label]) for label in labels) and counted.left_out == 0

    said = full_file.whole_numeric(ds, "v", "sum", {"lower": 0.0, "upper": 7.0})
    assert isinstance(said, str) and "not read by the same rules" in said  # left to the sample, and said

    person = PrivacyUnit("p", ContributionBounds(max_rows=3))
    refused = full_file.whole_numeric(ds, "x", "count", {}, person, [SEED, 1])
    assert isinstance(refused, str) and "1 row(s) without one" in refused


# --------------------------------------------------------------------- a scan above the rerun's share: the pool


def _quarters(folder, rows=60_000):
    """A Parquet file whose values are quarters (their sums exact in any order) and 3,000 persons."""
    path = folder / "quarters.parquet"
    duckdb.sql(
        f"COPY (SELECT i % 3000 AS pid, ((i * 7919) % 4000) / 4.0 AS x FROM range({rows}) t(i)) TO '{path}' "
        "(FORMAT parquet)"
    )
    return dataset.load_path(folder, "quarters.parquet", seed=3, sample_rows=2_000)


def test_a_scan_estimated_above_the_reruns_share_goes_to_the_pool_and_equals_the_inline_one(tmp_path, monkeypatch):
    ds = _quarters(tmp_path)
    person = PrivacyUnit("pid", ContributionBounds(max_rows=4))
    settings = {"lower": 100.0, "upper": 700.0}
    cache.clear()
    inline = full_file.whole_numeric(ds, "x", "sum", settings, person, [SEED, 1])  # 60,000 rows: in the rerun
    assert isinstance(inline, full_file.Whole) and inline.rows == 3000 * 4
    # the per-row cost of the window scan as if measured on a slow machine: this file's sum is now "heavy"
    monkeypatch.setitem(full_file.SECONDS_PER_ROW, "window", 1.0)
    asked = []
    monkeypatch.setattr(full_file.jobs, "background", lambda *args, **kwargs: asked.append((args, kwargs)))
    cache.clear()
    assert full_file.whole_numeric(ds, "x", "sum", settings, person, [SEED, 1]) is None  # computing in the pool
    ((slot, key, calls), kwargs) = asked[0]
    assert len(asked) == 1 and slot == "full_file_0"  # the bounded sum only; the unbounded profile in the rerun
    assert kwargs["estimate"] == ds.total_rows * 1.0 and f"all {ds.total_rows:,} rows" in kwargs["label"]
    pool = jobs.JobManager(workers=1)
    try:
        job = pool.submit("a", calls, key=key, label=kwargs["label"])
        deadline = time.monotonic() + 240
        while not pool.status(job, "a").finished:
            assert time.monotonic() < deadline, "the pool did not finish the scan"
            time.sleep(0.2)
        (pooled,) = pool.result(job, "a")
    finally:
        pool.shutdown()
    (here,) = jobs.run_calls(calls)
    pd.testing.assert_frame_equal(pooled, here, check_exact=True)  # the same SQL, seed and engine in the worker
    # the page's rerun once the job is done: the pooled aggregate is kept and gives the inline Whole
    monkeypatch.setattr(full_file.jobs, "background", lambda *args, **kwargs: [pooled])
    assert full_file.whole_numeric(ds, "x", "sum", settings, person, [SEED, 1]) == inline
    monkeypatch.setattr(full_file.jobs, "background", lambda *args, **kwargs: pytest.fail("submitted again"))
    assert full_file.whole_numeric(ds, "x", "sum", settings, person, [SEED, 1]) == inline  # read back: no new job
    other = {"lower": 100.0, "upper": 650.0}
    monkeypatch.setattr(full_file.jobs, "background", lambda *args, **kwargs: asked.append((args, kwargs)))
    assert full_file.whole_numeric(ds, "x", "sum", other, person, [SEED, 1]) is None  # a new bound: a new scan
    assert asked[-1][0][1] != key


def test_the_estimate_sends_only_a_large_files_person_bounded_sum_to_the_pool():
    rows = 10_000_000
    bounded = aggregates.clipped_sum("v", 0.0, 1.0, person="p", bounds=ContributionBounds(max_rows=3))
    assert full_file.in_pool(bounded, rows) and not full_file.in_pool(bounded, 1_000_000)
    assert full_file.estimated_seconds(bounded, rows) == rows * full_file.SECONDS_PER_ROW["window"]
    for query in (aggregates.count(person="p", bounds=ContributionBounds(max_rows=3)), aggregates.count()):
        assert not full_file.in_pool(query, rows)  # one GROUP BY or one pass: in the rerun
    assert not full_file.in_pool(aggregates.clipped_sum("v", 0.0, 1.0), rows)


def test_the_central_page_shows_the_scan_in_the_pool_then_its_result_and_an_epsilon_move_resubmits_nothing(
    opened, table, monkeypatch
):
    page, _ = opened
    _, frame = table
    monkeypatch.setitem(full_file.SECONDS_PER_ROW, "window", 1.0)  # this file's person-bounded sum is "heavy"
    submitted = []
    submit = jobs.JobManager.submit

    def counted(self, *args, **kwargs):
        submitted.append(kwargs.get("key"))
        return submit(self, *args, **kwargs)

    monkeypatch.setattr(jobs.JobManager, "submit", counted)
    at = open_page("data")
    at.selectbox(key="data_folder_file").set_value("big.parquet")
    at.button(key="data_folder_open").click().run()
    at.radio(key="unit").set_value(unit.PERSON).run()
    at.selectbox(key="unit_id").set_value("pid").run()
    at.number_input(key="unit_rows").set_value(3.0).run()
    at.switch_page(PAGES["central"]).run()
    at.selectbox(key="cen_column").set_value("x").run()
    at.radio(key="cen_query").set_value("Sum").run()
    assert_clean(at)
    assert at.button(key="jobs_cancel_full_file_0").label == "Cancel"  # the pending state: its place, a Cancel
    texts = [p.proto.text for p in at.get("progress")]
    assert any(t.startswith(f"The true answers over all {ROWS:,} rows (DuckDB): ") for t in texts), texts
    assert _said(at, f"all {ROWS:,} rows** of big.parquet are being computed by DuckDB in the background")
    assert _said(at, f"shows the seeded sample of {KEPT:,} rows")
    deadline = time.monotonic() + 240
    while any(b.key == "jobs_cancel_full_file_0" for b in at.button):
        assert time.monotonic() < deadline, "the page did not get its background result"
        time.sleep(0.5)
        at.run()
    assert_clean(at)
    pooled = metric(at, "True answer")
    assert _said(at, f"True answers over **all {ROWS:,} rows**") and len(submitted) == 1
    at.select_slider(key="cen_epsilon").set_value(0.5).run()  # an ε move: read back, nothing submitted
    assert_clean(at)
    assert metric(at, "True answer") == pooled and len(submitted) == 1
    # the same view computed in the rerun (a cheap estimate): the same true answer
    monkeypatch.setitem(full_file.SECONDS_PER_ROW, "window", 0.0)
    cache.clear()
    at.run()
    assert_clean(at)
    assert metric(at, "True answer") == pooled and len(submitted) == 1
    lo, hi = at.number_input(key="cen_lower_x").value, at.number_input(key="cen_upper_x").value
    assert lo < hi and not any(b.key == "jobs_cancel_full_file_0" for b in at.button)
