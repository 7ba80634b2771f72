"""dpx_publish on a file by path, whatever its size: the plan's aggregates computed by DuckDB over every row.

Run as a user runs the command line (``main([...])``), on files generated here: a CSV over the upload limit, Parquet,
JSON, gzip and ';'-separated CSV. What is published is checked through the aggregates handed to
``publish_from_aggregates`` (captured, the published numbers are the noise's business), against the engine on the
app's own table of the same rows with the same bounding seed (monkeypatched: a publication's seed is secret and
fresh, :func:`explorer.engine.aggregates.secret_seed`).
"""

from __future__ import annotations

import gzip
import io
import json
import zipfile

import duckdb
import numpy as np
import pandas as pd
import pytest

from dpcore.plan import allocate, plan_from_dict
from dpx_publish import source
from dpx_publish.cli import EXIT_REFUSED, main
from explorer import dataset
from explorer.csv_reader import MAX_UPLOAD_BYTES
from explorer.dataset import load_csv
from explorer.engine import aggregates as engine_aggregates
from explorer.engine import duckdb_engine
from explorer.publication_log import PublicationLog

EDU = ["HS-grad", "Some-college", "Bachelors", "Masters", "Doctorate"]
SEED = "a seed fixed by the test, never by a publication"


def _person_plan(**changes) -> dict:
    plan = {
        "version": 1,
        "title": "whole file",
        "unit": {"identifier": "pid", "max_rows": 2, "max_groups": 1, "max_rows_per_group": 2},
        "total": {"epsilon": 1.0, "delta": 0},
        "policy": "equal",
        "confidence": 0.95,
        "statistics": [
            {"name": "rows", "kind": "count"},
            {"name": "per education", "kind": "counts", "column": "education", "domain": EDU, "other": True},
            {"name": "mean age", "kind": "mean", "column": "age", "lower": 17, "upper": 90, "planned_n": 100_000},
            {"name": "age bins", "kind": "histogram", "column": "age", "lower": 17, "upper": 90, "bins": 4},
            {
                "name": "income by education",
                "kind": "sum",
                "column": "income",
                "lower": 0,
                "upper": 5000,
                "by": "education",
                "keys": EDU[:3],
            },
        ],
    }
    plan.update(changes)
    return plan


class Captured:
    """The aggregates each publication was drawn on (``publish_from_aggregates`` wrapped, nothing else changed)."""

    def __init__(self, monkeypatch):
        self.found = []
        real = source.publish_from_aggregates

        def spy(allocation, aggregates):
            self.found.append([a.copy() for a in aggregates])
            return real(allocation, aggregates)

        monkeypatch.setattr(source, "publish_from_aggregates", spy)


def _publish(tmp_path, plan: dict, data, out="release.zip") -> int:
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(plan))
    return main(["publish", str(plan_file), str(data), "--out", str(tmp_path / out), "--log", str(tmp_path / "log.db")])


def _log(tmp_path) -> PublicationLog:
    return PublicationLog(tmp_path / "log.db")


def _entries(tmp_path, data) -> int:
    if not (tmp_path / "log.db").exists():
        return 0
    return len(_log(tmp_path).entries(dataset.file_fingerprint(data)))


def _unzip(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name) for name in z.namelist()}


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    """A CSV over the upload limit (about 26 MiB, 1.3 million rows): person i // 4 has four rows, one per education
    of four different ones, ages and incomes on a grid of quarters (sums exact in any order)."""
    path = tmp_path_factory.mktemp("big") / "big.csv"
    rows = 1_300_000
    duckdb.sql(
        "COPY (SELECT i // 4 AS pid, ['HS-grad', 'Some-college', 'Bachelors', 'Masters', 'Doctorate'][1 + i % 5] "
        "AS education, 17 + (i * 7) % 70 AS age, ((i * 13) % 20000) / 4 AS income "
        f"FROM range({rows}) t(i)) TO '{path}' (HEADER, DELIMITER ',')"
    )
    assert path.stat().st_size > MAX_UPLOAD_BYTES
    return path, rows


