from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dpcore.learning import majority_baseline, noisy_gradient_descent
from explorer.features import OTHER, prepare_features

CENSUS = Path(__file__).resolve().parents[1] / "data" / "census.csv"


@pytest.fixture(scope="module")
def census():
    return pd.read_csv(CENSUS, skipinitialspace=True, na_values=["?"])


def _small(rng, n=200):
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, size=n).astype(float),
            "city": rng.choice(["a", "b", "c"], size=n),
            "flag": rng.random(n) < 0.5,
            "label": rng.choice(["yes", "no"], size=n, p=[0.3, 0.7]),
        }
    )


def test_census_demo_is_standardized_and_one_hot(census):
    f = prepare_features(census, "income", rng=0)
    n_train, n_test = len(f.y_train), len(f.y_test)
    assert n_train + n_test == len(census) and n_test == round(0.2 * len(census))
    assert f.X_train.shape == (n_train, len(f.feature_names)) and f.X_test.shape[1] == len(f.feature_names)
    assert f.positive == "income = '>50K'"  # the rarer value
    assert f.y_train.mean() == pytest.approx((census["income"] == ">50K").mean(), abs=0.02)
    numeric = [i for i, name in enumerate(f.feature_names) if "=" not in name]
    assert [f.feature_names[i] for i in numeric] == [
        "age",
        "education-num",
        "capital-gain",
        "capital-loss",
        "hours-per-week",
    ]
    # standardized with the training rows' statistics: mean 0, standard deviation 1 there (float32: 7 digits)
    assert f.X_train.dtype == f.X_test.dtype == np.float32
    np.testing.assert_allclose(f.X_train[:, numeric].astype(np.float64).mean(axis=0), 0, atol=1e-6)
    np.testing.assert_allclose(f.X_train[:, numeric].astype(np.float64).std(axis=0), 1, rtol=1e-6)
    # one-hot: each categorical column contributes exactly one 1 per row (every category or (missing) has a column)
    for col in ["workclass", "education", "sex", "native-country"]:
        block = [i for i, name in enumerate(f.feature_names) if name.startswith(col + "=")]
        assert np.array_equal(f.X_train[:, block].sum(axis=1), np.ones(n_train))
        assert set(np.unique(f.X_train[:, block])) == {0.0, 1.0}
    assert "without privacy" in f.description and "26,049 training and 6,512 test rows" in f.description


def test_census_features_train_a_private_model_above_the_baseline(census):
    f = prepare_features(census, "income", rng=0)
    r = noisy_gradient_descent(
        f.X_train, f.y_train, epsilon=1.0, delta=1e-5, iterations=30, clip=2.0, rng=0, learning_rate=2.0,
        draws=3, history_every=0,
    )  # fmt: skip
    assert r.accuracy(f.X_test, f.y_test).min() > majority_baseline(f.y_train, f.y_test).accuracy + 0.04


def test_split_is_seeded_and_disjoint(rng):
    df = _small(rng).assign(row=np.arange(200.0))
    a = prepare_features(df, "label", rng=5, features=["row", "city"])
    b = prepare_features(df, "label", rng=5, features=["row", "city"])
    assert np.array_equal(a.X_test, b.X_test)
    c = prepare_features(df, "label", rng=6, features=["row", "city"])
    assert not np.array_equal(a.X_test, c.X_test)
    # the row id, standardized by one increasing affine map, tells the rows apart: every row is in one split
    ids_train, ids_test = a.X_train[:, 0], a.X_test[:, 0]
    assert len(np.unique(np.r_[ids_train, ids_test])) == 200 and not set(ids_train) & set(ids_test)


def test_a_large_table_is_cut_to_a_seeded_random_subset_before_the_split(rng):
    df = _small(rng).assign(row=np.arange(200.0))
    whole = prepare_features(df, "label", rng=5, features=["row", "city"])
    same = prepare_features(df, "label", rng=5, features=["row", "city"], max_rows=200)
    assert np.array_equal(whole.X_train, same.X_train) and whole.notes == same.notes  # no cut: the split as before
    cut = prepare_features(df, "label", rng=5, features=["row", "city"], max_rows=60)
    assert len(cut.y_train) + len(cut.y_test) == 60 and len(cut.y_test) == 12
    assert any("200 rows have a target; a seeded random 60 of them are used" in n for n in cut.notes), cut.notes
    again = prepare_features(df, "label", rng=5, features=["row", "city"], max_rows=60)
    assert np.array_equal(cut.X_train, again.X_train)  # seeded
    # the kept rows are spread over the table, not its first 60: a column that is 'early' in the first half and
    # 'late' in the second keeps both categories (the first 60 rows alone would make it single-valued, skipped)
    half = df.assign(when=np.where(np.arange(200) < 100, "early", "late"))
    spread = prepare_features(half, "label", rng=5, features=["row", "when"], max_rows=60)
    assert {"when=early", "when=late"} <= set(spread.feature_names), spread.feature_names
    with pytest.raises(ValueError, match=r"max_rows must be"):
        prepare_features(df, "label", max_rows=2)


