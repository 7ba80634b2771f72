"""Tests for explorer.export: CSV downloads a spreadsheet opens safely."""

from __future__ import annotations

import codecs
import io

import pandas as pd

from explorer import export
from explorer.dataset import load_csv
from explorer.export import to_safe_csv

# --------------------------------------------------------------------------- safe download


def test_to_safe_csv_neutralises_formulas_but_not_numbers():
    frame = pd.DataFrame(
        {
            "text": ["=cmd|' /C calc'!A0", "+1", "-2+3", "@SUM(A1)", "\t=1", "plain", "a=b", None],
            "number": [-3.5, 1.0, -2.0, 0.0, 5.0, 6.0, 7.0, 8.0],
            "=HYPERLINK(1)": range(8),
        }
    )
    out = to_safe_csv(frame)
    assert out.startswith(codecs.BOM_UTF8)
    back = pd.read_csv(io.BytesIO(out), encoding="utf-8-sig", keep_default_na=False)
    assert back["text"].tolist()[:7] == ["'=cmd|' /C calc'!A0", "'+1", "'-2+3", "'@SUM(A1)", "'\t=1", "plain", "a=b"]
    assert back["number"].tolist() == frame["number"].tolist()
    assert list(back.columns)[2] == "'=HYPERLINK(1)"
    assert frame["text"].iloc[0] == "=cmd|' /C calc'!A0"  # the input frame is untouched
    # Loads back through our own reader: numbers stay numbers.
    d = load_csv(out, "download.csv")
    assert d.frame["number"].tolist() == frame["number"].tolist()


def test_a_simulated_release_file_carries_its_label_on_every_row():
    from dpcore import dp_count
    from dpcore.simulation import simulated

    frame = pd.DataFrame({"value": ["a", "b"], "noisy count": [1.5, 2.5]})
    out = export.simulated(frame, simulated(dp_count([1.0, 2.0], 0.5, 0), query="count"))
    assert list(out.columns[-6:]) == [
        "randomness",
        "mechanism",
        "epsilon",
        "delta",
        "neighbouring_relation",
        "unit_of_privacy",
    ]
    assert set(out["neighbouring_relation"]) == {"add/remove one record"} and set(out["epsilon"]) == {0.5}
    assert set(out["randomness"]) == {export.SIMULATED_NOTE}