def test_a_csv_over_the_upload_limit_is_published_from_every_row_with_each_person_bounded(
    tmp_path, monkeypatch, big_csv
):
    path, rows = big_csv
    persons = rows // 4
    captured = Captured(monkeypatch)
    assert _publish(tmp_path, _person_plan(), path) == 0
    assert _log(tmp_path).spent(dataset.file_fingerprint(path)) == pytest.approx((1.0, 0.0))
    assert _entries(tmp_path, path) == 1
    (found,) = captured.found
    count, per_edu, mean, bins, income = found
    # m = 2 rows kept of each person's 4; one (person, education) pair kept of each person's 4 (L0 = 1), one row each
    assert count["rows"].tolist() == [2 * persons]
    assert per_edu["rows"].sum() == persons and per_edu["rows"].iloc[-1] == 0  # "(other)": no row outside
    assert mean["rows"].tolist() == [2 * persons]
    assert persons <= bins["rows"].sum() <= 2 * persons  # one bin kept per person, 1 or 2 of its ages in it
    assert income["rows"].sum() <= persons and (income["total"] <= 5000 * income["rows"]).all()
    files = _unzip(tmp_path / "release.zip")
    assert list(files) == ["release.csv", "report.html", "report.json", "plan.json", "rerun_plan.py"]
    report = json.loads(files["report.json"])
    unit = report["unit_of_privacy"]
    assert (unit["identifier"], unit["max_rows"], unit["max_groups"], unit["max_rows_per_group"]) == ("pid", 2, 1, 2)
    assert report["neighbouring_relation"] == "add/remove one person" and report["dataset"]["name"] == "big.csv"
    assert report["total"] == {"epsilon": 1.0, "delta": 0.0, "planned_epsilon": 1.0, "planned_delta": 0.0}
    for s in report["statistics"]:
        assert s["epsilon"] == pytest.approx(0.2) and s["expected_error"] > 0 and s["noise"]
        assert "aggregates computed by a data engine" in s["mechanism"]
        facts = {f["name"]: f["value"] for f in s["public_facts"]}
        assert facts["person identifier"] == "pid" and "contribution bounds" in facts
    table = pd.read_csv(io.BytesIO(files["release.csv"]), encoding="utf-8-sig")
    released = table.loc[table["statistic"] == "rows", "released value"].iloc[0]
    err = report["statistics"][0]["expected_error"]  # at 95 %: Laplace beyond 10 times it has probability e^-30
    assert abs(released - 2 * persons) < 10 * err


@pytest.fixture()
def cells():
    """A table of awkward cells: whitespace around values, missing-value spellings, a person with many rows."""
    rng = np.random.default_rng(7)
    n = 3_000
    edu = np.array([*EDU, " Masters ", "\u00a0Bachelors\t", "NA", "other"])[rng.integers(0, 9, n)]
    age = np.where(rng.random(n) < 0.05, "n/a", (17 + rng.integers(0, 80, n)).astype(str))
    income = [f"{v:.2f}" for v in rng.integers(0, 24_000, n) / 4]
    pid = np.where(rng.random(n) < 0.2, 0, rng.integers(1, 900, n))  # person 0 has hundreds of rows
    return pd.DataFrame({"pid": pid, "education": edu, "age": age, "income": income})


def _write(frame: pd.DataFrame, folder, form: str):
    if form == "csv":
        path = folder / "t.csv"
        frame.to_csv(path, index=False)
    elif form == "semicolon csv, decimal commas":
        path = folder / "t.csv"
        frame.assign(income=frame["income"].str.replace(".", ",")).to_csv(path, index=False, sep=";")
    elif form == "gzip csv":
        path = folder / "t.csv.gz"
        path.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    elif form == "parquet, text columns":
        path = folder / "t.parquet"
        frame.astype(str).to_parquet(path)
    elif form == "parquet, typed columns":
        path = folder / "t.parquet"
        typed = frame.assign(age=pd.to_numeric(frame["age"], errors="coerce"), income=frame["income"].astype(float))
        typed.to_parquet(path)
    elif form == "json columns":  # one object of equally long columns
        path = folder / "t.json"
        path.write_text(json.dumps({c: frame[c].astype(str).tolist() for c in frame.columns}))
    else:  # JSON records, age of two JSON types (numbers and "n/a")
        path = folder / "t.json"
        records = [
            {**r, "pid": int(r["pid"]), "age": r["age"] if r["age"] == "n/a" else int(r["age"])}
            for r in frame.to_dict("records")
        ]
        path.write_text(json.dumps(records))
    return path