def test_threshold_and_median_targets(rng):
    df = _small(rng)
    f = prepare_features(df, "age", threshold=40)
    assert f.positive == "age > 40"
    assert "age" not in f.feature_names
    g = prepare_features(df, "age")
    median = float(np.median(df["age"]))
    assert g.positive == f"age > {median:g}" and any("median" in note for note in g.notes)


def test_positive_class_can_be_named(rng):
    df = _small(rng)
    assert prepare_features(df, "label").positive == "label = 'yes'"
    f = prepare_features(df, "label", positive="no")
    assert f.positive == "label = 'no'"
    assert f.y_train.mean() > 0.5


def test_missing_values_are_imputed_and_said(rng):
    df = _small(rng)
    df.loc[:9, "age"] = np.nan
    df.loc[10:14, "city"] = None
    df.loc[15:16, "label"] = None
    f = prepare_features(df, "label", rng=1)
    assert len(f.y_train) + len(f.y_test) == 198
    assert "city=(missing)" in f.feature_names
    text = " ".join(f.notes)
    assert "2 row(s) without a value of 'label' were dropped" in text
    assert "10 missing value(s) of 'age' were set to its training mean" in text
    assert "5 missing value(s) of 'city' have their own column (missing)" in text
    assert np.isfinite(f.X_train).all() and np.isfinite(f.X_test).all()


def test_rare_categories_share_one_column(rng):
    df = pd.DataFrame({"code": [f"c{i % 30}" for i in range(300)], "y": ["a", "b"] * 150})
    f = prepare_features(df, "y", max_categories=5)
    names = [n for n in f.feature_names if n.startswith("code=")]
    assert len(names) == 5 and names[-1] == f"code={OTHER}"
    assert np.array_equal(f.X_train.sum(axis=1), np.ones(len(f.y_train)))
    assert any("share the column (other)" in note for note in f.notes)


def test_useless_columns_are_skipped_and_said(rng):
    df = _small(rng).assign(const=1.0, ident=[f"id{i}" for i in range(200)], one="x")
    f = prepare_features(df, "label")
    assert not any(n.startswith(("const", "ident", "one")) for n in f.feature_names)
    assert any("Skipped 3 column(s)" in note and "identifier-like" in note for note in f.notes)


@pytest.mark.parametrize(
    "frame, kwargs, error, message",
    [
        (pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": ["a", "a", "a"]}), {"target": "y"}, ValueError,
         "target column 'y' must have two classes, got only 'a'"),
        (pd.DataFrame({"x": ["p", "p", "p", "p"], "y": ["a", "b"] * 2}), {"target": "y"}, ValueError,
         "features must include at least one usable column"),
        (pd.DataFrame({"x": [1.0, 2.0], "y": ["a", "b"]}), {"target": "y"}, ValueError,
         "the data must have enough rows with a target to split into training and test rows at test_fraction=0.2, got 2"),
        (pd.DataFrame({"x": [1.0, 2.0], "y": ["a", "b"]}), {"target": "z"}, ValueError,
         "target must be a column of the table, got 'z'"),
        (pd.DataFrame({"x": [1.0, 2.0], "y": ["a", "b"]}), {"target": "y", "threshold": 1}, ValueError,
         "threshold applies to a numeric target, got the text column 'y'"),
        (pd.DataFrame({"x": [1.0, 2.0], "y": ["a", "b"]}), {"target": "y", "positive": "c"}, ValueError,
         "positive must be 'a' or 'b' for target column 'y', got 'c'"),
        (pd.DataFrame({"x": [1.0, 2.0], "y": list("ab")}), {"target": "y", "test_fraction": 1.0}, ValueError,
         r"test_fraction must be in \(0, 1\), got 1.0"),
        (pd.DataFrame({"x": [1.0] * 3, "y": list("abc")}), {"target": "y"}, ValueError,
         r"target column 'y' must have exactly two values \(or be numeric with a threshold\), got 3"),
        ([[1, 2]], {"target": "y"}, TypeError, "frame must be a pandas DataFrame, got list"),
    ],
)  # fmt: skip
def test_bad_input_gets_one_sentence(frame, kwargs, error, message):
    with pytest.raises(error, match=message):
        prepare_features(frame, **kwargs)


def test_a_training_split_with_one_class_is_refused():
    df = pd.DataFrame({"x": np.arange(10.0), "y": ["a"] * 9 + ["b"]})
    with pytest.raises(ValueError, match="the training rows must contain both classes of the target, got only"):
        # find a seed whose split puts the single 'b' in the test rows
        for seed in range(50):
            prepare_features(df, "y", rng=seed, test_fraction=0.3)


