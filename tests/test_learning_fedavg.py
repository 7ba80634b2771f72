import math

import numpy as np
import pytest
from scipy.special import expit

from dpcore.accounting import dpsgd_epsilon
from dpcore.learning import (
    Federation,
    adversarial_client_influence,
    client_influence,
    clip_by_norm,
    dp_fedavg,
    majority_baseline,
    naive_fedavg,
    split_at_random,
    split_by_group,
)
from tests.tolerances import Z, variance_tolerance


def _data(rng, n, d=3):
    X = rng.normal(size=(n, d))
    y = (X @ np.linspace(1.5, -1.0, d) + rng.logistic(size=n) > 0).astype(int)
    return X, y


def _local_reference(w, X, y, steps, lr, l2):
    # plain local gradient descent on one client, written independently: rows with the intercept last
    rows = np.hstack([X, np.ones((len(y), 1))])
    pen = np.r_[np.ones(X.shape[1]), 0.0]
    w = w.copy()
    for _ in range(steps):
        w = w - lr * (rows.T @ (expit(rows @ w) - y) / len(y) + l2 * pen * w)
    return w


# ------------------------------------------------------------------ splitters


def test_split_by_group_is_a_partition_by_value(rng):
    X, y = _data(rng, 300)
    groups = rng.choice(np.array(["north", "south", "east"]), size=300)
    clients = split_by_group(X, y, groups)
    assert len(clients) == 3
    for (Xk, yk), value in zip(clients, sorted({"north", "south", "east"})):
        mask = groups == value
        assert np.array_equal(Xk, X[mask]) and np.array_equal(yk, y[mask])  # rows keep their order
    numbers = split_by_group(X, y, (X[:, 0] > 0).astype(int))
    assert [len(c[1]) for c in numbers] == [int((X[:, 0] <= 0).sum()), int((X[:, 0] > 0).sum())]


def test_split_at_random_deals_every_row_once(rng):
    X, y = _data(rng, 103)
    clients = split_at_random(X, y, 10, rng=4)
    sizes = [len(c[1]) for c in clients]
    assert sum(sizes) == 103 and max(sizes) - min(sizes) <= 1
    stacked = np.vstack([c[0] for c in clients])
    assert np.array_equal(np.sort(stacked, axis=0), np.sort(X, axis=0))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda X, y: split_at_random(X, y, 0, rng=0), r"n_clients must be an integer in \[1, 20\], got 0"),
        (lambda X, y: split_at_random(X, y, 21, rng=0), r"n_clients must be an integer in \[1, 20\], got 21"),
        (lambda X, y: split_by_group(X, y, np.zeros(19)), r"groups must have one value per row of X \(20\)"),
        (lambda X, y: split_by_group(X, y, np.r_[np.nan, np.zeros(19)]), "groups must not contain missing values"),
    ],
)
def test_splitters_refuse_bad_input(rng, call, message):
    X, y = _data(rng, 20)
    with pytest.raises(ValueError, match=message):
        call(X, y)


# ------------------------------------------------------------------ local training and clipping


def test_vectorised_local_updates_equal_plain_loops(rng):
    clients = [_data(rng, n) for n in (5, 17, 40, 1)]
    federation = Federation(clients)
    starts = rng.normal(size=(6, 4))
    client = np.array([2, 0, 3, 1, 2, 2])  # a client may appear in several draws
    updates = federation.local_updates(starts, client, steps=7, lr=0.8, l2=0.05)
    for j, k in enumerate(client):
        X, y = clients[k]
        expected = _local_reference(starts[j], X, y, 7, 0.8, 0.05) - starts[j]
        np.testing.assert_allclose(updates[j], expected, rtol=1e-11, atol=1e-13)


