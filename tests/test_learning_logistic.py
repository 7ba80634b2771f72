import math
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from dpcore.learning import (
    LogisticDesign,
    add_intercept,
    clip_by_norm,
    clipped_sum_sensitivity,
    logistic_gradient,
    logistic_loss,
    nonprivate_gradient_descent,
    per_example_gradients,
    sigmoid,
)


def _data(rng, n=40, d=4, scale=3.0):
    X = rng.normal(size=(n, d)) * scale
    y = (rng.random(n) < 0.4).astype(int)
    return X, y


def _one_loss(w, x, y):
    # ln(1 + e^z) - y z for one example, written independently of dpcore
    z = float(np.dot(w, x))
    return float(np.logaddexp(0.0, z) - y * z)


# ------------------------------------------------------------------ gradients against finite differences


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_per_example_gradients_match_central_differences(rng, fit_intercept):
    X, y = _data(rng, n=12, d=3)
    p = X.shape[1] + int(fit_intercept)
    w = rng.normal(size=p) * 0.7
    rows = add_intercept(X) if fit_intercept else X
    grads = per_example_gradients(w, X, y, fit_intercept=fit_intercept)
    assert grads.shape == (12, p)
    h = 1e-5
    # central differences: error <= h^2/6 max|l'''| + eps|l|/h, about 1e-10 here
    for i in range(12):
        fd = np.array(
            [(_one_loss(w + h * e, rows[i], y[i]) - _one_loss(w - h * e, rows[i], y[i])) / (2 * h) for e in np.eye(p)]
        )
        np.testing.assert_allclose(grads[i], fd, rtol=0, atol=1e-8)


def test_objective_gradient_matches_central_differences_with_penalty(rng):
    X, y = _data(rng, n=30, d=3)
    w = rng.normal(size=4)
    l2 = 0.3
    grad = logistic_gradient(w, X, y, l2=l2)
    h = 1e-5
    fd = np.array(
        [(logistic_loss(w + h * e, X, y, l2=l2) - logistic_loss(w - h * e, X, y, l2=l2)) / (2 * h) for e in np.eye(4)]
    )
    np.testing.assert_allclose(grad, fd, rtol=0, atol=1e-8)
    # the intercept (last weight) is not penalised: its gradient is the same with or without l2
    assert grad[-1] == pytest.approx(logistic_gradient(w, X, y)[-1], abs=1e-15)


def test_loss_formula_on_a_hand_example():
    # one example x = (1), y = 1, w = (2, 0): z = 2, loss = ln(1 + e^2) - 2
    assert logistic_loss([2.0, 0.0], [[1.0]], [1]) == pytest.approx(math.log1p(math.exp(2.0)) - 2.0, rel=1e-15)
    # with l2 = 0.5 the penalty is 0.5/2 * 2^2 = 1 (the intercept 0 is not penalised either way)
    assert logistic_loss([2.0, 3.0], [[1.0]], [1], l2=0.5) == pytest.approx(
        math.log1p(math.exp(5.0)) - 5.0 + 1.0, rel=1e-15
    )


