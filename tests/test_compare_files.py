"""Compare's files and bounds: every simulated file row states the relation its noise was calibrated for (replayed
from the row's own label), the counts relation given in one place, the mean curves cached by bytes, and every
default view drawn, without a refusal, on the heaviest legal upload."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from dpcore import families
from dpcore.contributions import ContributionBounds, bound_contributions, person_codes
from dpcore.histogram_quantile import quantile_from_counts
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE, NeighbouringRelation
from dpcore.quantiles import ExponentialQuantile, quantile_score_sensitivity
from dpcore.queries import RELATION as QUERY_RELATION
from dpcore.queries import dp_histogram, dp_mean
from explorer import compare_layout, compare_means, compare_quantiles, releases, unit
from explorer.columns import encode_categories, numeric_values, suggest_bounds
from explorer.dataset import load_demo
from explorer.state import DEFAULT_SEED
from tests.apptest import PAGES, assert_clean, open_page
from tests.test_page_compare import VISITS, visits_compare

DELTA = 1e-5  # the page's default δ


@pytest.fixture
def downloads(monkeypatch):
    """Every download button's label and data, as the page offered them during the runs."""
    offered: dict[str, object] = {}
    original = DeltaGenerator.download_button

    def record(self, label, data, *args, **kwargs):
        offered[label] = data
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", record)
    monkeypatch.setattr(st, "download_button", lambda *a, **k: record(st._main, *a, **k))
    return offered


def csv(data) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data if isinstance(data, bytes) else data.encode()), encoding="utf-8-sig")


def seed_words(salt: str) -> list[int]:
    return [DEFAULT_SEED, sum(map(ord, salt))]


def blocks(frame: pd.DataFrame):
    """Each mechanism's rows, in file order, with its one label."""
    for name in dict.fromkeys(frame["released by"]):
        rows = frame[frame["released by"] == name]
        label = rows[["epsilon", "delta", "neighbouring_relation", "unit_of_privacy"]].drop_duplicates()
        assert len(label) == 1, f"{name}: one label per mechanism, got {label}"
        yield name, rows, label.iloc[0]


# --- the counts: one relation, given once, stated by the Counts that drew -----------------------------------------


def test_a_counts_carries_the_relation_it_was_calibrated_for():
    for f in families.FAMILIES.values():
        for relation in (ADD_REMOVE, REPLACE_ONE):
            answer = f.counts(1.0, 5, delta=f.delta(DELTA), relation=relation)
            # a local oracle holds under replace one whatever is asked; a central family under what calibrated it
            assert answer.relation is (REPLACE_ONE if f.model == "local" else relation)
            if f.model == "central":
                assert answer.mechanism.sensitivity == f.histogram_sensitivity(relation)


def replay_counts(page: pd.DataFrame, relation_of_row, codes, k) -> dict:
    """The file's releases redrawn from each block's own label (ε, δ and the given relation), in the file's order."""
    true = np.bincount(codes, minlength=k)
    rng = np.random.default_rng(seed_words(compare_layout.SALT))
    out = {}
    for name, _, label in blocks(page):
        family = families.labelled()[name]
        answer = family.counts(label["epsilon"], k, delta=family.delta(DELTA), relation=relation_of_row(label))
        out[name] = answer.simulate(true, rng, 1)[0]
    return out


def test_every_counts_row_states_the_relation_its_noise_was_calibrated_for(downloads):
    at = open_page("compare", cmp_epsilon=2)
    at.multiselect(key="cmp_count_mechs").set_value(list(releases.COUNT_MECHANISMS)).run()
    assert_clean(at)
    page = csv(downloads["Simulated releases (CSV), not private"])
    assert (page["randomness"].str.startswith("simulated, not private")).all()
    column = at.selectbox(key="cmp_column").value
    codes, labels, _ = encode_categories(load_demo("census").frame[column])
    stated = replay_counts(page, lambda label: NeighbouringRelation(label["neighbouring_relation"]), codes, len(labels))
    for name, rows, label in blocks(page):
        assert label["neighbouring_relation"] == compare_layout.RELATION.value == "replace one record"
        assert rows["value"].astype(str).tolist() == [str(v) for v in labels]
        # redrawn from the label's own relation: the same numbers, to the last bit
        assert rows["noisy count"].tolist() == stated[name].tolist(), name
    # control: the other relation (what the Laplace kind states by default) draws other central numbers
    other = replay_counts(page, lambda label: ADD_REMOVE, codes, len(labels))
    central = [n for n, f in families.labelled().items() if f.model == "central"]
    assert all(other[n].tolist() != stated[n].tolist() for n in central)