def test_one_round_has_the_mean_and_variance_of_dp_fedavg(rng):
    # from w = 0, one round: w1 = eta_s (sum_{k sampled} clip_S(D_k) + sigma S N(0, I)) / (q m), so
    #   E[w1] = eta_s sum_k c_k / m,   Var[w1_j] = eta_s^2 (q (1 - q) sum_k c_kj^2 + sigma^2 S^2) / (q m)^2
    clients = split_at_random(*_data(rng, 600), 30, rng=2)
    q, sigma, S, eta_s, draws = 0.2, 0.7, 0.3, 1.5, 6000
    r = dp_fedavg(
        clients, rounds=1, client_rate=q, local_steps=3, clip=S, noise_multiplier=sigma, rng=9,
        local_lr=2.0, server_lr=eta_s, draws=draws, history_every=0,
    )  # fmt: skip
    federation = Federation(clients)
    raw = federation.local_updates(np.zeros((30, 4)), np.arange(30), 3, 2.0, 0.0)
    assert np.linalg.norm(raw, axis=1).min() > S  # every update is clipped here: the check below needs clipping
    c = clip_by_norm(raw, S)
    assert np.linalg.norm(c, axis=1).max() <= S * (1 + 1e-12)
    mean = eta_s * c.sum(axis=0) / 30
    var = eta_s**2 * (q * (1 - q) * (c**2).sum(axis=0) + (sigma * S) ** 2) / (q * 30) ** 2
    W = r.weights
    np.testing.assert_array_less(np.abs(W.mean(axis=0) - mean), Z * np.sqrt(var / draws))
    np.testing.assert_allclose(W.var(axis=0, ddof=1), var, rtol=variance_tolerance(draws))
    # negative control: the unclipped updates would give a mean far outside the tolerance
    assert np.any(np.abs(eta_s * raw.sum(axis=0) / 30 - mean) > Z * np.sqrt(var / draws))


def test_client_epsilon_is_the_subsampled_gaussian_with_the_client_rate(rng):
    clients = split_at_random(*_data(rng, 400), 40, rng=0)
    r = dp_fedavg(
        clients, rounds=25, client_rate=0.25, local_steps=2, clip=1.0, noise_multiplier=1.2, rng=0, delta=1e-4
    )
    assert r.epsilon == dpsgd_epsilon(1.2, 0.25, 25, 1e-4, method="pld")
    assert r.details["expected_clients_per_round"] == 10.0
    assert r.clipping == "client update" and r.clip == 1.0
    h = r.history
    assert h.loc[h["step"] < 25, "clipped_fraction"].dropna().between(0, 1).all()


def test_dp_fedavg_learns(rng):
    X, y = _data(rng, 4000)
    Xt, yt = _data(rng, 4000)
    clients = split_at_random(X, y, 100, rng=1)
    draws = 8
    r = dp_fedavg(
        clients, rounds=30, client_rate=0.3, local_steps=3, clip=1.0, noise_multiplier=1.0, rng=2,
        draws=draws, X_test=Xt, y_test=yt,
    )  # fmt: skip
    acc = r.accuracy(Xt, yt)
    base = majority_baseline(y, yt).accuracy
    assert acc.mean() - base > max(0.1, Z * acc.std(ddof=1) / math.sqrt(draws))


# ------------------------------------------------------------------ the tutorial recipe and why it is not private


def test_client_influence_is_the_change_of_the_weighted_average(rng):
    clients = [_data(rng, n) for n in (10, 50, 200)]
    table = client_influence(clients, local_steps=4, assumed_sensitivity=0.01, epsilon=1.0, clip=0.5, local_lr=1.0)
    models = [_local_reference(np.zeros(4), X, y, 4, 1.0, 0.0) for X, y in clients]
    sizes = np.array([10, 50, 200.0])
    average = sum(s * m for s, m in zip(sizes, models)) / sizes.sum()
    for j in range(3):
        others = [k for k in range(3) if k != j]
        without = sum(sizes[k] * models[k] for k in others) / sizes[others].sum()
        assert table.loc[j, "influence_l1"] == pytest.approx(np.abs(average - without).sum(), rel=1e-10)
        assert table.loc[j, "influence_l2"] == pytest.approx(np.linalg.norm(average - without), rel=1e-10)
        assert table.loc[j, "update_norm"] == pytest.approx(np.linalg.norm(models[j]), rel=1e-10)
    # the epsilon the Laplace noise actually gives: claimed epsilon times influence over assumption
    np.testing.assert_allclose(table["epsilon_actual"], table["influence_l1"] / 0.01, rtol=1e-12)
    assert (table["epsilon_actual"] > 1.0).any()  # the assumption fails for some client: the claim is void
    assert (table["clipped_update_norm"] <= 0.5 * (1 + 1e-12)).all()


