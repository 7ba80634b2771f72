"""One contract for every registered family (dpcore.families): errors, validation, simulation law, audit."""

import math

import numpy as np
import pytest
from scipy import stats

from dpcore import families
from dpcore.accounting.per_release import accountable, accounting_for, relation_of
from dpcore.audit import CATALOGUE, audit
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE

FAMILIES = list(families.FAMILIES.values())
IDS = [f.key for f in FAMILIES]
TRUE = np.array([5_000, 2_000, 800, 200])  # counts large enough for the oracles' normal approximation
DELTA = 1e-5


def counts(f, epsilon=1.0, k=TRUE.size, relation=REPLACE_ONE):
    return f.counts(epsilon, k, delta=DELTA if f.takes_delta else None, relation=relation)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_every_family_names_itself_and_its_sources(f):
    assert families.family(f.key) is f and families.family(f) is f
    assert f.model in (families.CENTRAL, families.LOCAL)
    assert f.name and f.title and f.source and f.colour.startswith("#") and len(f.colour) == 7
    assert f.audit in CATALOGUE
    assert (f.norm is None) == (f.model == families.LOCAL)
    assert f.key in families.keys(f.model) and f.key in families.keys()


def test_families_have_distinct_keys_names_and_colours():
    for attr in ("key", "name", "colour"):
        values = [getattr(f, attr) for f in FAMILIES]
        assert len(set(values)) == len(values), attr


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
@pytest.mark.parametrize("epsilon", [0.0, -1.0, math.nan, math.inf])
def test_a_bad_epsilon_is_refused_in_the_house_form(f, epsilon):
    with pytest.raises(ValueError, match=r"^epsilon must be in \(0, inf\), got"):
        counts(f, epsilon)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_a_bad_k_and_a_missing_delta_are_refused(f):
    with pytest.raises(ValueError, match=r"^k must be"):
        f.counts(1.0, 1, delta=DELTA)
    with pytest.raises(ValueError, match=r"^k must be an integer, got 2.5"):
        f.counts(1.0, 2.5, delta=DELTA)
    with pytest.raises(TypeError, match=r"^k must be an integer, got '3'"):
        f.counts(1.0, "3", delta=DELTA)
    if f.takes_delta:
        with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\)"):
            f.counts(1.0, 3)
        with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\)"):
            f.counts(1.0, 3, delta=1.5)
        assert f.privacy(1.0, DELTA) == (1.0, DELTA)
    else:
        assert f.privacy(1.0, DELTA) == (1.0, 0.0) and f.delta(DELTA) is None


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_only_central_families_give_the_noise_of_one_query(f):
    if f.model == families.LOCAL:
        with pytest.raises(TypeError, match="^mechanism must be an additive"):
            f.noise(1.0, 1.0)
    else:
        noise = f.noise(2.0, 3.0, DELTA)
        assert relation_of(noise)[0] == ADD_REMOVE and accounting_for(accountable(noise))  # every accountant takes it