def test_docstring_example_runs():
    import doctest

    import explorer.features

    assert doctest.testmod(explorer.features).failed == 0


# --- the arrays' budget (issue 23: a 20 MB upload with 1,000 one-hot columns allocated 8 GB) ---------------------


def _peak_mb(fn):
    """tracemalloc's peak of ``fn()`` (Python and numpy allocations), in MB, and what it returned."""
    import tracemalloc

    tracemalloc.start()
    try:
        value = fn()
        return tracemalloc.get_traced_memory()[1] / 1e6, value
    finally:
        tracemalloc.stop()


def test_an_upload_with_a_thousand_category_column_stays_within_the_budget_and_says_what_it_merged():
    from explorer.dataset import load_csv
    from explorer.features import MAX_CELLS

    rng = np.random.default_rng(23)
    n = 200_000
    weights = 1 / np.arange(1, 1_001)
    city = rng.choice(1_000, n, p=weights / weights.sum())
    lines = "\n".join(
        f"city{c},{x:.2f},{y}" for c, x, y in zip(city.tolist(), rng.normal(size=n).tolist(), (rng.random(n) < 0.3))
    )
    ds = load_csv(("city,x,y\n" + lines + "\n").encode(), "cities.csv")
    peak, f = _peak_mb(lambda: prepare_features(ds.frame, "y", rng=0))
    assert peak < 1_000, peak
    assert f.cells <= MAX_CELLS and f.X_train.dtype == np.float32
    assert f.X_train.nbytes + f.X_test.nbytes == f.cells * 4
    assert len([c for c in f.feature_names if c.startswith("city=")]) == 50  # MAX_CATEGORIES, (other) among them
    assert f.category_cap == 50 and f.categories_merged == 1_000 - 49 and f.rows_used == f.rows_with_target == n
    assert "951 rarer categories of 'city' share the column (other)." in f.notes
    assert f.size_note == ""  # within every budget: nothing cut for size


def test_many_text_columns_are_held_to_the_feature_and_cell_budget_and_the_page_is_told():
    # the shape that allocated 8 GB: a thousand text columns of 60 values each (5,000 rows; an upload's str dtype)
    rng = np.random.default_rng(8)
    words = np.array([f"v{i}" for i in range(60)])
    frame = pd.DataFrame(
        {f"c{j}": pd.array(words[rng.integers(0, 60, 5_000)], dtype="str") for j in range(999)}
        | {"y": rng.integers(0, 2, 5_000)}
    )
    peak, f = _peak_mb(lambda: prepare_features(frame, "y", rng=0))
    assert peak < 1_000, peak  # was 4.4 GB, and 8 GB with the training run after it
    assert len(f.feature_names) == 1_000 and f.category_cap == 2  # 500 columns × (its top value, (other))
    assert f.columns_left_out == tuple(f"c{j}" for j in range(500, 999))
    assert f.categories_merged == 500 * 59 and f.rows_used == 5_000
    assert f.size_note.startswith("The model is trained on at most 2 one-hot columns per text column instead of 50")
    assert "499 column(s) left out ('c500', 'c501', 'c502' and 496 more)" in f.size_note
    assert "5,000 rows × 1,000 columns, 20 MB" in f.size_note and f.size_note in f.notes
    assert np.array_equal(f.X_train.sum(axis=1), np.full(len(f.y_train), 500.0))  # one 1 per column per row


def test_a_table_past_the_cell_budget_is_cut_to_a_seeded_random_subset_of_rows(rng):
    df = _small(rng, n=2_000).assign(code=[f"k{i % 40}" for i in range(2_000)])
    f = prepare_features(df, "label", rng=3, max_cells=20_000)
    d = len(f.feature_names)
    assert f.cells <= 20_000 and f.rows_used == 20_000 // d and f.rows_with_target == 2_000
    assert f"a seeded random {20_000 // d:,} of its 2,000 rows" in f.size_note
    again = prepare_features(df, "label", rng=3, max_cells=20_000)
    assert np.array_equal(f.X_train, again.X_train)  # seeded
    # fewer features: every text column gets the same lower cap, the rarer categories going to (other)
    g = prepare_features(df, "label", rng=3, max_features=12)
    assert len(g.feature_names) <= 12 and g.category_cap < 50 and not g.columns_left_out
    assert g.feature_names[-1] == f"code={OTHER}" and g.categories_merged > 0
    for bad in ({"max_cells": 0}, {"max_features": 0}):
        with pytest.raises(ValueError, match=f"{next(iter(bad))} must be"):
            prepare_features(df, "label", **bad)