@pytest.mark.parametrize(
    "form",
    [
        "csv",
        "semicolon csv, decimal commas",
        "gzip csv",
        "parquet, text columns",
        "parquet, typed columns",
        "json records",
        "json columns",
    ],
)
def test_the_aggregates_over_the_file_equal_the_engines_on_the_apps_table_on_one_seed(
    tmp_path, monkeypatch, cells, form
):
    path = _write(cells, tmp_path, form)
    monkeypatch.setattr(source, "MAX_UPLOAD_BYTES", 0)  # every file read where it lies, as a large one is
    monkeypatch.setattr(engine_aggregates, "secret_seed", lambda: SEED)
    captured = Captured(monkeypatch)
    plan = _person_plan(unit={"identifier": "pid", "max_rows": 3, "max_groups": 2, "max_rows_per_group": 2})
    assert _publish(tmp_path, plan, path) == 0
    table = load_csv(cells.to_csv(index=False).encode()).frame  # the app's table of the same rows
    expected = duckdb_engine.aggregate_plan(engine_aggregates.plan_aggregates(plan_from_dict(plan), SEED), table)
    (found,) = captured.found
    for got, want in zip(found, expected):
        pd.testing.assert_frame_equal(got, want)
    assert found[0]["rows"].iloc[0] < len(cells)  # person 0's hundreds of rows were bounded to 3
    assert _log(tmp_path).spent(dataset.file_fingerprint(path))[0] == pytest.approx(1.0)


def test_the_fingerprint_is_the_apps_so_both_charge_one_budget(tmp_path, cells):
    path = _write(cells, tmp_path, "parquet, typed columns")
    assert _publish(tmp_path, _person_plan(), path) == 0
    opened = dataset.load_path(tmp_path, path.name, seed=1)
    assert _log(tmp_path).spent(opened.fingerprint)[0] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda p: p["statistics"][2].update(column="salary"), "column 'salary', which the data does not have"),
        (lambda p: p["statistics"][2].update(column="education"), "needs numbers in the column 'education'"),
        (lambda p: _quantile(p), "is a quantile, which needs every row"),
        (lambda p: p["unit"].update(identifier="nobody"), "column 'nobody', which the data does not have"),
        (lambda p: p["unit"].update(identifier="age"), "without one in 'age'"),  # "n/a": rows without a person
    ],
)
def test_a_refused_plan_costs_nothing_and_writes_nothing(tmp_path, capsys, cells, change, words):
    path = _write(cells, tmp_path, "parquet, text columns")
    plan = _person_plan()
    change(plan)
    assert _publish(tmp_path, plan, path) == EXIT_REFUSED
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "release.zip").exists()
    assert _entries(tmp_path, path) == 0


def _quantile(plan: dict) -> dict:
    """The plan with its mean made a median, under one row per person (a quantile's only unit)."""
    plan["unit"] = {"identifier": None}
    plan["statistics"][2].update(kind="quantile", q=0.5)
    return plan


def test_a_quantile_is_still_published_from_a_file_an_upload_could_be(tmp_path, cells):
    path = _write(cells, tmp_path, "csv")
    plan = _quantile(_person_plan())
    assert _publish(tmp_path, plan, path) == 0
    assert _entries(tmp_path, path) == 1


def test_a_damaged_or_missing_file_is_one_sentence(tmp_path, capsys):
    damaged = tmp_path / "bad.parquet"
    damaged.write_bytes(b"PAR1" + bytes(100) + b"PAR1")
    for path, words in [(damaged, "could not be read as a table"), (tmp_path / "none.csv", "cannot be read")]:
        assert _publish(tmp_path, _person_plan(), path) == EXIT_REFUSED
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err


def test_the_file_source_checks_the_plan_before_reading_a_row(tmp_path, cells, monkeypatch):
    path = _write(cells, tmp_path, "parquet, typed columns")
    opened = source.open_file(path)
    assert opened.columns == ("pid", "education", "age", "income") and not opened.in_memory
    read = []
    monkeypatch.setattr(source.FileSource, "_open", lambda self, con: read.append(1))
    plan = _person_plan()
    plan["statistics"][1].update(column="salary")
    with pytest.raises(ValueError, match="salary"):
        opened.prepare(allocate(plan_from_dict(plan)))
    assert not read


