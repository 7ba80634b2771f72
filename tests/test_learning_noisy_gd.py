import math

import numpy as np
import pytest
from scipy.stats import norm

from dpcore.accounting import epsilon_curve
from dpcore.gaussian import Gaussian
from dpcore.learning import (
    epsilon_frontier,
    iterations_sweep,
    noisy_gd_noise,
    noisy_gradient_descent,
    per_example_gradients,
)
from tests.tolerances import Z, variance_tolerance


def _isotropic(rng, n, d=4, offset=0.0):
    X = rng.normal(size=(n, d))
    y = (X @ np.linspace(1.5, -1.0, d) + offset + rng.logistic(size=n) > 0).astype(int)
    return X, y


def _ill_conditioned(rng, n):
    # x2 is x1 plus a little noise and the label depends on x2 - x1: gradient descent needs many steps
    x1 = rng.normal(size=n)
    x2 = x1 + 0.3 * rng.normal(size=n)
    y = (4 * (x2 - x1) / 0.3 + rng.logistic(size=n) > 0).astype(int)
    return np.c_[x1, x2], y


# ------------------------------------------------------------------ calibration


@pytest.mark.parametrize("accounting", ["exact", "rdp", "zcdp", "advanced", "basic"])
@pytest.mark.parametrize("neighbours", ["add/remove", "replace-one"])
def test_calibrated_noise_spends_exactly_the_budget(accounting, neighbours):
    noise = noisy_gd_noise(1.0, 1e-5, 20, 2.0, neighbours=neighbours, accounting=accounting)
    assert noise.releases == (21 if neighbours == "add/remove" else 20)
    assert noise.sensitivity == (2.0 if neighbours == "add/remove" else 4.0)
    table = epsilon_curve(Gaussian(noise.sigma, noise.sensitivity), [noise.releases], 1e-5, [accounting])
    assert table["epsilon"].iloc[0] == pytest.approx(1.0, rel=1e-6)
    # and a 1 % smaller sigma would overspend: the calibration is the smallest noise
    smaller = epsilon_curve(Gaussian(0.99 * noise.sigma, noise.sensitivity), [noise.releases], 1e-5, [accounting])
    assert smaller["epsilon"].iloc[0] > 1.0


def test_exact_calibration_solves_the_gdp_equation():
    # the run is mu-GDP with mu = sqrt(T + 1) C / sigma, and delta_mu(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)
    eps, delta, T, C = 0.7, 1e-6, 15, 1.5
    noise = noisy_gd_noise(eps, delta, T, C)
    mu = math.sqrt(T + 1) * C / noise.sigma
    assert noise.mu == pytest.approx(mu, rel=1e-15)
    assert norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * norm.cdf(-eps / mu - mu / 2) == pytest.approx(delta, rel=1e-7)
    # the count gets the same mu: sensitivity 1, noise sigma / C
    assert 1.0 / noise.count_sigma == pytest.approx(C / noise.sigma, rel=1e-15)


def test_sigma_grows_like_the_square_root_of_the_releases():
    # exact accounting fixes mu_total: sigma_T = sqrt(T + 1) C / mu_total, so sigma_T / sqrt(T + 1) is constant
    ratios = [noisy_gd_noise(1.0, 1e-5, T, 1.0).sigma / math.sqrt(T + 1) for T in (1, 4, 10, 100, 1000)]
    np.testing.assert_allclose(ratios, ratios[0], rtol=1e-9)


def test_replace_one_needs_twice_the_sensitivity_and_one_release_fewer():
    # exact: sqrt(T) 2C / sigma_r = sqrt(T + 1) C / sigma_a  =>  sigma_r = 2 sqrt(T / (T + 1)) sigma_a
    for T in (1, 9, 50):
        add_remove = noisy_gd_noise(1.0, 1e-5, T, 1.0).sigma
        replace = noisy_gd_noise(1.0, 1e-5, T, 1.0, neighbours="replace-one").sigma
        assert replace == pytest.approx(2 * math.sqrt(T / (T + 1)) * add_remove, rel=1e-9)


