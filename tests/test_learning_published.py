"""Noisy gradient descent on a grid (dpcore.learning.published) and its publication (dpcore.publish).

The rounded sum's sensitivity on random neighbouring data sets, the zCDP calibration against the accountant, the
exact law of what a run releases, fresh noise for every publication with no way to pass a seed, and labels that
no one person's value can change.
"""

from __future__ import annotations

import inspect
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chi2

from dpcore import publish
from dpcore.accounting import epsilon_curve, plan_noise, zcdp_to_dp
from dpcore.learning.logistic import LogisticDesign
from dpcore.learning.published import (
    GRID_INFLATION,
    _RoundedSums,
    lattice_gd_noise,
    lattice_gradient_descent,
    lattice_grid_for,
    rounded_gradient_sum,
)
from dpcore.neighbours import ADD_REMOVE, UNIT_RECORD
from dpcore.randomness import Randomness
from explorer.features import CategoricalDeclaration, NumericDeclaration, declared_features

#: One Monte-Carlo check in a million may fail by chance (the lower tail of a χ² law).
TAIL = 1e-6


def _data(rng, n, d, scale=1.0):
    X = rng.uniform(-scale, scale, size=(n, d))
    y = (X @ rng.normal(size=d) + rng.logistic(size=n) > 0).astype(int)
    return X, y


# ---------------------------------------------------------------------- the grid and the rounded sum's sensitivity


@pytest.mark.parametrize("clip", [0.25, 1.0, 2.0, 3.0, 8.0])
@pytest.mark.parametrize("dimension", [1, 2, 4, 21, 108, 1000])
def test_the_grid_is_the_largest_power_of_two_within_one_percent_of_c(clip, dimension):
    grid = lattice_grid_for(clip, dimension)
    assert math.log2(grid) == int(math.log2(grid))  # a power of two
    assert grid * math.sqrt(dimension) <= GRID_INFLATION * clip < 2 * grid * math.sqrt(dimension)


@pytest.mark.parametrize("clipping", ["gradient", "example"])
@pytest.mark.parametrize("sparse", [False, True])
def test_one_example_moves_the_rounded_sum_by_at_most_c_over_gamma_plus_root_p(clipping, sparse):
    """‖m(x) − m(x′)‖₂ ≤ C/γ + √p on random neighbouring data sets (rows of all sizes, outliers, random weights;
    dense rows, and mostly-zero rows like one-hot columns, which are summed over their non-zeros)."""
    rng = np.random.default_rng(20170101 + sparse)
    worst = 0.0
    for trial in range(60):
        n, d = int(rng.integers(2, 300)), int(rng.integers(1, 12))
        clip = float(rng.choice([0.1, 0.5, 1.0, 2.0, 5.0]))
        X, y = _data(rng, n, d, scale=float(rng.choice([0.1, 1.0, 100.0])))
        if sparse:
            X[rng.random(X.shape) < 0.9] = 0.0
        X[rng.integers(n)] *= 1e6  # an outlier somewhere
        grid = lattice_grid_for(clip, d + 1)
        w = rng.normal(scale=float(rng.choice([0.01, 1.0, 30.0])), size=d + 1)
        full = rounded_gradient_sum(LogisticDesign(X, y, clip=clip, clipping=clipping), w, grid)
        drop = int(rng.integers(n))  # remove one example (the neighbour under add/remove one)
        keep = np.arange(n) != drop
        less = rounded_gradient_sum(LogisticDesign(X[keep], y[keep], clip=clip, clipping=clipping), w, grid)
        bound = clip / grid + math.sqrt(d + 1)
        gap = float(np.linalg.norm(full - less))
        assert gap <= bound, (trial, gap, bound)
        # the difference is that example's own rounded gradient: the sum is exact, whatever the order
        alone = rounded_gradient_sum(LogisticDesign(X[[drop]], y[[drop]], clip=clip, clipping=clipping), w, grid)
        assert np.array_equal(full - less, alone)
        worst = max(worst, gap / bound)
    assert worst > 0.5  # the check saw gaps of the bound's size, not only tiny ones