def test_sigmoid_equals_expit_without_warnings():
    z = np.concatenate([np.linspace(-800, 800, 4001), [-1e308, 1e308, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = sigmoid(z)
    np.testing.assert_allclose(s, expit(z), rtol=4 * np.finfo(float).eps, atol=1e-300)
    assert s[-3] == 0.0 and s[-2] == 1.0 and s[-1] == 0.5


# ------------------------------------------------------------------ clipping


@pytest.mark.parametrize("clip", [0.05, 1.0, 4.0])
def test_gradient_clipping_bounds_every_contribution(rng, clip):
    X, y = _data(rng, n=200, d=5, scale=5.0)  # rows of norm about 11: most gradients exceed the bound
    W = rng.normal(size=(3, 6)) * 2.0
    raw = per_example_gradients(W, X, y)
    clipped = per_example_gradients(W, X, y, clip=clip)
    raw_norms = np.linalg.norm(raw, axis=-1)
    norms = np.linalg.norm(clipped, axis=-1)
    # negative control: without clipping the bound is exceeded, so the check below can fail
    assert (raw_norms > clip).mean() > 0.25
    assert norms.max() <= clip * (1 + 1e-12)
    # clipping is the projection onto the ball: norm min(|g|, C), same direction
    np.testing.assert_allclose(norms, np.minimum(raw_norms, clip), rtol=1e-12)
    np.testing.assert_allclose(clipped * raw_norms[..., None], raw * norms[..., None], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("clip", [0.5, 1.0, 3.0])
def test_example_clipping_bounds_gradients_through_the_intercept(rng, clip):
    X, y = _data(rng, n=200, d=5, scale=5.0)
    W = rng.normal(size=(3, 6)) * 50.0  # large weights: |expit(z) - y| close to 1 for many examples
    grads = per_example_gradients(W, X, y, clip=clip, clipping="example")
    assert np.linalg.norm(grads, axis=-1).max() <= clip * (1 + 1e-12)
    design = LogisticDesign(X, y, clip=clip, clipping="example")
    assert design.norms.max() <= clip * (1 + 1e-12)
    # negative control: scaling x alone to C and then appending the intercept's 1 breaks the bound,
    # gradients reach sqrt(C^2 + 1): the intercept must be inside the clipped row
    naive_rows = add_intercept(clip_by_norm(X, clip))
    r = expit(W @ naive_rows.T) - y
    naive_norms = np.abs(r) * np.linalg.norm(naive_rows, axis=1)
    assert naive_norms.max() > clip * 1.05
    assert naive_norms.max() <= math.sqrt(clip**2 + 1) * (1 + 1e-12)


def test_example_clipping_keeps_the_predicted_labels(rng):
    # scaling a row by a positive factor keeps the sign of w . x: the row clipping changes probabilities only
    X, y = _data(rng, n=100, d=3, scale=4.0)
    w = rng.normal(size=4)
    design = LogisticDesign(X, y, clip=0.5, clipping="example")
    assert np.array_equal(design.rows @ w > 0, add_intercept(X) @ w > 0)


@pytest.mark.parametrize("clipping", ["gradient", "example"])
def test_vectorised_clipped_sum_equals_the_sum_of_materialised_contributions(rng, clipping):
    X, y = _data(rng, n=300, d=6, scale=2.0)
    W = rng.normal(size=(4, 7))
    design = LogisticDesign(X, y, clip=1.5, clipping=clipping)
    sums, clipped = design.gradient_sum(W)
    per_example = per_example_gradients(W, X, y, clip=1.5, clipping=clipping)
    np.testing.assert_allclose(sums, per_example.sum(axis=1), rtol=1e-12, atol=1e-12)
    raw = np.linalg.norm(per_example_gradients(W, X, y), axis=-1)
    expected = (raw > 1.5).mean(axis=1) if clipping == "gradient" else np.zeros(4)
    np.testing.assert_array_equal(clipped, expected)


def test_sparse_and_dense_products_agree(rng):
    # one-hot data large enough to be multiplied as CSR
    n, groups, levels = 6000, 4, 12
    codes = rng.integers(0, levels, size=(n, groups))
    X = np.zeros((n, groups * levels))
    X[np.arange(n)[:, None], codes + levels * np.arange(groups)] = 1.0
    X = np.hstack([rng.normal(size=(n, 2)), X])
    y = (rng.random(n) < 0.3).astype(int)
    design = LogisticDesign(X, y, clip=1.0)
    assert design._sparse_pair() is not None
    W = rng.normal(size=(3, design.p))
    R = rng.normal(size=(3, n))
    np.testing.assert_allclose(design.scores(W), W @ design.rows.T, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(design.weighted_sum(R), R @ design.rows, rtol=1e-12, atol=1e-10)
    dense = LogisticDesign(X[:100], y[:100])
    assert dense._sparse_pair() is None


def test_clip_by_norm_is_exact_for_zero_and_short_vectors():
    v = np.array([[0.0, 0.0], [0.3, 0.4], [30.0, 40.0]])
    out = clip_by_norm(v, 1.0)
    assert np.array_equal(out[:2], v[:2])
    np.testing.assert_allclose(out[2], [0.6, 0.8], rtol=1e-15)


# ------------------------------------------------------------------ sensitivity of a clipped sum


def test_clipped_sum_sensitivity_is_c_or_2c_and_is_attained(rng):
    C = 1.3
    assert clipped_sum_sensitivity(C) == C  # add/remove: one vector of norm <= C
    assert clipped_sum_sensitivity(C, "replace-one") == 2 * C  # replace-one: ||a - b|| <= 2C
    # empirical: neighbouring data sets, clipped gradient sums at random weights
    X, y = _data(rng, n=50, d=3, scale=4.0)
    w = rng.normal(size=(1, 4)) * 3
    full = LogisticDesign(X, y, clip=C).gradient_sum(w)[0][0]
    removed = [LogisticDesign(np.delete(X, i, 0), np.delete(y, i), clip=C).gradient_sum(w)[0][0] for i in range(50)]
    gaps = np.linalg.norm(full - np.array(removed), axis=1)
    assert gaps.max() <= C * (1 + 1e-12)
    assert gaps.max() > 0.99 * C  # attained: some example is clipped to exactly C
    # replace-one: flip one label at weights near 0, where expit(z) is about 1/2: the example's gradient
    # (expit(z) - y) x turns round, both clipped to norm C, so the sum moves by about 2C
    w0 = np.full((1, 4), 1e-3)
    before = LogisticDesign(X, y, clip=C).gradient_sum(w0)[0][0]
    i = int(np.argmax(np.linalg.norm(X, axis=1)))
    y2 = y.copy()
    y2[i] = 1 - y[i]
    after = LogisticDesign(X, y2, clip=C).gradient_sum(w0)[0][0]
    gap = np.linalg.norm(before - after)
    assert gap <= 2 * C * (1 + 1e-12)
    assert gap > 1.99 * C  # beyond the add/remove bound C: replace-one needs 2C


@pytest.mark.parametrize("bad, message", [(0.0, r"bound must be in \(0, inf\), got 0.0"), (-1, "got -1.0")])
def test_clip_by_norm_refuses_a_bad_bound(bad, message):
    with pytest.raises(ValueError, match=message):
        clip_by_norm([[1.0]], bad)


def test_neighbours_must_be_known():
    with pytest.raises(ValueError, match="neighbours must be one of 'add/remove', 'replace-one', got 'swap'"):
        clipped_sum_sensitivity(1.0, "swap")


# ------------------------------------------------------------------ the non-private path reaches the optimum


def _scipy_optimum(X, y, l2):
    rows = np.hstack([X, np.ones((X.shape[0], 1))])
    pen = np.r_[np.ones(X.shape[1]), 0.0]

    def f(w):
        z = rows @ w
        return np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * np.sum((pen * w) ** 2)

    def g(w):
        return rows.T @ (expit(rows @ w) - y) / len(y) + l2 * pen * w

    res = minimize(f, np.zeros(rows.shape[1]), jac=g, method="BFGS", options={"gtol": 1e-12, "maxiter": 10_000})
    return res.x, f(res.x)


@pytest.mark.parametrize("l2", [0.01, 0.1])
def test_nonprivate_descent_reaches_the_scipy_optimum(rng, l2):
    n, d = 400, 4
    X = rng.normal(size=(n, d))
    y = (X @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.3 + rng.logistic(size=n) > 0).astype(int)
    w_star, f_star = _scipy_optimum(X, y, l2)
    rows = np.hstack([X, np.ones((n, 1))])
    smoothness = np.linalg.eigvalsh(rows.T @ rows / (4 * n)).max() + l2  # L of the objective
    result = nonprivate_gradient_descent(X, y, iterations=4000, learning_rate=1.0 / smoothness, l2=l2, history_every=0)
    # strongly convex (modulus >= l2 on the coefficients, > 0 on the intercept here): linear convergence
    np.testing.assert_allclose(result.weights, w_star, rtol=0, atol=1e-6)
    assert logistic_loss(result.weights, X, y, l2=l2) == pytest.approx(f_star, abs=1e-11)
    assert result.epsilon == math.inf and result.delta == 0.0


def test_nonprivate_history_decreases_the_objective(rng):
    X, y = _data(rng, n=200, d=3, scale=1.0)
    result = nonprivate_gradient_descent(X, y, iterations=30, learning_rate=1.0, l2=0.01)
    loss = result.history["loss"].to_numpy()
    assert list(result.history["step"]) == list(range(31))
    assert loss[0] == pytest.approx(math.log(2.0), rel=1e-15)  # w = 0: ln 2 for every example
    assert np.all(np.diff(loss) <= 1e-15)  # gradient descent with eta <= 1/L never increases the objective
