"""Tests for explorer.export: CSV downloads a spreadsheet opens safely."""

from __future__ import annotations

import codecs
import io

import pandas as pd

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
