"""Tests for explorer.dataset: the Dataset record, the demo tables and the script that makes them."""

from __future__ import annotations

import dataclasses
import importlib.util
import pickle
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from explorer.columns import categorical_columns, numeric_columns
from explorer.dataset import DEMO_DATASETS, Dataset, load_csv, load_demo

REPO = Path(__file__).resolve().parent.parent


def _make_datasets_module():
    spec = importlib.util.spec_from_file_location("make_datasets", REPO / "data" / "make_datasets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --------------------------------------------------------------------------- Dataset and demo data


def test_dataset_is_frozen_and_counts_rows():
    d = load_csv(b"a\n1\n2\n", "x.csv")
    assert isinstance(d, Dataset) and d.n_rows == 2 and d.name == "x.csv"
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.name = "y"
    assert {d: 1}[d] == 1  # identity-hashable, usable as a dict key
    # st.cache_data pickles what it returns: a Dataset must survive the round trip.
    back = pickle.loads(pickle.dumps(load_demo("survey")))
    assert back.notes == load_demo("survey").notes
    pd.testing.assert_frame_equal(back.frame, load_demo("survey").frame)


@pytest.mark.parametrize("name", sorted(DEMO_DATASETS))
def test_demo_files_load_and_profile(name):
    d = load_demo(name)
    p = d.profile()
    assert "SYNTHETIC" in d.notes[0] and len(d.notes) == 1  # nothing else needed fixing
    # the only identifier-like column of a demo is the visits table's person identifier (its unit of privacy)
    identifiers = set(p.loc[p["kind"] == "identifier-like", "column"])
    assert identifiers == ({"patient_id"} if name == "visits" else set()) and not (p["kind"] == "empty").any()
    assert len(categorical_columns(d.frame)) >= (2 if name == "visits" else 3) and len(numeric_columns(d.frame)) >= 2


def test_census_demo_marginals():
    f = load_demo("census").frame
    assert f.shape == (32_561, 13)
    assert f["occupation"].nunique() == 14
    assert 37.5 < f["age"].mean() < 39.5 and f["age"].min() == 17 and f["age"].max() <= 90
    assert 0.64 < (f["sex"] == "Male").mean() < 0.70
    assert 0.83 < (f["race"] == "White").mean() < 0.88
    assert 0.22 < (f["income"] == ">50K").mean() < 0.26
    assert 0.06 < (f["capital-gain"] > 0).mean() < 0.10 and f["capital-gain"].max() == 99_999
    assert f["hours-per-week"].mode().iloc[0] == 40
    assert 0.66 < (f["workclass"] == "Private").mean() < 0.73
    assert set(categorical_columns(f)) >= {"workclass", "education", "occupation", "sex", "race", "income"}
    assert set(numeric_columns(f)) >= {"age", "capital-gain", "hours-per-week"}


def test_survey_demo_has_the_sensitive_question():
    f = load_demo("survey").frame
    assert len(f) == 2_000 and set(f["cheated_on_exam"]) == {"yes", "no"}
    assert 0.1 < (f["cheated_on_exam"] == "yes").mean() < 0.35
    assert f["satisfaction"].between(1, 5).all()


def test_generator_is_deterministic_and_reproduces_the_committed_files():
    mk = _make_datasets_module()
    census = mk.make_census(mk.SEED)
    pd.testing.assert_frame_equal(census, mk.make_census(mk.SEED))
    pd.testing.assert_frame_equal(mk.make_survey(mk.SEED), mk.make_survey(mk.SEED))
    assert not census.equals(mk.make_census(mk.SEED + 1))
    for frame, file_name in ((census, "census.csv"), (mk.make_survey(), "survey.csv")):
        written = frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
        assert written == (REPO / "data" / file_name).read_bytes(), f"run python data/make_datasets.py ({file_name})"


def test_the_dataset_layer_does_not_import_streamlit():
    code = "import sys, explorer.dataset, explorer.columns, explorer.export; assert 'streamlit' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO)


def test_a_plain_csv_upload_does_not_load_duckdb_but_a_parquet_one_does(tmp_path):
    # DuckDB (0.5 s to import) loads only for a file that needs it: quoted CSV, Parquet, JSON
    code = (
        "import sys, pathlib\nfrom explorer.dataset import load_csv, load_demo\n"
        "load_demo('census'); load_csv(b'a,b\\n1,x\\n', 'p.csv'); print('duckdb' in sys.modules)\n"
        "load_csv(b'[{\"a\": 1}]', 'j.json'); print('duckdb' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, capture_output=True, text=True)
    assert out.stdout.split() == ["False", "True"]
