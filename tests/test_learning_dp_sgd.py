import math

import numpy as np
import pytest

from dpcore.accounting import dpsgd_epsilon, dpsgd_noise_multiplier
from dpcore.learning import dp_sgd, majority_baseline, per_example_gradients, poisson_batches
from tests.tolerances import Z, variance_tolerance


def _data(rng, n, d=4):
    X = rng.normal(size=(n, d)) * 2.0
    y = (X @ np.linspace(1.0, -0.5, d) - 1.0 + rng.logistic(size=n) > 0).astype(int)
    return X, y


# ------------------------------------------------------------------ Poisson sampling


def test_poisson_batches_include_each_index_with_probability_q():
    n, q, draws = 40, 0.3, 20_000
    index, kept = poisson_batches(n, q, draws, rng=1)
    member = np.zeros((draws, n), dtype=bool)
    member[np.repeat(np.arange(draws), kept.sum(axis=1)), index[kept]] = True
    freq = member.mean(axis=0)
    # each index: Bernoulli(q) over the draws, standard error sqrt(q (1 - q) / draws)
    np.testing.assert_array_less(np.abs(freq - q), Z * math.sqrt(q * (1 - q) / draws))
    # independence between indices: a pair is in the batch together with probability q^2
    both = (member[:, 0] & member[:, 1]).mean()
    assert abs(both - q * q) < Z * math.sqrt(q * q * (1 - q * q) / draws)
    # batch size is Binomial(n, q): mean nq, variance nq(1 - q)
    sizes = kept.sum(axis=1)
    assert abs(sizes.mean() - n * q) < Z * math.sqrt(n * q * (1 - q) / draws)
    assert sizes.var(ddof=1) == pytest.approx(n * q * (1 - q), rel=variance_tolerance(draws))
    # kept indices are distinct and increasing within a batch
    for j in range(50):
        assert np.all(np.diff(index[j][kept[j]]) > 0)


def test_poisson_batches_at_the_ends_of_the_rate():
    index, kept = poisson_batches(7, 1.0, 3, rng=0)
    assert kept.all() and np.array_equal(index, np.tile(np.arange(7), (3, 1)))
    index, kept = poisson_batches(5, 1e-9, 4, rng=0)
    assert index.shape == (4, 1) and not kept.any()  # empty batches: every entry is padding


@pytest.mark.parametrize("bad, message", [(0.0, r"sampling_rate must be in \(0, 1\], got 0.0"), (1.5, "got 1.5")])
def test_poisson_batches_refuse_a_bad_rate(bad, message):
    with pytest.raises(ValueError, match=message):
        poisson_batches(10, bad, 1, rng=0)


# ------------------------------------------------------------------ one step, in law


@pytest.mark.parametrize("clipping", ["gradient", "example"])
def test_one_step_has_the_mean_and_variance_of_dp_sgd(rng, clipping):
    # from w = 0, one step: w1 = -eta (sum_{i in B} c_i + sigma C N(0, I)) / (q n), with c_i the clipped
    # contributions; over the Poisson batch and the noise
    #   E[w1] = -eta sum_i c_i / n,   Var[w1_j] = eta^2 (q (1 - q) sum_i c_ij^2 + sigma^2 C^2) / (q n)^2
    n, q, sigma, C, eta, draws = 400, 0.1, 0.8, 0.5, 2.0, 6000
    X, y = _data(rng, n)
    result = dp_sgd(
        X, y, noise_multiplier=sigma, sampling_rate=q, steps=1, clip=C, rng=5, learning_rate=eta,
        clipping=clipping, draws=draws, history_every=0,
    )  # fmt: skip
    c = per_example_gradients(np.zeros(5), X, y, clip=C, clipping=clipping)
    mean = -eta * c.sum(axis=0) / n
    var = eta**2 * (q * (1 - q) * (c**2).sum(axis=0) + (sigma * C) ** 2) / (q * n) ** 2
    W = result.weights
    np.testing.assert_array_less(np.abs(W.mean(axis=0) - mean), Z * np.sqrt(var / draws))
    np.testing.assert_allclose(W.var(axis=0, ddof=1), var, rtol=variance_tolerance(draws))
    # negative control: the sampling term is large enough to be seen; without it (a fixed batch, or the
    # noise alone) the observed variances would fail the check above
    var_noise_only = eta**2 * (sigma * C) ** 2 / (q * n) ** 2
    assert np.any(np.abs(W.var(axis=0, ddof=1) / var_noise_only - 1) > variance_tolerance(draws))