def test_privacy_table_orders_the_accountings():
    noise = noisy_gd_noise(1.0, 1e-5, 30, 1.0)
    eps = dict(zip(*noise.privacy().to_dict("list").values()))
    assert set(eps) == {"basic", "advanced", "rdp", "zcdp", "exact"}
    assert eps["exact"] == pytest.approx(1.0, rel=1e-9)
    # exact is the tightest; zCDP's conversion over real orders is at most RDP's over the grid (same formula)
    assert all(eps["exact"] <= v * (1 + 1e-12) for v in eps.values())
    assert eps["zcdp"] <= eps["rdp"] * (1 + 1e-12)
    assert min(eps["basic"], eps["advanced"]) > eps["rdp"]  # composition theorems on (eps, delta) lose to RDP


# ------------------------------------------------------------------ what is released


def test_one_step_adds_gaussian_noise_of_the_calibrated_sigma(rng):
    # replace-one (n public), one step from w = 0: w1 = -eta (sum_i clip(g_i(0)) + sigma N(0, I)) / n
    X, y = _isotropic(rng, 300)
    eta, draws = 0.5, 4000
    result = noisy_gradient_descent(
        X, y, epsilon=2.0, delta=1e-5, iterations=1, clip=0.5, rng=7, learning_rate=eta,
        neighbours="replace-one", draws=draws, history_every=0,
    )  # fmt: skip
    sigma = result.details["sigma"]
    assert result.details["noisy_count"].tolist() == [300.0] * draws
    G = per_example_gradients(np.zeros(5), X, y, clip=0.5).sum(axis=0)
    W = result.weights
    sd = eta * sigma / 300
    # each coordinate: mean -eta G / n (standard error sd / sqrt(draws)), variance sd^2
    np.testing.assert_array_less(np.abs(W.mean(axis=0) + eta * G / 300), Z * sd / math.sqrt(draws))
    np.testing.assert_allclose(W.var(axis=0, ddof=1), sd**2, rtol=variance_tolerance(draws))


def test_noisy_count_has_the_same_mu_as_a_gradient_release(rng):
    X, y = _isotropic(rng, 500)
    draws = 4000
    result = noisy_gradient_descent(
        X, y, epsilon=0.3, delta=1e-5, iterations=4, clip=2.0, rng=3, draws=draws, history_every=0
    )
    counts = result.details["noisy_count"]
    sd = result.details["count_sigma"]
    assert sd == pytest.approx(result.details["sigma"] / 2.0, rel=1e-15)
    assert abs(counts.mean() - 500) < Z * sd / math.sqrt(draws)
    assert counts.var(ddof=1) == pytest.approx(sd**2, rel=variance_tolerance(draws))


# ------------------------------------------------------------------ results, draws, history


def test_single_run_and_several_draws_have_the_documented_shapes(rng):
    X, y = _isotropic(rng, 400)
    Xt, yt = _isotropic(rng, 200)
    one = noisy_gradient_descent(X, y, epsilon=1.0, delta=1e-5, iterations=5, clip=1.0, rng=1, X_test=Xt, y_test=yt)
    assert one.weights.shape == (5,) and one.draws is None
    assert one.predict(Xt).shape == (200,) and set(np.unique(one.predict(Xt))) <= {0, 1}
    assert isinstance(one.accuracy(Xt, yt), float)
    assert one.coef.shape == (4,) and isinstance(one.intercept, float)
    assert list(one.history["step"]) == list(range(6))
    assert one.history["test_accuracy"].iloc[-1] == pytest.approx(one.accuracy(Xt, yt), abs=1e-15)
    many = noisy_gradient_descent(
        X, y, epsilon=1.0, delta=1e-5, iterations=5, clip=1.0, rng=1, draws=6, X_test=Xt, y_test=yt
    )
    assert many.weights.shape == (6, 5) and many.draws == 6
    assert many.predict(Xt).shape == (6, 200) and many.accuracy(Xt, yt).shape == (6,)
    assert len(many.history) == 6 * 6 and set(many.history["draw"]) == set(range(6))
    assert len({tuple(w) for w in many.weights}) == 6  # independent noise per draw
    assert many.epsilon == pytest.approx(1.0, rel=1e-9) and many.delta == 1e-5
    with pytest.raises(ValueError):
        many.weights[0, 0] = 1.0  # read-only


