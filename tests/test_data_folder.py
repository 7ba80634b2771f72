"""Opening files by path from a local install's data folder: listing, refusals of paths out of it, seeded samples of
large files, and the Data page's listing."""

from __future__ import annotations

import math
import os

import duckdb
import numpy as np
import pytest

from explorer import dataset
from explorer.dataset import DATA_FOLDER_VARIABLE, DatasetError
from tests.apptest import assert_clean, open_page

ROWS = 40_000


@pytest.fixture()
def folder(tmp_path, monkeypatch):
    """A data folder: a small CSV, a Parquet file of ROWS rows, JSON, a gzip CSV, files it must not list, and links
    in and out of it; the environment variable names it."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "small.csv").write_text("city;income\nLyon;1.234,5\nLille;NA\nNice;987,25\n")
    duckdb.sql(
        f"COPY (SELECT i AS id, 'g' || (i % 7) AS grp, CASE WHEN i % 11 = 0 THEN 'n/a' ELSE CAST(i % 100 AS VARCHAR) "
        f"END AS score FROM range({ROWS}) t(i)) TO '{data / 'big.parquet'}' (FORMAT parquet)"
    )
    (data / "records.json").write_text('[{"a": 1, "b": "x"}, {"a": 2, "b": "NA"}]')
    (data / "notes.md").write_text("not data")
    (data / ".hidden.csv").write_text("a\n1\n")
    (data / "sub").mkdir()
    secret = tmp_path / "secret.csv"
    secret.write_text("password\nhunter2\n")
    (data / "escape.csv").symlink_to(secret)
    (data / "alias.csv").symlink_to(data / "small.csv")
    monkeypatch.setenv(DATA_FOLDER_VARIABLE, str(data))
    return data


def test_the_folder_is_named_by_the_environment_variable_and_nothing_without_it(folder, monkeypatch):
    assert dataset.data_folder() == folder.resolve()
    monkeypatch.delenv(DATA_FOLDER_VARIABLE)
    assert dataset.data_folder() is None
    monkeypatch.setenv(DATA_FOLDER_VARIABLE, str(folder / "small.csv"))  # not a folder
    assert dataset.data_folder() is None


def test_the_listing_has_data_files_and_no_link_out_of_the_folder(folder):
    assert dataset.folder_files(folder) == ["alias.csv", "big.parquet", "records.json", "small.csv"]


@pytest.mark.parametrize(
    "name, word",
    [
        ("../secret.csv", "not a path"),
        ("sub/../small.csv", "not a path"),
        ("..", "not a path"),
        ("/etc/passwd", "not a path"),
        ("escape.csv", "outside the data folder"),
        ("missing.csv", "no such file"),
        ("sub", "no such file"),
    ],
)
def test_paths_out_of_the_folder_are_refused_in_one_sentence(folder, name, word):
    with pytest.raises(DatasetError) as refused:
        dataset.load_path(folder, name, seed=1)
    sentence = str(refused.value)
    assert word in sentence and sentence.count(". ") == 0 and sentence.endswith(".") and "\n" not in sentence


def test_a_small_file_reads_as_an_upload_of_its_bytes(folder):
    opened = dataset.load_path(folder, "small.csv", seed=1)
    uploaded = dataset.load_csv((folder / "small.csv").read_bytes(), "small.csv")
    assert opened.frame.equals(uploaded.frame) and opened.notes == uploaded.notes
    assert opened.fingerprint == uploaded.fingerprint and not opened.sampled and opened.total_rows == 3
    assert opened.frame["income"].tolist()[0] == 1234.5 and math.isnan(opened.frame["income"].tolist()[1])
    assert dataset.load_path(folder, "alias.csv", seed=1).name == "alias.csv"  # a link inside the folder opens


def test_a_large_file_is_a_seeded_sample_of_the_stated_size_with_every_cell_rule(folder):
    n = 4_000
    first = dataset.load_path(folder, "big.parquet", seed=5, sample_rows=n)
    assert first.sampled and first.n_rows == n and first.total_rows == ROWS and first.sample_seed == 5
    assert first.path == str(folder / "big.parquet")
    ids = first.frame["id"].to_numpy()
    assert np.all(np.diff(ids) > 0), "the sample keeps the file's order and draws no row twice"
    # every row equally likely: the mean id of a sample of n of ROWS without replacement is (ROWS - 1) / 2 with a
    # standard error of sqrt((ROWS² - 1) / 12 / n · (ROWS - n) / (ROWS - 1)); within 4.5 of them
    se = math.sqrt((ROWS**2 - 1) / 12 / n * (ROWS - n) / (ROWS - 1))
    assert abs(ids.mean() - (ROWS - 1) / 2) < 4.5 * se
    assert np.array_equal(dataset.load_path(folder, "big.parquet", seed=5, sample_rows=n).frame["id"], ids)
    assert not np.array_equal(dataset.load_path(folder, "big.parquet", seed=6, sample_rows=n).frame["id"], ids)
    # the cell rules of an upload: "n/a" is missing, the scores numeric
    scores = first.frame["score"]
    assert scores.dtype == np.float64 and scores.isna().to_numpy().tolist() == (ids % 11 == 0).tolist()
    whole = dataset.load_path(folder, "big.parquet", seed=5)  # fewer rows than SAMPLE_ROWS: all of them
    assert not whole.sampled and whole.n_rows == ROWS


def test_a_csv_over_the_upload_row_limit_is_read_by_duckdb_with_the_same_rules(folder):
    rows = dataset.MAX_ROWS + 5  # under 25 MiB, over an upload's rows: read by DuckDB where it lies
    lines = [f"{'NA' if i % 10 == 0 else 'k' + str(i % 3)};{i % 7},5" for i in range(rows)]
    (folder / "long.csv").write_text("g;v\n" + "\n".join(lines) + "\n")
    with pytest.raises(DatasetError, match="1,000,000"):
        dataset.load_csv((folder / "long.csv").read_bytes())
    opened = dataset.load_path(folder, "long.csv", seed=3, sample_rows=2_000)
    assert opened.sampled and opened.n_rows == 2_000 and opened.total_rows == rows
    assert set(opened.frame["v"].dropna()) <= {k + 0.5 for k in range(7)}  # decimal commas
    assert opened.frame["g"].isna().any() and set(opened.frame["g"].dropna()) <= {"k0", "k1", "k2"}


def test_a_large_file_that_is_not_utf8_is_refused_in_one_sentence(folder):
    (folder / "latin.csv").write_bytes(("ville\n" + "Bézier\n" * (dataset.MAX_ROWS + 5)).encode("latin-1"))
    with pytest.raises(DatasetError, match=r"^The file is larger than an upload and not UTF-8 text; [^.]*\.$"):
        dataset.load_path(folder, "latin.csv", seed=1)


def test_the_data_page_lists_the_folder_and_opens_a_sample(folder, monkeypatch):
    monkeypatch.setattr(dataset, "SAMPLE_ROWS", 5_000)
    at = open_page("data")
    box = at.selectbox(key="data_folder_file")
    assert box.options == ["alias.csv", "big.parquet", "records.json", "small.csv"]
    assert f"alias.csv: {(folder / 'small.csv').stat().st_size} bytes" in [
        c.value.replace("\\", "") for c in at.caption
    ]
    box.set_value("big.parquet")
    at.button(key="data_folder_open").click().run()
    assert_clean(at)
    shown = " ".join(i.value for i in at.info)
    assert f"Rows used: 5,000 of {ROWS:,} (a seeded sample" in shown and "simulated views only" in shown
    assert f"big.parquet\n5,000 of {ROWS:,} rows (a seeded sample) × 3 columns" in [t.value for t in at.sidebar.text]
    assert len(at.dataframe[0].value) == 3  # the profile: one row per column


def test_the_data_page_stops_offering_a_link_out_and_refuses_a_damaged_file_in_one_sentence(folder):
    at = open_page("data")
    at.selectbox(key="data_folder_file").set_value("big.parquet").run()
    os.remove(folder / "small.csv")
    (folder / "small.csv").symlink_to(folder.parent / "secret.csv")  # swapped after the listing: no longer offered
    (folder / "big.parquet").write_bytes(b"PAR1" + bytes(100) + b"PAR1")  # damaged
    at.run()
    assert at.selectbox(key="data_folder_file").options == ["big.parquet", "records.json"]  # both links lead out
    at.button(key="data_folder_open").click().run()
    assert not at.exception
    messages = [e.value for e in at.error]
    assert len(messages) == 1 and "could not be read" in messages[0] and "still active" in messages[0], messages
    assert "census.csv" in " ".join(t.value for t in at.sidebar.text)


def test_no_listing_without_the_variable(monkeypatch):
    monkeypatch.delenv(DATA_FOLDER_VARIABLE, raising=False)
    at = open_page("data")
    assert_clean(at)
    assert not [s for s in at.selectbox if s.key == "data_folder_file"]


@pytest.mark.parametrize("page", ["central", "local"])
def test_nothing_is_published_from_a_seeded_sample(folder, monkeypatch, page):
    # which rows a sample keeps depends on every row of the file: its numbers have no bounded sensitivity
    from explorer import publishing, state
    from tests.apptest import PAGES

    monkeypatch.setattr(dataset, "SAMPLE_ROWS", 5_000)
    at = open_page("data")
    at.selectbox(key="data_folder_file").set_value("big.parquet")
    at.button(key="data_folder_open").click().run()
    assert publishing.sampled_refusal(at.session_state[state.DATASET]) is not None
    at.switch_page(PAGES[page]).run()
    assert_clean(at)
    buttons = [b for b in at.button if (b.key or "").endswith("_publish")]
    assert buttons and all(b.disabled for b in buttons), [(b.key, b.disabled) for b in buttons]
    said = [i.value for i in at.info if i.value.startswith("Nothing is published from this data")]
    assert said and all("\n" not in s for s in said), said


def test_the_by_path_benchmark_opens_its_generated_parquet_through_the_data_page_as_a_seeded_sample(
    tmp_path, monkeypatch
):
    # benchmarks/bench_heavy.py --by-path: the heavy upload's columns written by DuckDB, opened by path (issue 22)
    from benchmarks import bench_heavy
    from explorer import state

    rows, kept = 1_000, 300
    path = bench_heavy.write_heavy_parquet(tmp_path, rows)
    table = duckdb.sql(f"SELECT * FROM read_parquet('{path}')").df()
    assert list(table.columns) == ["x", "z", "group", "n", "label"] and len(table) == rows
    for column in ("x", "z"):  # all distinct: k / 10,000 for every k < rows
        assert sorted(np.rint(table[column] * 10_000).astype(int)) == list(range(rows))
    assert table["group"].str.fullmatch(r"g\d+").all() and table["n"].between(0, 99).all()
    assert set(table["label"]) == {0, 1}
    monkeypatch.setenv(DATA_FOLDER_VARIABLE, str(tmp_path))
    monkeypatch.setattr(dataset, "SAMPLE_ROWS", kept)
    source = bench_heavy.path_source()
    assert source.by_path and source.name == path.name and source.rows == rows
    at = open_page("data")
    bench_heavy.bring_in(at, source)
    at.run()
    assert_clean(at)
    opened = at.session_state[state.DATASET]
    assert opened.sampled and opened.n_rows == kept and opened.total_rows == rows and opened.path == str(path)
    assert f"Rows used: {kept:,} of {rows:,} (a seeded sample" in " ".join(i.value for i in at.info)
    shown = " ".join(t.value for t in at.sidebar.text)
    assert path.name in shown and source.sidebar_rows() in shown
    assert source.sidebar_rows() == f"{kept:,} of {rows:,} rows (a seeded sample)"
