"""dpcore.learning.user_level: user-level DP-SGD (a person with all of their rows is the unit)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from dpcore.accounting import PoissonSampledGaussian
from dpcore.learning import dp_sgd
from dpcore.learning.user_level import (
    UserLevelSGD,
    expected_rows_per_step,
    person_gradients,
    person_rows,
    user_level_dp_sgd,
)
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON


def _table(seed: int, persons: int = 6, d: int = 3):
    """A small table with 1 to 6 rows per person (labels from a noisy linear rule)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 7, size=persons)
    who = np.repeat(np.arange(persons), counts)
    X = rng.normal(size=(who.size, d))
    y = (X[:, 0] + rng.normal(size=who.size) > 0).astype(int)
    y[:2] = [0, 1]  # both classes
    return X, y, who


def _direct_mean_gradient(X, y, w):
    """(1/|R|) Σ (expit(w·x̃) − y) x̃ over one person's rows, written out row by row."""
    total = np.zeros(w.size)
    for x, label in zip(X, y):
        xt = np.append(x, 1.0)
        total += (expit(xt @ w) - label) * xt
    return total / len(y)


@pytest.mark.parametrize("seed", range(4))
def test_each_person_adds_their_clipped_mean_row_gradient(seed):
    X, y, who = _table(seed)
    w = np.random.default_rng(100 + seed).normal(size=X.shape[1] + 1)
    clip = 0.3
    gradients, labels = person_gradients(X, y, who, w, clip=clip)
    for g, u in zip(gradients, labels):
        direct = _direct_mean_gradient(X[who == u], y[who == u], w)
        expected = direct * min(1.0, clip / np.linalg.norm(direct))
        np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("clip", [0.05, 0.5, 5.0])
def test_removing_any_whole_person_moves_the_noiseless_sum_by_at_most_c(seed, clip):
    """Brute force over every neighbouring pair (the table, the table without one person's rows)."""
    X, y, who = _table(seed)
    w = np.random.default_rng(200 + seed).normal(scale=3.0, size=X.shape[1] + 1)
    full = person_gradients(X, y, who, w, clip=clip)[0].sum(axis=0)
    moves = []
    for u in np.unique(who):
        keep = who != u
        if len(set(y[keep])) < 2:
            continue  # the trainer's data check needs both classes; the bound does not depend on it
        without = person_gradients(X[keep], y[keep], who[keep], w, clip=clip)[0].sum(axis=0)
        moves.append(np.linalg.norm(full - without))
    assert moves and max(moves) <= clip * (1 + 1e-12)
    # the bound is reached by a person whose mean gradient is longer than C (weights this large clip most persons)
    if clip == 0.05:
        assert max(moves) == pytest.approx(clip, rel=1e-12)


def test_a_person_with_a_thousand_rows_moves_the_sum_by_at_most_c():
    rng = np.random.default_rng(7)
    who = np.r_[np.zeros(1000, dtype=int), np.arange(1, 41)]
    X = rng.normal(size=(who.size, 4)) * 10
    y = (rng.random(who.size) < 0.5).astype(int)
    w = rng.normal(size=5)
    full = person_gradients(X, y, who, w, clip=1.0)[0].sum(axis=0)
    without = person_gradients(X[who != 0], y[who != 0], who[who != 0], w, clip=1.0)[0].sum(axis=0)
    # record-level clipping would let these 1,000 rows move the sum by up to 1,000 C; here by at most C
    assert np.linalg.norm(full - without) <= 1.0 + 1e-12


def test_person_rows_keeps_at_most_m_rows_of_each_person_and_all_of_the_others():
    who = np.r_[np.zeros(50, dtype=int), np.ones(3, dtype=int), np.full(7, 2)]
    groups = person_rows(who, 5, rng=3)
    assert groups.count.tolist() == [5, 3, 5]
    assert groups.rows == 60 and groups.rows_kept == 13
    for u in range(3):
        rows = groups.order[groups.start[u] : groups.start[u] + groups.count[u]]
        assert np.all(who[rows] == u) and np.unique(rows).size == rows.size
    assert expected_rows_per_step(np.bincount(who), 5, 0.5) == pytest.approx(6.5)


def test_which_rows_a_heavy_person_keeps_is_uniform():
    """Each of a person's 10 rows is kept with probability m/10 = 0.3 (seeded; tolerance 5 binomial s.e.)."""
    who = np.zeros(10, dtype=int)
    trials = 4000
    hits = np.zeros(10)
    rng = np.random.default_rng(11)
    for _ in range(trials):
        hits[person_rows(who, 3, rng).order] += 1
    se = np.sqrt(0.3 * 0.7 / trials)
    assert np.all(np.abs(hits / trials - 0.3) < 5 * se)