def test_a_scaled_client_moves_the_naive_average_without_bound(rng):
    clients = split_at_random(*_data(rng, 600), 12, rng=3)
    scales = [0.0, 1.0, 10.0, 100.0, 1000.0]
    table = adversarial_client_influence(
        clients, scales=scales, local_steps=3, assumed_sensitivity=0.05, epsilon=1.0, clip=1.0
    )
    naive = table["naive_influence_l1"].to_numpy()
    # affine in the scale s: influence(s) = |n_adv (s u - A) / (N + n_adv)|_1, so its growth is linear for large s
    assert naive[4] > 90 * naive[2] / 10 and naive[4] > 50 * naive[1]
    np.testing.assert_allclose(table["epsilon_actual"], naive / 0.05, rtol=1e-12)
    # the clipped update's influence is min(s, S): bounded by S whatever the client sends
    np.testing.assert_allclose(table["clipped_influence_l2"], np.minimum(scales, 1.0), rtol=1e-12, atol=1e-15)
    # and it cannot wreck the model, while the naive average is taken over
    assert table["clipped_accuracy"].min() > 0.7
    assert table["naive_accuracy"].iloc[-1] < 0.5


def test_naive_fedavg_claims_an_epsilon_it_does_not_have(rng):
    clients = split_at_random(*_data(rng, 300), 6, rng=0)
    r = naive_fedavg(clients, rounds=3, local_steps=2, epsilon=0.5, assumed_sensitivity=0.01, rng=1, draws=4)
    assert r.epsilon == math.inf and r.delta == 0.0
    assert r.details["claimed_epsilon"] == 1.5 and r.details["laplace_scale"] == 0.02
    assert r.weights.shape == (4, 4)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"client_rate": 0.0}, ValueError, r"client_rate must be in \[1e-07, 1\], got 0.0"),
        ({"noise_multiplier": 0}, ValueError, r"noise_multiplier must be in \[0.1, 10000\], got 0.0"),
        ({"rounds": 0}, ValueError, r"rounds must be an integer in \[1, 100000\], got 0"),
        ({"local_steps": 0}, ValueError, r"local_steps must be an integer in \[1, 100000\], got 0"),
        ({"clip": -2}, ValueError, r"clip must be in \(0, inf\), got -2.0"),
    ],
)
def test_dp_fedavg_refuses_bad_arguments(rng, kwargs, error, message):
    clients = split_at_random(*_data(rng, 40), 4, rng=0)
    base = dict(rounds=2, client_rate=0.5, local_steps=1, clip=1.0, noise_multiplier=1.0, rng=0)
    with pytest.raises(error, match=message):
        dp_fedavg(clients, **(base | kwargs))


@pytest.mark.parametrize(
    "clients, error, message",
    [
        ([], ValueError, r"clients must hold at least one \(X, y\) pair, got none"),
        ("abc", TypeError, r"clients must be a list of \(X, y\) pairs, got str"),
        ([(np.zeros((2, 2)), [0, 1]), (np.zeros((2, 3)), [0, 1])], ValueError, r"clients\[1\] X must have 2 feature"),
        (
            [(np.zeros((2, 2)), [1, 1])],
            ValueError,
            "the clients' labels must contain both classes 0 and 1, got only class 1",
        ),
        ([np.zeros((2, 2))], TypeError, r"clients\[0\] must be an \(X, y\) pair"),
    ],
)
def test_bad_clients_get_one_sentence(clients, error, message):
    with pytest.raises(error, match=message):
        dp_fedavg(clients, rounds=1, client_rate=0.5, local_steps=1, clip=1.0, noise_multiplier=1.0, rng=0)