def test_expected_batch_size_is_the_divisor(rng):
    X, y = _data(rng, 200)
    kwargs = dict(noise_multiplier=1.0, sampling_rate=0.2, steps=1, clip=1.0, learning_rate=1.0, history_every=0)
    a = dp_sgd(X, y, rng=3, **kwargs)
    b = dp_sgd(X, y, rng=3, expected_batch_size=80.0, **kwargs)
    # same batches and noise; the update is divided by 80 instead of q n = 40
    np.testing.assert_allclose(b.weights, a.weights / 2, rtol=1e-12)
    assert a.details["expected_batch_size"] == 40.0


# ------------------------------------------------------------------ privacy and accuracy


def test_epsilon_is_the_subsampled_gaussian_accountant(rng):
    X, y = _data(rng, 1000)
    r = dp_sgd(X, y, noise_multiplier=1.1, sampling_rate=0.05, steps=120, clip=1.0, rng=0, delta=1e-6, history_every=0)
    assert r.epsilon == dpsgd_epsilon(1.1, 0.05, 120, 1e-6, method="pld")
    assert r.delta == 1e-6
    table = dict(zip(r.privacy["method"], r.privacy["epsilon"]))
    assert table["rdp"] == dpsgd_epsilon(1.1, 0.05, 120, 1e-6, method="rdp")
    assert table["pld"] < table["rdp"]  # the PLD is the tighter accountant here
    r2 = dp_sgd(
        X, y, noise_multiplier=1.1, sampling_rate=0.05, steps=120, clip=1.0, rng=0, accountant="rdp", history_every=0
    )
    assert r2.epsilon == dpsgd_epsilon(1.1, 0.05, 120, 1e-5, method="rdp")
    assert r2.details["epochs"] == pytest.approx(6.0)


def test_dp_sgd_beats_the_majority_baseline(rng):
    X, y = _data(rng, 5000)
    Xt, yt = _data(rng, 5000)
    draws = 10
    r = dp_sgd(
        X, y, noise_multiplier=1.1, sampling_rate=256 / 5000, steps=300, clip=1.0, rng=1, draws=draws,
        X_test=Xt, y_test=yt,
    )  # fmt: skip
    acc = r.accuracy(Xt, yt)
    base = majority_baseline(y, yt).accuracy
    # every draw beats the baseline by 4 points; the mean by more than 5 standard errors of the draws
    assert acc.min() > base + 0.04
    assert acc.mean() - base > Z * acc.std(ddof=1) / math.sqrt(draws)
    h = r.history
    assert h["step"].max() == 300 and set(h["draw"]) == set(range(draws))
    assert h["test_accuracy"].notna().all()
    assert h.loc[h["step"] < 300, "clipped_fraction"].between(0, 1).all()


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "change, message",
    [
        ({"sampling_rate": 0.0}, r"sampling_rate must be in \[1e-07, 1\], got 0.0"),
        ({"sampling_rate": 1.01}, r"sampling_rate must be in \[1e-07, 1\], got 1.01"),
        ({"noise_multiplier": 0.0}, r"noise_multiplier must be in \[0.1, 10000\], got 0.0"),
        ({"noise_multiplier": -1.0}, r"noise_multiplier must be in \[0.1, 10000\], got -1.0"),
        ({"steps": 0}, r"steps must be an integer in \[1, 100000\], got 0"),
        ({"clip": 0.0}, r"clip must be in \(0, inf\), got 0.0"),
        ({"accountant": "moments"}, "accountant must be one of 'rdp', 'pld', got 'moments'"),
        ({"expected_batch_size": 0}, r"expected_batch_size must be in \(0, inf\), got 0.0"),
    ],
)
def test_bad_arguments_get_one_sentence(rng, change, message):
    X, y = _data(rng, 50)
    kwargs = dict(noise_multiplier=1.0, sampling_rate=0.1, steps=2, clip=1.0, rng=0) | change
    with pytest.raises(ValueError, match=message):
        dp_sgd(X, y, **kwargs)


def test_noise_multiplier_planned_for_a_target_epsilon_spends_it(rng):
    # the accountant's inverse plans sigma for (epsilon, delta, q, T); the run then reports that epsilon
    sigma = dpsgd_noise_multiplier(1.0, 1e-5, 0.02, 200)
    X, y = _data(rng, 500)
    r = dp_sgd(X, y, noise_multiplier=sigma, sampling_rate=0.02, steps=200, clip=1.0, rng=0, history_every=0)
    assert r.epsilon == pytest.approx(1.0, rel=1e-6)