@pytest.mark.parametrize("accountant", ["pld", "rdp"])
@pytest.mark.parametrize("sigma, q, steps", [(1.0, 0.05, 40), (2.5, 0.2, 15)])
def test_the_accounting_equals_record_level_dp_sgd_at_the_same_q_sigma_and_steps(accountant, sigma, q, steps):
    X, y, who = _table(0, persons=40)
    common = {"noise_multiplier": sigma, "sampling_rate": q, "steps": steps, "clip": 1.0, "delta": 1e-5}
    user = user_level_dp_sgd(X, y, who, max_rows=3, rng=1, accountant=accountant, history_every=0, **common)
    record = dp_sgd(X, y, rng=1, accountant=accountant, history_every=0, **common)
    assert user.epsilon == record.epsilon
    assert user.privacy.equals(record.privacy)
    params = UserLevelSGD(sigma, q, steps, 1.0, 3, accountant=accountant)
    assert params.epsilon() == record.epsilon
    assert params.event == PoissonSampledGaussian(sigma, q, steps)
    assert (params.unit, params.relation) == (UNIT_PERSON, ADD_REMOVE)
    assert user.details["unit"] == UNIT_PERSON and user.details["neighbours"] == "add/remove one person"
    assert user.details["sensitivity"] == 1.0 and user.details["noise_std"] == sigma


def test_training_is_seeded_learns_and_reports_its_persons():
    rng = np.random.default_rng(5)
    who = rng.integers(0, 400, size=3000)
    X = rng.normal(size=(3000, 4))
    y = (X @ np.array([2.0, -1.0, 0.5, 0.0]) + 0.3 * rng.normal(size=3000) > 0).astype(int)
    kwargs = {"noise_multiplier": 1.0, "sampling_rate": 0.1, "steps": 150, "clip": 1.0, "max_rows": 4, "draws": 3}
    a = user_level_dp_sgd(X, y, who, rng=9, X_test=X, y_test=y, **kwargs)
    b = user_level_dp_sgd(X, y, who, rng=9, X_test=X, y_test=y, **kwargs)
    np.testing.assert_array_equal(a.weights, b.weights)
    assert a.weights.shape == (3, 5)
    assert a.details["persons"] == np.unique(who).size
    assert a.details["rows_used"] == int(np.minimum(np.bincount(who), 4).sum())
    assert a.details["expected_batch_size"] == pytest.approx(0.1 * np.unique(who).size)
    # a separable rule: far above the majority share (the noise on the mean of ~40 persons is σC/40 per step)
    majority = max(y.mean(), 1 - y.mean())
    assert a.accuracy(X, y).min() > majority + 0.2


@pytest.mark.parametrize(
    "change, name",
    [
        ({"noise_multiplier": 0.0}, "noise_multiplier"),
        ({"sampling_rate": 1.5}, "sampling_rate"),
        ({"steps": 0}, "steps"),
        ({"clip": -1.0}, "clip"),
        ({"max_rows": 0}, "max_rows"),
        ({"delta": 1.0}, "delta"),
        ({"learning_rate": float("nan")}, "learning_rate"),
        ({"l2": -0.1}, "l2"),
        ({"accountant": "moments"}, "accountant"),
        ({"expected_batch_size": 0.0}, "expected_batch_size"),
    ],
)
def test_a_bad_parameter_is_refused_in_one_sentence_naming_it(change, name):
    X, y, who = _table(1)
    kwargs = {"noise_multiplier": 1.0, "sampling_rate": 0.5, "steps": 3, "clip": 1.0, "max_rows": 2, "rng": 0}
    with pytest.raises(ValueError, match=rf"^{name}\b") as info:
        user_level_dp_sgd(X, y, who, **{**kwargs, **change})
    assert "\n" not in str(info.value)


def test_persons_of_the_wrong_length_or_missing_are_refused():
    X, y, who = _table(2)
    kwargs = {"noise_multiplier": 1.0, "sampling_rate": 0.5, "steps": 3, "clip": 1.0, "max_rows": 2, "rng": 0}
    with pytest.raises(ValueError, match=r"^persons must give one identifier per row"):
        user_level_dp_sgd(X, y, who[:-1], **kwargs)
    missing = who.astype(object)
    missing[0] = None
    with pytest.raises(ValueError, match=r"persons"):
        user_level_dp_sgd(X, y, missing, **kwargs)


def test_one_step_with_every_person_is_their_clipped_sum_plus_gaussian_noise_of_sigma_c_over_n():
    """q = 1, one step from w = 0 with η = 1: w₁ = −(Σ_u clip_C(ḡ_u) + N(0, σ²C² I)) / N for N persons, so over many
    seeded draws the mean is the noiseless update (brute force) and each weight's standard deviation is σC/N
    (tolerances: 5 standard errors of a mean and of a standard deviation over the draws)."""
    X, y, who = _table(3, persons=12)
    sigma, clip, draws = 2.0, 0.4, 4000
    result = user_level_dp_sgd(
        X, y, who, noise_multiplier=sigma, sampling_rate=1.0, steps=1, clip=clip, max_rows=10, rng=123,
        draws=draws, history_every=0,
    )  # fmt: skip
    n_persons = np.unique(who).size
    expected = -person_gradients(X, y, who, np.zeros(X.shape[1] + 1), clip=clip)[0].sum(axis=0) / n_persons
    std = sigma * clip / n_persons
    W = result.weights
    assert np.all(np.abs(W.mean(axis=0) - expected) < 5 * std / np.sqrt(draws))
    assert np.all(np.abs(W.std(axis=0, ddof=1) / std - 1) < 5 / np.sqrt(2 * (draws - 1)))
