"""data/make_datasets.py's visits table: reproducible byte for byte, and many rows per person (heavy-tailed).

(The census and survey tables are checked in tests/test_dataset.py, with the loader that reads them.)
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parent.parent


def _module():
    spec = importlib.util.spec_from_file_location("make_datasets", REPO / "data" / "make_datasets.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_visits_table_reproduces_the_committed_file():
    mk = _module()
    visits = mk.make_visits(mk.SEED)
    written = visits.to_csv(index=False, lineterminator="\n").encode("utf-8")
    assert written == (REPO / "data" / "visits.csv").read_bytes(), "run python data/make_datasets.py (visits.csv)"
    assert not visits.equals(mk.make_visits(mk.SEED + 1))


def test_the_visits_table_has_many_rows_per_person_with_a_heavy_tail():
    visits = _module().make_visits()
    rows = visits["patient_id"].value_counts()
    assert rows.size == 3_000 and visits["patient_id"].notna().all()
    assert np.median(rows) <= 3  # most people a few rows
    assert rows.max() >= 200 and (rows >= 100).sum() >= 10  # some hundreds
    dates = pd.to_datetime(visits["visit_date"], format="%Y-%m-%d")
    assert dates.dt.year.eq(2024).all()