def test_history_reports_the_clipped_fraction_under_gradient_clipping(rng):
    X, y = _isotropic(rng, 300)
    h = noisy_gradient_descent(X, y, epsilon=1.0, delta=1e-5, iterations=3, clip=0.2, rng=1).history
    assert h["clipped_fraction"].iloc[0] == 1.0  # at w = 0 every |g| = |0.5| ||x~|| > 0.2 here
    assert h["clipped_fraction"].iloc[:-1].between(0, 1).all()
    e = noisy_gradient_descent(X, y, epsilon=1.0, delta=1e-5, iterations=3, clip=0.2, rng=1, clipping="example").history
    assert e["clipped_fraction"].isna().all()


def test_example_clipping_model_applies_its_row_scaling(rng):
    X, y = _isotropic(rng, 300)
    r = noisy_gradient_descent(X, y, epsilon=5.0, delta=1e-5, iterations=20, clip=0.5, rng=2, clipping="example")
    rows = np.hstack([X, np.ones((300, 1))])
    rows = rows * np.minimum(1.0, 0.5 / np.linalg.norm(rows, axis=1))[:, None]
    np.testing.assert_allclose(r.predict_proba(X), 1 / (1 + np.exp(-rows @ r.weights)), rtol=1e-12)
    assert np.array_equal(r.predict(X), (np.hstack([X, np.ones((300, 1))]) @ r.weights > 0).astype(int))


# ------------------------------------------------------------------ accuracy against epsilon and iterations


def test_accuracy_falls_as_epsilon_falls(rng):
    X, y = _isotropic(rng, 1000)
    Xt, yt = _isotropic(rng, 5000)
    draws = 30
    table = epsilon_frontier(
        X, y, epsilons=[0.003, 0.03, 3.0], delta=1e-5, iterations=5, clip=1.0, rng=5, draws=draws, X_test=Xt, y_test=yt
    )
    summary = table.attrs["summary"]
    assert table.attrs["evaluated_on"] == "test" and len(table) == 3 * draws
    mean = summary["mean_accuracy"].to_numpy()
    se = summary["std_accuracy"].to_numpy() / math.sqrt(draws)
    for lo, hi in ((0, 1), (1, 2)):
        assert mean[hi] - mean[lo] > Z * math.hypot(se[lo], se[hi])
    # sigma per epsilon is the calibrated one
    for eps, sigma in zip(summary["epsilon"], summary["sigma"]):
        assert sigma == pytest.approx(noisy_gd_noise(eps, 1e-5, 5, 1.0).sigma, rel=1e-12)


def test_sweep_recalibrates_sigma_and_finds_the_best_iterations(rng):
    X, y = _ill_conditioned(rng, 600)
    Xt, yt = _ill_conditioned(rng, 4000)
    draws = 30
    sweep = iterations_sweep(
        X, y, epsilon=0.5, delta=1e-5, iterations=[50, 2, 10], clip=1.0, rng=3, draws=draws,
        X_test=Xt, y_test=yt, learning_rate=2.0,
    )  # fmt: skip
    s = sweep.summary
    assert list(s["iterations"]) == [2, 10, 50] and len(sweep.table) == 3 * draws
    for T, sigma in zip(s["iterations"], s["sigma"]):
        assert sigma == pytest.approx(noisy_gd_noise(0.5, 1e-5, int(T), 1.0).sigma, rel=1e-12)
    assert sweep.best_iterations == int(s.loc[s["mean_accuracy"].idxmax(), "iterations"])
    # on this ill-conditioned problem more iterations help at first, although each is noisier
    mean, se = s["mean_accuracy"].to_numpy(), s["std_accuracy"].to_numpy() / math.sqrt(draws)
    assert mean[2] - mean[0] > Z * math.hypot(se[0], se[2])
    assert np.isfinite(sweep.table["loss"]).all()