def test_sparse_rows_sum_to_exactly_what_dense_rows_sum_to():
    rng = np.random.default_rng(11)
    n, categories = 5_000, 40
    X = np.zeros((n, categories + 1))
    X[np.arange(n), rng.integers(categories, size=n)] = 1.0  # one-hot
    X[:, -1] = rng.uniform(-1, 1, size=n)  # and one numeric column
    y = rng.integers(2, size=n)
    design = LogisticDesign(X, y, clip=1.0)
    grid = lattice_grid_for(1.0, design.p)
    sparse, dense = _RoundedSums(design, grid), _RoundedSums(design, grid)
    dense.entries = None  # the dense path, on the same rows
    assert sparse.entries is not None
    for scale in (0.0, 0.3, 5.0):
        w = rng.normal(scale=scale, size=design.p)
        assert np.array_equal(sparse.at(w), dense.at(w))
        assert np.array_equal(sparse.at(w), rounded_gradient_sum(design, w, grid))


# ---------------------------------------------------------------------- calibration under zCDP


@pytest.mark.parametrize(("epsilon", "delta", "iterations", "clip", "p"), [
    (1.0, 1e-5, 20, 2.0, 21),
    (0.03, 1e-5, 20, 2.0, 21),
    (0.5, 1e-6, 1, 1.0, 3),
    (4.0, 1e-7, 100, 0.5, 108),
])  # fmt: skip
def test_the_noise_spends_the_requested_budget_under_zcdp(epsilon, delta, iterations, clip, p):
    noise = lattice_gd_noise(epsilon, delta, iterations, clip, p)
    assert noise.releases == iterations + 1
    # the inflated sensitivity: C + γ√p, rounded up, at most 1 % above C
    assert clip + noise.grid * math.sqrt(p) <= noise.sensitivity <= clip * (1 + GRID_INFLATION) * (1 + 1e-15)
    # the accountant, on the same T + 1 releases: ε of the continuous Gaussian of the same ρ (the discrete one's, CKS
    # Theorem 14) is the ε stated, and it is the ε asked for up to N's rounding up (at most 1/N relative in ρ)
    table = epsilon_curve(noise.mechanism, [noise.releases], delta, ["zcdp"])
    assert table["epsilon"].iloc[0] == pytest.approx(noise.epsilon_spent, rel=1e-9)
    assert noise.epsilon_spent <= epsilon * (1 + 1e-12)
    assert noise.epsilon_spent == pytest.approx(epsilon, rel=4.0 / noise.sigma2_units + 1e-9)
    # ρ = (T + 1) Δ_g² / (2N), and the count's discrete Gaussian has the same ρ with sensitivity 1
    rho = Fraction(noise.releases) * Fraction(noise.sensitivity_units) ** 2 / (2 * noise.sigma2_units)
    assert noise.rho == float(rho)
    assert Fraction(1) / (2 * noise.count_sigma2) == Fraction(noise.sensitivity_units) ** 2 / (2 * noise.sigma2_units)
    assert zcdp_to_dp(noise.rho, delta) == noise.epsilon_spent
    # N is the planner's σ in grid steps, rounded up: no second formula
    planned = plan_noise("gaussian", epsilon, delta, noise.releases, method="zcdp", sensitivity=noise.sensitivity)
    assert (planned.sigma / noise.grid) ** 2 <= noise.sigma2_units < (planned.sigma / noise.grid) ** 2 + 1


def test_calibration_refuses_bad_input_in_the_house_form():
    with pytest.raises(ValueError, match=r"epsilon must be in \(0, inf\), got -1"):
        lattice_gd_noise(-1.0, 1e-5, 10, 1.0, 3)
    with pytest.raises(ValueError, match=r"iterations must be an integer in \[1, "):
        lattice_gd_noise(1.0, 1e-5, 0, 1.0, 3)
    with pytest.raises(ValueError, match=r"clip must be in \(0, inf\)"):
        lattice_gd_noise(1.0, 1e-5, 10, 0.0, 3)
    with pytest.raises(ValueError, match=r"dimension must be an integer in \[1, "):
        lattice_gd_noise(1.0, 1e-5, 10, 1.0, 0)