# --- the means and the quantiles: each row's relation is the one its mechanism's noise was calibrated under ----------


def test_every_mean_row_states_its_mechanisms_relation(downloads):
    at = open_page("compare", cmp_query="Mean of a number", cmp_mean_column="age", trials=100)
    at.multiselect(key="cmp_mean_mechs").set_value(list(releases.MEAN_MECHANISMS)).run()
    assert_clean(at)
    page = csv(downloads["Simulated releases (CSV), not private"])
    lower, upper = suggest_bounds(load_demo("census").frame["age"])
    values, _ = numeric_values(load_demo("census").frame["age"])
    seen = {}
    for name, _, label in blocks(page):
        relation = NeighbouringRelation(label["neighbouring_relation"])
        seen[name] = relation
        if name in (compare_means.LDP_MEAN,):
            assert relation is REPLACE_ONE  # each device's report
        elif name == compare_means.SVT_MEAN:
            assert relation is ADD_REMOVE  # dpcore.clipping: sensitivities under add/remove one record
        else:  # the clipped sum's noise is calibrated to that relation's sensitivity
            family = families.labelled(" mean", "central")[name]
            result = dp_mean(values, lower, upper, label["epsilon"], 0, mechanism=family.key, delta=family.delta(DELTA))
            assert relation is QUERY_RELATION
            assert result.sum.mechanism.sensitivity == relation.clipped_sum_sensitivity(lower, upper)
    assert set(seen) == set(releases.MEAN_MECHANISMS)


def test_every_quantile_row_states_the_relation_its_noise_was_calibrated_for(downloads):
    at = open_page("compare", cmp_query="Quantile or median", cmp_q_column="age", trials=100)
    at.multiselect(key="cmp_q_mechs").set_value(list(compare_quantiles.MECHANISMS)).run()
    assert_clean(at)
    page = csv(downloads["Simulated quantiles (CSV), not private"])
    values, _ = numeric_values(load_demo("census").frame["age"])
    lower, upper = compare_quantiles.DEFAULT_RANGE
    rng = np.random.default_rng(seed_words(compare_layout.SALT + "-q"))
    for name, rows, label in blocks(page):
        relation = NeighbouringRelation(label["neighbouring_relation"])
        eps = label["epsilon"]
        if name == compare_quantiles.EXPONENTIAL:
            mechanism = ExponentialQuantile(eps, lower, upper, 0.5, relation)
            assert mechanism.sensitivity == quantile_score_sensitivity(0.5, relation)
            redrawn = mechanism.intervals(values).simulate(rng)
        else:  # the histogram's noise recalibrated from the row's relation, its draw replayed
            family = compare_quantiles.HISTOGRAMS[name]
            noise = family.noise(eps, family.histogram_sensitivity(relation), family.delta(DELTA))
            true = dp_histogram(values, 100, eps, 0, lower=lower, upper=upper).true_value
            redrawn = quantile_from_counts(noise.simulate(true, rng), np.linspace(lower, upper, 101), 0.5)
        assert rows["released"].tolist() == [redrawn], name
        assert relation is ADD_REMOVE


# --- bounded work: the mean curves by bytes, every default view on the heaviest legal upload ------------------------


def test_no_compare_view_keeps_an_entry_counted_cache():
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    for path in [root / "app_pages" / "compare.py", *sorted((root / "explorer").glob("compare_*.py"))]:
        assert "st.cache_data" not in path.read_text(encoding="utf-8"), path.name
    for curves in (compare_means.mean_curves, compare_quantiles.quantile_curves):
        assert curves.store.max_bytes <= 4 * 1024 * 1024  # explorer.cache.bounded, by bytes