def _new_kinds_plan() -> dict:
    """A plan of the explorer's count where, two-way table, counts per period and most common value."""
    return _person_plan(
        statistics=[
            {
                "name": "older masters",
                "kind": "count_where",
                "where": [["age", ">=", 40], ["education", "is", "Masters"]],
            },
            {
                "name": "education by half",
                "kind": "two_way",
                "column": "education",
                "domain": EDU[:3],
                "by": "half",
                "keys": ["first", "second"],
                "other": True,
            },  # fmt: skip
            {
                "name": "per month",
                "kind": "periods",
                "column": "day",
                "period": "month",
                "first_year": 2021,
                "last_year": 2022,
            },  # fmt: skip
            {"name": "top education", "kind": "most_common", "column": "education", "domain": EDU},
        ],
        unit={"identifier": "pid", "max_rows": 3, "max_groups": 2, "max_rows_per_group": 2},
    )


@pytest.mark.parametrize("form", ["csv", "csv read where it lies", "parquet, text columns"])
def test_a_plan_of_the_new_kinds_is_published_from_the_file_as_the_engine_computes_it_on_the_apps_table(
    tmp_path, monkeypatch, cells, form
):
    rng = np.random.default_rng(11)
    days = pd.Timestamp("2020-11-01") + pd.to_timedelta(rng.integers(0, 800, len(cells)), unit="D")
    day = pd.Series(days).dt.strftime("%Y-%m-%d").to_numpy(dtype=object)
    day[rng.random(len(cells)) < 0.05] = "n/a"
    frame = cells.assign(day=day, half=np.where(rng.random(len(cells)) < 0.5, "first", " second "))
    path = _write(frame, tmp_path, form.replace(" read where it lies", ""))
    if form != "csv":
        monkeypatch.setattr(source, "MAX_UPLOAD_BYTES", 0)  # read where it lies, as a large file is
    monkeypatch.setattr(engine_aggregates, "secret_seed", lambda: SEED)
    captured = Captured(monkeypatch)
    plan = _new_kinds_plan()
    assert _publish(tmp_path, plan, path) == 0
    table = load_csv(frame.to_csv(index=False).encode()).frame  # the app's table of the same rows
    expected = duckdb_engine.aggregate_plan(engine_aggregates.plan_aggregates(plan_from_dict(plan), SEED), table)
    (found,) = captured.found
    for got, want in zip(found, expected):
        pd.testing.assert_frame_equal(got, want)
    assert all(f["rows"].sum() > 0 for f in found)
    files = _unzip(tmp_path / "release.zip")
    released = pd.read_csv(io.BytesIO(files["release.csv"]), encoding="utf-8-sig")
    assert released["label"].iloc[0] == "age ≥ 40 and education is Masters"
    assert released["statistic"].tolist().count("per month") == 24
    assert released["released value"].iloc[-1] in EDU  # the most common value: a declared category
    report = json.loads(files["report.json"])
    assert [s["name"] for s in report["statistics"]] == [s["name"] for s in plan["statistics"]]
    assert _entries(tmp_path, path) == 1


@pytest.mark.parametrize(
    "change, words",
    [
        (
            lambda p: p["statistics"][0]["where"][0].__setitem__(0, "education"),
            "needs numbers in the column 'education'",
        ),
        (lambda p: p["statistics"][1].update(by="town"), "column 'town', which the data does not have"),
        (lambda p: p["statistics"][3].pop("domain"), "declared domain"),
        (lambda p: p["statistics"][2].pop("first_year"), "declared years"),
    ],
)
def test_a_refused_plan_of_the_new_kinds_costs_nothing(tmp_path, capsys, cells, change, words):
    frame = cells.assign(day="2021-05-01", half="first")
    path = _write(frame, tmp_path, "parquet, text columns")
    plan = _new_kinds_plan()
    change(plan)
    assert _publish(tmp_path, plan, path) == EXIT_REFUSED
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "release.zip").exists() and _entries(tmp_path, path) == 0