# ---------------------------------------------------------------------- what a run releases, exactly


def test_one_iteration_releases_the_rounded_sum_plus_integer_noise_of_the_stated_law():
    """At T = 1 the weights are −η γ (m + Z) / n̂: m + Z is recovered exactly, Z is integer of variance N."""
    rng = np.random.default_rng(7)
    X, y = _data(rng, 500, 2)
    eta, clip = 2.0, 1.0
    design = LogisticDesign(X, y, clip=clip)
    trials, draws, counts = 80, [], []
    for seed in range(trials):
        run = lattice_gradient_descent(
            X, y, epsilon=4.0, delta=1e-5, iterations=1, clip=clip, rng=seed, learning_rate=eta
        )
        noise = run.noise
        steps = -run.weights * max(run.noisy_count, 1) / eta / noise.grid  # m + Z in grid steps
        assert np.allclose(steps, np.rint(steps), rtol=0, atol=1e-6)
        draws.append(np.rint(steps) - rounded_gradient_sum(design, np.zeros(3), noise.grid))
        counts.append(run.noisy_count - 500)
    draws, counts = np.ravel(draws), np.asarray(counts, dtype=float)
    # a discrete Gaussian of parameter N ≥ 1 has variance N up to 1e-8 (CKS 2020, Prop. 19), so Σ Z²/N over k
    # draws is χ²_k up to that: it lies between the χ²_k quantiles at 1e-6 and 1 − 1e-6; the count's likewise
    for values, parameter in ((draws, noise.sigma2_units), (counts, float(noise.count_sigma2))):
        statistic = float(np.sum(values**2)) / parameter
        assert chi2.ppf(TAIL, values.size) < statistic < chi2.ppf(1 - TAIL, values.size), (statistic, values.size)


def test_the_work_budget_is_checked_before_anything_is_drawn():
    with pytest.raises(ValueError, match=r"iterations must be an integer in \[1, 100000\], got 1000000000000"):
        lattice_gradient_descent(
            np.zeros((5, 2)), np.zeros(5), epsilon=1.0, delta=1e-5, iterations=10**12, clip=1.0, rng=0
        )
    with pytest.raises(ValueError, match=r"steps × draws × rows × features"):
        lattice_gradient_descent(
            np.zeros((10**5, 50)), np.zeros(10**5), epsilon=1.0, delta=1e-5, iterations=10_000, clip=1.0, rng=0
        )


def test_a_single_class_is_trained_on_like_any_labels():
    # refusing it would say something about the data that no noise covers
    X, _ = _data(np.random.default_rng(1), 200, 2)
    run = lattice_gradient_descent(X, np.ones(200), epsilon=1.0, delta=1e-5, iterations=3, clip=1.0, rng=0)
    assert run.weights.shape == (3,) and np.all(np.isfinite(run.weights))


# ---------------------------------------------------------------------- the publication


def _census_like(n, rng, *, extra=None):
    frame = pd.DataFrame(
        {
            "age": rng.integers(17, 91, size=n),
            "sex": rng.choice(["Female", "Male"], size=n),
            "country": rng.choice(["US", "Mexico", "India"], size=n),
            "income": rng.choice(["<=50K", ">50K"], size=n, p=[0.75, 0.25]),
        }
    )
    return frame if extra is None else pd.concat([frame, pd.DataFrame([extra])], ignore_index=True)


SCHEMA = [
    NumericDeclaration("age", 17, 90),
    CategoricalDeclaration("sex", ("Female", "Male")),
    CategoricalDeclaration("country", ("US", "Mexico"), other=True),
]
SETTINGS = {"epsilon": 1.0, "delta": 1e-5, "iterations": 5, "clip": 1.0, "learning_rate": 2.0}


def _publish(frame):
    f = declared_features(frame, "income", ">50K", SCHEMA)
    return publish.publish_logistic_regression(f.X, f.y, f.feature_names, public=f.facts, **SETTINGS)