@pytest.mark.parametrize(
    "query",
    [{}, {"cmp_query": "Mean of a number"}, {"cmp_query": "Quantile or median", "cmp_q_bins": "1000"}],
    ids=["counts", "mean", "quantile"],
)
def test_every_default_view_draws_on_the_heaviest_upload(query):
    # a million rows and a 50-value column: the counts' one release once drew every person's 50 bits (5·10⁷ > the
    # 2·10⁷ work bound) and the default view refused; now each family's exact aggregate law, O(k)
    from tests.upload_corpus import HEAVY_NAME, heavy_csv

    at = open_page("data", timeout=300, trials=10_000)
    at.file_uploader(key="data_upload").upload(HEAVY_NAME, heavy_csv(), "text/csv").run()
    assert_clean(at)
    for key, value in query.items():
        at.query_params[key] = value
    at.switch_page(PAGES["compare"]).run()
    assert_clean(at)
    assert at.get("plotly_chart") and at.dataframe, "the view drew nothing"
    if query.get("cmp_q_bins"):  # 10,000 trials × 1,000 bins: the histogram methods simulate fewer, and say so
        trials = compare_quantiles.MAX_CELLS // 1000
        assert any(f"{trials:,} simulated releases of each" in c.value for c in at.caption)
    at.select_slider(key="cmp_epsilon").set_value(0.5).run()
    assert_clean(at)


# --- the declared unit (issue 20, part 4): every row says person, and one row again gives today's file ------------


def test_under_a_person_unit_every_counts_row_says_person_and_replays_from_the_persons_sensitivity(downloads):
    at = visits_compare()
    at.run()
    one_row_file = downloads["Simulated releases (CSV), not private"]
    m = 4
    at.radio(key=unit.KEY).set_value(unit.PERSON).run()
    at.number_input(key=unit.ROWS_KEY).set_value(float(m)).run()
    assert_clean(at)
    page = csv(downloads["Simulated releases (CSV), not private"])
    assert (page["unit_of_privacy"] == "person").all()
    assert page["unit_bounding"].str.startswith(f"person (column patient_id, at most {m} rows each)").all()
    column = at.selectbox(key="cmp_column").value
    codes, labels, _ = encode_categories(VISITS.frame[column])
    k = len(labels)
    persons = person_codes(VISITS.frame["patient_id"].to_numpy())[0]
    bounds = ContributionBounds(max_rows=m)  # at most m of each person's rows, in any categories
    kept = bound_contributions(persons, np.random.default_rng(seed_words("compare-bound")), bounds=bounds)
    one = bound_contributions(
        persons, np.random.default_rng(seed_words("compare-one-row")), bounds=ContributionBounds()
    )
    rng = np.random.default_rng(seed_words(compare_layout.SALT))
    for name, rows, label in blocks(page):
        family = families.labelled()[name]
        if family.model == "local":  # one report per person, its ε the person's
            assert label["neighbouring_relation"] == "replace one person"
            answer = family.counts(label["epsilon"], k)
            true = np.bincount(codes[one.kept], minlength=k)
        else:  # the person's sensitivity: the bins moved by at most m in all (ℓ1 = ℓ2 = m)
            assert label["neighbouring_relation"] == "add/remove one person"
            noise = family.noise(label["epsilon"], bounds.rows_histogram_sensitivity().norm(family.norm), DELTA)
            assert noise.sensitivity == m
            answer = families.Counts(family, noise, k, ADD_REMOVE)
            true = np.bincount(codes[kept.kept], minlength=k)
        # redrawn from the row's own label and the persons' bounded counts: the same numbers, to the last bit
        assert rows["noisy count"].tolist() == answer.simulate(true, rng, 1)[0].tolist(), name
    at.radio(key=unit.KEY).set_value(unit.ROW).run()
    assert downloads["Simulated releases (CSV), not private"] == one_row_file  # today's file, byte for byte
    assert "unit_bounding" not in csv(one_row_file).columns


def test_under_a_person_unit_every_mean_row_says_person(downloads):
    at = visits_compare(3, trials=100)
    at.selectbox(key="cmp_query").set_value("Mean of a number").run()
    assert_clean(at)
    page = csv(downloads["Simulated releases (CSV), not private"])
    assert (page["unit_of_privacy"] == "person").all()
    for name, _, label in blocks(page):
        words = "replace one person" if name == compare_means.LDP_MEAN else "add/remove one person"
        assert label["neighbouring_relation"] == words, name
    at.radio(key=unit.KEY).set_value(unit.ROW).run()
    assert (csv(downloads["Simulated releases (CSV), not private"])["unit_of_privacy"] == "record").all()