def test_an_unknown_family_is_refused_naming_the_registered_ones():
    with pytest.raises(ValueError, match=r"^mechanism must be one of 'grr', .*'staircase', got 'cauchy'"):
        families.family("cauchy")


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_the_histogram_sensitivity_follows_the_relation_in_the_familys_norm(f):
    central = counts(f, relation=ADD_REMOVE)
    replace = counts(f, relation=REPLACE_ONE)
    if f.model == families.LOCAL:  # a device's report: the relation does not change the oracle
        assert central.mechanism == replace.mechanism
    else:  # twice (L1) or √2 (L2) the noise under replace one
        ratio = replace.std(TRUE)[0] / central.std(TRUE)[0]
        if f.name == "Gaussian":
            assert ratio == pytest.approx(math.sqrt(2), rel=1e-12)
        elif f.norm == "L1":
            # Laplace scales exactly; the staircase has the law of its steps, which scale with Δ
            assert ratio == pytest.approx(2.0, rel=1e-12)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_simulated_counts_follow_the_stated_std_and_error_bound(f):
    # sample variance against the stated one: tolerance 5 standard errors of the sample variance,
    # estimated from the sample's own fourth moment (any law, heavy tails included)
    m = counts(f, epsilon=1.0)
    trials = 20_000
    sims = m.simulate(TRUE, np.random.default_rng(7), trials)
    assert sims.shape == (trials, TRUE.size)
    errors = sims - TRUE
    std = m.std(TRUE)
    for j in range(TRUE.size):
        e = errors[:, j]
        var = e.var()
        se = math.sqrt(max(np.mean((e - e.mean()) ** 4) - var * var, 0.0) / trials)
        assert abs(var - std[j] ** 2) <= 5 * se, (f.key, j, var, std[j] ** 2, se)
        assert abs(e.mean()) <= 5 * std[j] / math.sqrt(trials)  # unbiased
    # coverage of the 90% error bound: binomial tolerance, 5 standard errors
    bound = m.error_bound(TRUE, 0.9)
    inside = np.mean(np.abs(errors) <= bound, axis=0)
    assert np.all(np.abs(inside - 0.9) <= 5 * math.sqrt(0.09 / trials) + 0.01 * (f.model == families.LOCAL)), inside


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_one_release_from_codes_is_unbiased(f):
    codes = np.repeat(np.arange(TRUE.size), TRUE)
    m = counts(f, epsilon=2.0)
    releases = np.array([m.release(codes, np.random.default_rng(s)) for s in range(200)])
    assert releases.shape == (200, TRUE.size)
    se = m.std(TRUE) / math.sqrt(200)
    assert np.all(np.abs(releases.mean(axis=0) - TRUE) <= 5 * se)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_epsilon_for_accuracy_inverts_the_error_bound(f):
    m = counts(f, epsilon=1.5)
    if f.model == families.LOCAL:
        target = float(m.error_bound(TRUE, 0.95).max())
        eps = f.epsilon_for_accuracy(target, 0.95, true_counts=TRUE)
        with pytest.raises(ValueError, match="^true_counts must be given"):
            f.epsilon_for_accuracy(target, 0.95)
    else:
        target = float(m.error_bound(TRUE, 0.95)[0])
        sens = f.histogram_sensitivity(REPLACE_ONE)
        eps = f.epsilon_for_accuracy(target, 0.95, sensitivity=sens, delta=DELTA if f.takes_delta else None)
    assert eps == pytest.approx(1.5, rel=1e-6)


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_the_audit_of_every_family_stays_below_its_claim(f):
    params = {"delta": DELTA} if f.takes_delta else {}
    result = audit(f.audit, 1.0, trials=100_000, rng=11, **params)
    assert result.epsilon_lower <= 1.0, result
    assert not result.violated


def test_the_staircase_audit_is_tight():
    # the staircase's likelihood ratio is exactly e^ε on half the line (its density drops by e^-ε per step):
    # at 10⁶ runs the Clopper–Pearson lower bound comes close to the claim
    result = audit("staircase_count", 1.0, trials=1_000_000, rng=3)
    assert 0.9 <= result.epsilon_lower <= 1.0, result


def test_the_local_families_answer_a_histogram_by_randomizing_each_value():
    codes = np.repeat(np.arange(3), [50, 30, 20])
    m = families.family("grr").counts(1.0, 3)
    one = m.release(codes, np.random.default_rng(0))
    assert one.shape == (3,) and not np.array_equal(one, [50, 30, 20])
    assert stats.describe(one).nobs == 3


@pytest.mark.parametrize("f", FAMILIES, ids=IDS)
def test_every_family_knows_its_own_mechanisms_and_says_them_in_words(f):
    m = counts(f, epsilon=1.5).mechanism
    assert isinstance(m, f.kind) and families.family_of(m) is f
    spread = f.noise_parameter(m)
    if spread is None:  # no one parameter sets the spread (an oracle, the staircase): its ε, and an oracle's values
        values = f", {TRUE.size} categories" if f.model == families.LOCAL else ""
        assert f.describe(m) == f"{f.name}, ε = 1.5{values}"
    else:  # the parameter named is the textbook's: Laplace's std is √2·b (scale b), the Gaussian's is σ
        assert f.describe(m) == f"{f.name}, {spread.symbol} = {spread.value:.4g}"
        assert float(m.std) == pytest.approx({"b": math.sqrt(2), "σ": 1.0}[spread.symbol] * spread.value, rel=1e-12)
        assert spread.words.endswith(spread.symbol)
    other = counts(next(g for g in FAMILIES if g.kind is not f.kind)).mechanism
    with pytest.raises(TypeError, match=f"^mechanism must be a {f.name} mechanism, got {type(other).__name__}$"):
        f.describe(other)


def test_a_mechanism_of_no_family_has_none_and_a_subclass_keeps_its_parents():
    from dpcore.accounting.events import PureDP
    from dpcore.laplace import Laplace

    class Scaled(Laplace):  # a subclass not registered on its own: still Laplace noise
        pass

    assert families.family_of(PureDP(1.0)) is None and families.family_of("laplace") is None
    assert families.family_of(Scaled(2.0)) is families.family("laplace")