def test_a_publication_is_the_coefficients_under_their_declared_names_with_its_guarantee():
    release = _publish(_census_like(2_000, np.random.default_rng(3)))
    assert release.labels == ("age", "sex=Female", "sex=Male", "country=US", "country=Mexico", "country=(other)",
                              "(intercept)")  # fmt: skip
    assert len(release.values) == len(release.labels) and all(np.isfinite(release.values))
    assert release.relation is ADD_REMOVE and release.unit == UNIT_RECORD
    assert release.randomness is Randomness.PUBLICATION and release.is_publication
    assert 0.999 < release.epsilon <= 1.0 and release.delta == 1e-5
    facts = {f.name: f for f in release.public}
    assert facts["bounds of age"].source == "declared" and facts["bounds of age"].value.startswith("[17, 90]")
    assert facts["categories of country"].value == "US, Mexico"
    assert facts["label"].value.startswith("1 when income is '>50K'")
    assert facts["iterations T"].value == "5" and facts["grid γ"].source == "fixed"
    noise = lattice_gd_noise(1.0, 1e-5, 5, 1.0, 7)
    assert f"σ² = {noise.sigma2_units:,} grid steps²" in facts["noise of each gradient coordinate"].value
    # the number of rows appears only as the noisy count, a released fact
    assert facts["number of rows (noisy count)"].source == "released"
    assert "n" not in {f.name for f in release.public}
    assert "accuracy" not in str(release.label()).lower()


def test_two_publications_with_identical_inputs_differ():
    frame = _census_like(2_000, np.random.default_rng(4))
    first, second = _publish(frame), _publish(frame)
    assert first.labels == second.labels
    # each coefficient is a continuous function of the discrete noise (σ of several thousand grid steps): a
    # coincidence in every coordinate of two independent draws has probability far below 1e-12
    assert first.values != second.values


def test_the_publication_takes_no_generator_and_no_seed():
    parameters = inspect.signature(publish.publish_logistic_regression).parameters
    assert not {"rng", "seed", "random_state", "generator"} & set(parameters)
    f = declared_features(_census_like(100, np.random.default_rng(5)), "income", ">50K", SCHEMA)
    with pytest.raises(TypeError):
        publish.publish_logistic_regression(f.X, f.y, f.feature_names, rng=0, **SETTINGS)


@pytest.mark.parametrize(
    "person",
    [
        {"age": 10**9, "sex": "Female", "country": "US", "income": ">50K"},  # an outlier
        {"age": -5, "sex": "Intersex", "country": "Zanzibar", "income": "<=50K"},  # unique categories
        {"age": None, "sex": None, "country": None, "income": None},  # missing everything
    ],
)
def test_adding_or_removing_one_person_changes_no_published_label_or_declared_fact(person):
    rng = np.random.default_rng(6)
    without = _census_like(500, rng)
    with_person = pd.concat([without, pd.DataFrame([person])], ignore_index=True)
    a, b = (
        declared_features(without, "income", ">50K", SCHEMA),
        declared_features(with_person, "income", ">50K", SCHEMA),
    )
    assert a.feature_names == b.feature_names and a.facts == b.facts
    assert np.array_equal(a.X, b.X[:-1]) and np.array_equal(a.y, b.y[:-1])  # the others' rows are untouched
    assert np.all(np.abs(b.X) <= 1.0)  # the person's row stays within the declared scale
    ra, rb = _publish(without), _publish(with_person)
    assert ra.labels == rb.labels and ra.mechanism == rb.mechanism
    declared = [f for f in ra.public if f.source != "released"]
    assert declared == [f for f in rb.public if f.source != "released"]


def test_bad_names_are_refused_in_the_house_form():
    X, y = _data(np.random.default_rng(8), 50, 2)
    with pytest.raises(ValueError, match=r"feature_names must name each of the 2 column\(s\) of X, got 3"):
        publish.publish_logistic_regression(X, y, ["a", "b", "c"], **SETTINGS)
    with pytest.raises(ValueError, match=r"feature_names must be distinct and other than \(intercept\), got 'a'"):
        publish.publish_logistic_regression(X, y, ["a", "a"], **SETTINGS)
    with pytest.raises(TypeError, match=r"feature_names must be non-empty strings, got 3"):
        publish.publish_logistic_regression(X, y, ["a", 3], **SETTINGS)
