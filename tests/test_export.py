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


# --------------------------------------------------------------------------- the one rounding rule


def _release(query, value, noise_std, epsilon=2.9999999945214664, delta=0.0):
    from dpcore.neighbours import ADD_REMOVE
    from dpcore.randomness import Randomness
    from dpcore.release import Release

    labels = tuple(f"v{i}" for i in range(len(value))) if isinstance(value, tuple) else ("value",)
    return Release(
        query, value, labels, "Laplace", noise_std, epsilon, delta, ADD_REMOVE, "record", Randomness.PUBLICATION
    )


def test_a_published_count_is_in_whole_units_and_a_sum_to_what_its_noise_allows():
    count = export.published_table(_release("count", 10502.1103515625, 2.0))
    assert count["released value"].tolist() == [10502.0]
    cells = export.published_table(_release("two-way table", (3.4, -0.6, 0.49), 1.41))
    assert cells["released value"].tolist() == [3.0, -1.0, 0.0]
    total = export.published_table(_release("sum", 1234567.891, 141.0))  # std 141: to tens
    assert total["released value"].tolist() == [1234570.0]
    mean = export.published_table(_release("mean", 38.58164, 0.0532))  # std 0.05: to thousandths
    assert mean["released value"].tolist() == [38.582]
    chosen = export.published_table(_release("most common", "Sales", float("nan")))
    assert chosen["released value"].tolist() == ["Sales"]
    csv = to_safe_csv(count).decode("utf-8-sig")
    assert "10502.0" in csv and "1103515625" not in csv


def test_a_published_label_writes_epsilon_to_four_digits_and_keeps_the_exact_value():
    label = export.published_label(_release("count", 3.2, 2.0, delta=1.234567e-7))
    assert label["epsilon"] == 3.0 and label["epsilon_exact"] == 2.9999999945214664
    assert label["delta"] == 1.235e-7 and label["delta_exact"] == 1.234567e-7


def test_a_simulated_release_file_writes_its_epsilon_to_four_digits():
    from dpcore import dp_count
    from dpcore.simulation import simulated

    result = dp_count([1.0, 2.0], 1 / 3, 0)
    frame = export.simulated(pd.DataFrame({"noisy": [1.0]}), simulated(result, query="count"))
    assert frame["epsilon"].tolist() == [0.3334]  # 1/3 rounded up: never a stronger guarantee than held
