import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dpcore import GRR, Gaussian, Laplace
from dpcore.accounting import (
    DEFAULT_ORDERS,
    METHODS,
    OrderGridEdgeWarning,
    advanced_composition,
    epsilon_curve,
    gaussian_epsilon,
    methods_for,
    plan_epsilon,
    plan_noise,
    vectorised_vs_sequential,
)
from dpcore.limits import MAX_PLAN_NOISE, MIN_PLAN_NOISE

MECHANISMS = [Laplace(scale=5.0), Gaussian(sigma=3.0), GRR(0.5, 4)]


def _curves(df):
    return {m: g.sort_values("k")["epsilon"].to_numpy() for m, g in df.groupby("method", sort=False)}


def test_tidy_shape_and_order():
    df = epsilon_curve(Gaussian(5.0), [3, 1, 2], 1e-5, methods=["exact", "rdp"])
    assert list(df.columns) == ["k", "method", "epsilon"]
    assert df["k"].tolist() == [3, 1, 2, 3, 1, 2]  # k as given, methods in the order given
    assert df["method"].tolist() == ["exact"] * 3 + ["rdp"] * 3
    assert pd.api.types.is_integer_dtype(df["k"]) and pd.api.types.is_float_dtype(df["epsilon"])


def test_default_methods_are_the_tight_one_plus_the_classics():
    assert epsilon_curve(Gaussian(5.0), [1], 1e-5)["method"].tolist() == ["basic", "advanced", "rdp", "zcdp", "exact"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        assert epsilon_curve(Laplace(5.0), [1], 1e-5)["method"].tolist() == ["basic", "advanced", "rdp", "zcdp", "pld"]
    assert methods_for(GRR(1.0, 3)) == ("basic", "advanced", "rdp", "zcdp", "pld")
    assert methods_for(Gaussian(1.0)) == METHODS


def test_reference_values_gaussian_sigma5_k10():
    # published: exact 2.59438; RDP (Balle) 2.8137; zCDP (Bun-Steinke) 3.2349
    df = epsilon_curve(Gaussian(5.0), [10], 1e-5, methods=["exact", "rdp"])
    assert round(df["epsilon"][0], 5) == 2.59438
    assert round(df["epsilon"][1], 4) == 2.8137
    bs = epsilon_curve(Gaussian(5.0), [10], 1e-5, methods=["zcdp"], zcdp_conversion="bun-steinke")
    assert round(bs["epsilon"][0], 4) == 3.2349


def test_reference_values_pure_composition():
    # published: eps0 = 0.1, k = 100, delta' = 1e-5: basic 10, advanced 5.850
    df = epsilon_curve(Laplace(scale=10.0), [100], 1e-5, methods=["basic", "advanced"])
    assert df["epsilon"][0] == pytest.approx(10.0, rel=1e-14)
    assert round(df["epsilon"][1], 3) == 5.850


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=["laplace", "gaussian", "grr"])
def test_every_curve_is_non_decreasing_in_k(mechanism):
    # the shared contract every accountant must pass
    ks = np.unique(np.geomspace(1, 2000, 60).astype(int))
    closed = [m for m in methods_for(mechanism) if m != "pld"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        curves = _curves(epsilon_curve(mechanism, ks, 1e-6, methods=closed))
        curves.update(_curves(epsilon_curve(mechanism, ks[::6], 1e-6, methods=["pld"])))
    for method, eps in curves.items():
        assert np.all(np.isfinite(eps)) and np.all(eps >= 0), method
        assert np.all(np.diff(eps) >= -1e-9 * eps[1:]), method


def test_gaussian_ordering_exact_below_rdp_below_mironov():
    ks = np.arange(1, 10_001)
    g = Gaussian(5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        exact = epsilon_curve(g, ks, 1e-5, methods=["exact"])["epsilon"].to_numpy()
        rdp = epsilon_curve(g, ks, 1e-5, methods=["rdp"])["epsilon"].to_numpy()
        mironov = epsilon_curve(g, ks, 1e-5, methods=["rdp"], conversion="mironov")["epsilon"].to_numpy()
        zcdp = epsilon_curve(g, ks, 1e-5, methods=["zcdp"])["epsilon"].to_numpy()
    assert np.all(exact <= rdp) and np.all(rdp <= mironov)
    assert np.all(exact <= zcdp)
    np.testing.assert_allclose(exact, gaussian_epsilon(5.0, ks, 1e-5), rtol=1e-15)


def test_gaussian_pld_is_above_exact_and_within_one_percent():
    ks = [1, 10, 100]
    df = _curves(epsilon_curve(Gaussian(2.0), ks, 1e-6, methods=["exact", "pld"]))
    assert np.all(df["exact"] <= df["pld"]) and np.all(df["pld"] <= 1.01 * df["exact"])


def test_gaussian_basic_and_advanced_use_the_documented_delta_split():
    g, ks, delta = Gaussian(4.0), np.array([1, 5, 50]), 1e-5
    df = _curves(epsilon_curve(g, ks, delta, methods=["basic", "advanced"]))
    for i, k in enumerate(ks):
        # basic: each release charged delta/k; advanced: delta/(2k) per release and delta' = delta/2
        assert df["basic"][i] == pytest.approx(k * gaussian_epsilon(4.0, 1, delta / k), rel=1e-12)
        eps0 = gaussian_epsilon(4.0, 1, delta / (2 * k))
        assert df["advanced"][i] == pytest.approx(
            advanced_composition(eps0, delta / (2 * k), int(k), delta / 2)[0], rel=1e-12
        )


def test_pure_mechanisms_basic_is_k_epsilon_and_pld_is_best():
    from dpcore.accounting import pld_epsilon

    ks = np.array([1, 10, 100, 400])
    for mech, eps0 in [(Laplace(4.0, sensitivity=2.0), 0.5), (GRR(0.5, 4), 0.5)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OrderGridEdgeWarning)
            c = _curves(epsilon_curve(mech, ks, 1e-6, methods=["basic", "advanced", "rdp", "zcdp", "pld"]))
        np.testing.assert_allclose(c["basic"], ks * eps0, rtol=1e-14)
        best_other = np.minimum.reduce([c["basic"], c["advanced"], c["rdp"], c["zcdp"]])
        # every method is an upper bound on the exact eps, which is above the PLD's lower bound
        lower = pld_epsilon(mech, ks, 1e-6, _pessimistic=False)
        assert np.all(lower <= best_other)
        # the PLD upper bound exceeds the exact eps by its grid excess only (~0.2 %), so it wins
        # outright once the others' slack is larger: from a few tens of releases on
        assert np.all(c["pld"] <= best_other * 1.002)
        assert np.all(c["pld"][2:] < best_other[2:])


def test_grid_edge_is_reported_in_attrs_and_once_as_a_warning():
    with pytest.warns(OrderGridEdgeWarning) as record:
        df = epsilon_curve(Gaussian(300.0), [1, 2, 10_000], 1e-5, methods=["rdp"])
    assert len(record) == 1
    assert len(df.attrs["notes"]) == 1 and "edge of the order grid" in df.attrs["notes"][0]


def test_vectorised_vs_sequential_gaussian_exact_equals_vectorised():
    df = vectorised_vs_sequential(Gaussian(3.0), [1, 4, 100], 1e-5, methods=["basic", "exact"])
    vec = df[df["approach"] == "vectorised"]["epsilon"].to_numpy()
    exact = df[(df["approach"] == "sequential") & (df["method"] == "exact")]["epsilon"].to_numpy()
    basic = df[(df["approach"] == "sequential") & (df["method"] == "basic")]["epsilon"].to_numpy()
    # L2 sensitivity sqrt(k) D with noise sigma is sqrt(k) D / sigma-GDP: the same as k releases
    np.testing.assert_allclose(vec, exact, rtol=1e-12)
    assert np.all(basic[1:] > vec[1:])
    assert list(df.columns) == ["k", "approach", "method", "epsilon"]
    assert set(df[df["approach"] == "vectorised"]["method"]) == {"L2 sensitivity"}


def test_vectorised_vs_sequential_laplace():
    df = vectorised_vs_sequential(Laplace(10.0), [1, 100, 1000], 1e-6, methods=["basic", "advanced"])
    vec = df[df["approach"] == "vectorised"]["epsilon"].to_numpy()
    np.testing.assert_allclose(vec, [0.1, 10.0, 100.0], rtol=1e-14)  # L1 sensitivity k D
    adv = df[df["method"] == "advanced"]["epsilon"].to_numpy()
    assert adv[-1] < vec[-1]  # with delta > 0, separate releases are cheaper for large k
    with pytest.raises(ValueError, match="Laplace or a Gaussian"):
        vectorised_vs_sequential(GRR(1.0, 3), [1], 1e-5)


@pytest.mark.parametrize("method", ["basic", "advanced", "rdp", "zcdp", "pld"])
def test_plan_noise_laplace_round_trip(method):
    mech = plan_noise("laplace", 2.0, 1e-6, 40, method, sensitivity=3.0)
    assert isinstance(mech, Laplace) and mech.sensitivity == 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        eps = epsilon_curve(mech, [40], 1e-6, methods=[method])["epsilon"][0]
    assert eps == pytest.approx(2.0, rel=1e-5)


@pytest.mark.parametrize("method", ["basic", "advanced", "rdp", "zcdp", "exact", "pld"])
def test_plan_noise_gaussian_round_trip(method):
    mech = plan_noise("gaussian", 1.5, 1e-5, 20, method, sensitivity=2.0)
    assert isinstance(mech, Gaussian) and mech.sensitivity == 2.0
    eps = epsilon_curve(mech, [20], 1e-5, methods=[method])["epsilon"][0]
    assert eps == pytest.approx(1.5, rel=1e-5)


def test_plan_noise_tighter_accounting_needs_less_noise():
    sigmas = {m: plan_noise("gaussian", 1.0, 1e-5, 100, m).sigma for m in ("exact", "rdp", "zcdp", "basic")}
    # zCDP with the CKS conversion optimises over real orders, RDP over the grid: for the
    # Gaussian (RDP curve = rho alpha) zCDP is the slightly tighter of the two
    assert sigmas["exact"] < sigmas["zcdp"] <= sigmas["rdp"] < sigmas["basic"]
    assert plan_noise("laplace", 1.0, 1e-5, 10, "basic").scale == pytest.approx(10.0, rel=1e-15)


def test_curves_bad_input():
    with pytest.raises(
        ValueError, match=r"methods must be one of 'basic', 'advanced', 'rdp', 'zcdp', 'pld', got 'exact'"
    ):
        epsilon_curve(Laplace(1.0), [1], 1e-5, methods=["exact"])
    with pytest.raises(ValueError, match=r"methods must be one of .*'exact', 'pld', got 'moments'"):
        epsilon_curve(Gaussian(1.0), [1], 1e-5, methods=["moments"])
    with pytest.raises(ValueError, match=r"ks must be an integer in \[1, 10000000\], got 0"):
        epsilon_curve(Gaussian(1.0), [0, 1], 1e-5)
    with pytest.raises(ValueError, match=r"ks must be an integer, got 2.5"):
        epsilon_curve(Gaussian(1.0), [2.5], 1e-5)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 1.0"):
        epsilon_curve(Gaussian(1.0), [1], 1.0)
    with pytest.raises(ValueError, match=r"conversion must be one of 'balle', 'mironov', got 'x'"):
        epsilon_curve(Gaussian(1.0), [1], 1e-5, conversion="x")
    with pytest.raises(ValueError, match=r"zcdp_conversion must be one of 'cks', 'bun-steinke', got 'x'"):
        epsilon_curve(Gaussian(1.0), [1], 1e-5, zcdp_conversion="x")
    with pytest.raises(ValueError, match=r"orders must be in \(1, inf\), got 1.0"):
        epsilon_curve(Gaussian(1.0), [1], 1e-5, orders=[1.0, 2.0])
    with pytest.raises(
        TypeError, match="mechanism must be a dpcore Laplace, Gaussian, GRR, SUE, OUE, LDPMean or Staircase"
    ):
        epsilon_curve(object(), [1], 1e-5)
    with pytest.raises(ValueError, match=r"mechanism must be one of 'laplace', 'gaussian', got 'grr'"):
        plan_noise("grr", 1.0, 1e-5, 3)
    with pytest.raises(
        ValueError, match=r"method must be one of 'basic', 'advanced', 'rdp', 'zcdp', 'pld', got 'exact'"
    ):
        plan_noise("laplace", 1.0, 1e-5, 3, "exact")
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 10000000\], got 0"):
        plan_noise("laplace", 1.0, 1e-5, 0)


def test_plan_noise_refuses_an_epsilon_rdp_cannot_certify_instead_of_searching_forever():
    # a zero RDP curve still converts to eps_floor = min_a ln((a-1)/a) - (ln d + ln a)/(a-1) > 0.01 at d = 1e-10
    a = DEFAULT_ORDERS
    floor = np.max([np.min(np.log1p(-1 / a) - (np.log(1e-10) + np.log(a)) / (a - 1)), 0.0])
    assert floor > 0.01
    for family in ("laplace", "gaussian"):
        with pytest.raises(ValueError, match=rf"epsilon must be above {floor:.4g} for rdp accounting at delta=1e-10"):
            plan_noise(family, 0.01, 1e-10, 1, "rdp")
    # just above the floor a plan exists, and its curve reaches the target
    mech = plan_noise("gaussian", 1.5 * floor, 1e-10, 1, "rdp")
    with pytest.warns(OrderGridEdgeWarning):  # near the floor the best order is the largest
        reached = epsilon_curve(mech, [1], 1e-10, ["rdp"])["epsilon"].iloc[0]
    assert reached == pytest.approx(1.5 * floor, rel=1e-9)


def test_root_search_gives_up_with_a_sentence():
    from dpcore.accounting.curves import _root_on_log

    with pytest.raises(ValueError, match="no noise level reaches this epsilon"):
        _root_on_log(lambda x: 1.0, 1.0, 1e-12)  # never changes sign


# ---------------------------------------------------------------- the total ε of k answers from the accuracy each needs

PLAN_CASES = [("laplace", m) for m in ("basic", "advanced", "rdp", "zcdp", "pld")] + [("gaussian", m) for m in METHODS]


@pytest.mark.parametrize("family, method", PLAN_CASES)
@pytest.mark.parametrize("k", [1, 10, 200])
def test_plan_epsilon_is_the_inverse_of_plan_noise(family, method, k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OrderGridEdgeWarning)
        df = plan_epsilon(family, 5.0, k, 1e-6, confidence=0.9, sensitivity=2.0, methods=[method])
        (row,) = df.itertuples()
        back = plan_noise(family, row.epsilon, 1e-6, k, method, 2.0)
    assert (back.scale if family == "laplace" else back.sigma) == pytest.approx(row.noise, rel=1e-6)
    # and that noise meets the accuracy exactly: ±5 at 90 %
    assert df.attrs["mechanism"].error_bound(0.9) == pytest.approx(5.0, rel=1e-12)


def test_plan_epsilon_table_and_closed_forms():
    df = plan_epsilon("laplace", 3.0, 10, 1e-5, sensitivity=2.0, methods=["basic", "zcdp"])
    assert list(df.columns) == ["method", "epsilon", "noise"] and df["method"].tolist() == ["basic", "zcdp"]
    b = 3.0 / np.log(20.0)  # P(|Lap(b)| > t) = e^{−t/b} = 0.05
    np.testing.assert_allclose(df["noise"], b, rtol=1e-15)
    assert df["epsilon"][0] == pytest.approx(10 * 2.0 / b, rel=1e-14)  # basic: k Δ / b
    g = plan_epsilon("gaussian", 3.0, 10, 1e-5, methods="exact")
    sigma = 3.0 / 1.959963984540054  # σ = t / Φ⁻¹(0.975)
    assert g["noise"][0] == pytest.approx(sigma, rel=1e-14)
    assert g["epsilon"][0] == pytest.approx(gaussian_epsilon(sigma, 10, 1e-5), rel=1e-12)
    # defaults: the methods of epsilon_curve, and the tighter accountings need less ε for the same accuracy
    d = plan_epsilon("gaussian", 3.0, 50, 1e-5).set_index("method")["epsilon"]
    assert list(d.index) == ["basic", "advanced", "rdp", "zcdp", "exact"]
    assert d["exact"] <= d["rdp"] <= d["basic"]


def test_plan_epsilon_more_accuracy_costs_more_epsilon():
    eps = [plan_epsilon("gaussian", a, 20, 1e-6, methods="exact")["epsilon"][0] for a in (0.5, 1.0, 2.0, 4.0)]
    assert np.all(np.diff(eps) < 0)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"mechanism": "cauchy"}, "mechanism must be one of"),
        ({"accuracy": 0.0}, r"accuracy must be in \(0, inf\), got 0.0"),
        ({"k": 0}, r"k must be an integer in \[1, 10000000\], got 0"),
        ({"delta": 1.0}, r"delta must be in \(0, 1\), got 1.0"),
        ({"confidence": 1.0}, r"confidence must be in \(0, 1\), got 1.0"),
        ({"methods": ["exact"]}, "methods must be one of"),  # no exact accounting for Laplace
    ],
)
def test_plan_epsilon_bad_input(kwargs, message):
    args = {"mechanism": "laplace", "accuracy": 1.0, "k": 5, "delta": 1e-6} | kwargs
    with pytest.raises(ValueError, match=message):
        plan_epsilon(**args)


