"""Central DP on a file opened by path and sampled: the true answers are DuckDB's over every row (explorer.full_file).

The file has 300,000 rows and the sample 5,000 (``dataset.SAMPLE_ROWS`` forced small), so a truth over the sample
and one over the file differ by far more than any formatting: each assert below tells them apart.
"""

import json

import duckdb
import numpy as np
import pandas as pd
import pytest

from dpcore import dp_count
from explorer import cache, dataset, full_file, state, unit
from explorer.columns import encode_categories
from explorer.dataset import DATA_FOLDER_VARIABLE
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
        assert_clean(at)
        return at

    return page, scans


def _said(at, words):
    return any(words in c.value.replace("\\", "") for c in at.caption)


def test_the_true_count_is_over_every_row_and_an_epsilon_move_does_not_scan_again(opened, table):
    page, scans = opened
    _, frame = table
    at = page("Count", cen_column="x")
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
    lo, hi = at.number_input(key="cen_lower_x").value, at.number_input(key="cen_upper_x").value
    x = frame["x"].dropna()
    assert metric(at, "True answer") == _num(float(x.clip(lo, hi).sum()))
    assert _said(at, f"the true sum is {_num(float(x.sum()))}")  # the unclipped sum, also over every row
    at.radio(key="cen_query").set_value("Mean").run()
    assert_clean(at)
    assert metric(at, "True answer") == _num(float(x.clip(lo, hi).mean()))


def test_the_histogram_counts_every_row_in_the_declared_bins(opened, table):
    page, _ = opened
    _, frame = table
    at = page("Histogram", cen_column="x", cen_bins=7)
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
    sample = at.session_state[state.DATASET]
    bars = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    labels = [str(v) for v in bars[0]["x"]]
    cells = frame["grp"].where(frame["grp"] != "n/a")  # the loader reads 'n/a' as missing
    assert labels == encode_categories(sample.frame["grp"])[1]  # the sample's categories, as the page lists them
    counts = cells.fillna("(missing)").value_counts()
    assert "(missing)" in labels and np.array_equal(_values(bars[0]["y"]), [counts[label] for label in labels])
    assert _said(at, f"all {ROWS:,} rows")


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
    assert _said(at, f"Computed on the seeded sample of {KEPT:,} of the file's {ROWS:,} rows")