def test_sweep_runs_share_one_loop_but_match_separate_runs_in_law(rng):
    # the T = 3 models of a sweep with T in {3, 30} follow the same law as a plain T = 3 run:
    # compare mean weights of many draws (each coordinate within 5 standard errors of the difference)
    X, y = _isotropic(rng, 200)
    draws = 2000
    sweep_models = iterations_sweep(X, y, epsilon=1.0, delta=1e-5, iterations=[3, 30], clip=1.0, rng=11, draws=draws)
    assert set(sweep_models.table["iterations"]) == {3, 30}
    plain = noisy_gradient_descent(
        X, y, epsilon=1.0, delta=1e-5, iterations=3, clip=1.0, rng=12, draws=draws, history_every=0
    )
    plain_acc = plain.accuracy(X, y)
    swept = sweep_models.table.loc[sweep_models.table["iterations"] == 3, "accuracy"].to_numpy()
    se = math.hypot(plain_acc.std(ddof=1), swept.std(ddof=1)) / math.sqrt(draws)
    assert abs(plain_acc.mean() - swept.mean()) < Z * se


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"epsilon": 0.0}, ValueError, r"epsilon must be in \(0, inf\), got 0.0"),
        ({"delta": 1.0}, ValueError, r"delta must be in \(0, 1\), got 1.0"),
        ({"iterations": 0}, ValueError, r"iterations must be an integer in \[1, 100000\], got 0"),
        ({"clip": -1.0}, ValueError, r"clip must be in \(0, inf\), got -1.0"),
        ({"clipping": "rows"}, ValueError, "clipping must be one of 'gradient', 'example', got 'rows'"),
        ({"neighbours": "swap"}, ValueError, "neighbours must be one of"),
        (
            {"accounting": "moments"},
            ValueError,
            "accounting must be one of 'basic', 'advanced', 'rdp', 'zcdp', 'exact', 'pld', got 'moments'",
        ),
        ({"learning_rate": 0}, ValueError, r"learning_rate must be in \(0, inf\), got 0.0"),
        ({"draws": 0}, ValueError, r"draws must be an integer in \[1, 10000000\], got 0"),
        ({"rng": "seed"}, TypeError, "rng must be a numpy.random.Generator or an int seed, got str"),
        ({"X_test": np.zeros((3, 4))}, ValueError, "X_test and y_test must be given together, got y_test=None"),
        ({"X_test": np.zeros((3, 2)), "y_test": [0, 1, 0]}, ValueError, r"X_test must have 4 feature column\(s\)"),
    ],
)
def test_bad_arguments_get_one_sentence(rng, change, error, message):
    X, y = _isotropic(rng, 50)
    kwargs = dict(epsilon=1.0, delta=1e-5, iterations=3, clip=1.0, rng=0) | change
    with pytest.raises(error, match=message):
        noisy_gradient_descent(X, y, **kwargs)


@pytest.mark.parametrize(
    "X, y, error, message",
    [
        ([[0.0, np.nan], [1.0, 2.0]], [0, 1], ValueError, r"X must not contain NaN, got 1 NaN value\(s\)"),
        ([[0.0, np.inf], [1.0, 2.0]], [0, 1], ValueError, r"X must be finite, got 1 infinite value\(s\)"),
        (
            [[0.0], [1.0]],
            [1, 1],
            ValueError,
            "y must contain both classes 0 and 1 to train a classifier, got only class 1",
        ),
        ([[0.0], [1.0]], [0, 2], ValueError, "y must hold labels 0 or 1, got 2.0"),
        ([[0.0], [1.0]], [0, 1, 1], ValueError, r"y must have one label per row of the features \(2\), got 3"),
        ([0.0, 1.0], [0, 1], ValueError, r"X must be a 2-D array \(rows x features\), got 1 dimension\(s\)"),
        (np.zeros((2, 0)), [0, 1], ValueError, "X must have at least one feature column, got 0"),
        ([["a"], ["b"]], [0, 1], TypeError, "X must be a 2-D array of numbers"),
        ([[0.0], [1.0]], ["no", "yes"], TypeError, "y must hold 0/1 labels"),
    ],
)
def test_bad_data_gets_one_sentence(X, y, error, message):
    with pytest.raises(error, match=message):
        noisy_gradient_descent(X, y, epsilon=1.0, delta=1e-5, iterations=2, clip=1.0, rng=0)


def test_boolean_labels_are_accepted(rng):
    X, y = _isotropic(rng, 100)
    a = noisy_gradient_descent(X, y.astype(bool), epsilon=1.0, delta=1e-5, iterations=2, clip=1.0, rng=0)
    b = noisy_gradient_descent(X, y, epsilon=1.0, delta=1e-5, iterations=2, clip=1.0, rng=0)
    assert np.array_equal(a.weights, b.weights)