@pytest.mark.parametrize("family", ["laplace", "gaussian"])
@pytest.mark.parametrize("accuracy", [1e-320, 5e-324, 1e-300, 1e300])
@pytest.mark.parametrize("sensitivity", [1.0, 2.0])
def test_plan_epsilon_states_its_range_for_any_accuracy(family, accuracy, sensitivity):
    # The range of accuracies is the noise range [MIN_PLAN_NOISE, MAX_PLAN_NOISE] times the sensitivity, times the
    # accuracy per unit of noise (ln 20 for Laplace, Φ⁻¹(0.975) for the Gaussian, at 95%), whatever accuracy was
    # given: a subnormal one (1e-320) once garbled the range to [0, 2.99e+08] and 5e-324 gave "scale must be in
    # (0, inf), got 0.0".
    per_noise = math.log(20) if family == "laplace" else stats.norm.ppf(0.975)
    low, high = MIN_PLAN_NOISE * sensitivity * per_noise, MAX_PLAN_NOISE * sensitivity * per_noise
    with pytest.raises(ValueError, match=r"^accuracy must be in \[") as caught:
        plan_epsilon(family, accuracy, 5, 1e-6, sensitivity=sensitivity)
    stated = re.fullmatch(r"accuracy must be in \[(\S+), (\S+)\], got (\S+)", str(caught.value))
    assert stated, str(caught.value)
    lo, hi = float(stated[1]), float(stated[2])
    assert low <= lo <= low * 1.01 and high * 0.99 <= hi <= high  # three digits, rounded inwards
    assert float(stated[3]) == pytest.approx(accuracy, rel=1e-2)
    for end in (lo, hi):  # the ends stated are accepted
        plan_epsilon(family, end, 5, 1e-6, sensitivity=sensitivity, methods="basic" if family == "laplace" else "exact")
