"""dpcore.publish: exact noise from secure bits, on a lattice; the three attacks on the old release recover nothing.

The issue ("A publication that stays private") recovered the true count from the explorer's old release three
ways: (a) rerun the release with the session seed on a dummy table and subtract the noise; (b) ε-doubling,
``2·r(ε=1) − r(ε=0.5)``, since halving ε exactly doubled the same noise draw; (c) two conditions at the same ε
shared a noise draw, so their difference was exact. Each attack is run here twice: against the seeded
simulation, where it recovers the truth exactly (the negative control: the attack code works), and against
:mod:`dpcore.publish`, where its error has the variance of independent noises.

The draws are not seedable; the significance reasoning (each check fails a correct implementation with
probability at most 5.7e-7, fewer than 100 checks over this file and tests/test_randomness.py, so a run fails
by chance less than once in 10⁴) is in tests/test_randomness.py. Variances are checked through the mean of
squares of zero-mean noise: its standard error ``√((m₄ − m₂²)/n)``, and the skewness and kurtosis that move its
5σ quantiles (Cornish–Fisher), come from the exact law (cumulants summed from the pmf, added over the
independent terms of an attack's combination), so the tolerances are derived, not tuned. Coincidences are
bounded by the binomial law of independent draws, whose chance of equality is summed from the pmf.
"""

import hashlib
import inspect
import math
import os
import random
from dataclasses import dataclass

import numpy as np
import pytest
from scipy import stats

from dpcore import publish
from dpcore.clipping import evenly_spaced_candidates
from dpcore.discrete import DiscreteGaussian, DiscreteLaplace
from dpcore.lattice import lattice_mechanism
from dpcore.queries import dp_category_counts, dp_count, dp_count_matching, dp_histogram, dp_sum
from dpcore.randomness import Randomness, SecureGenerator
from tests.test_randomness import P_FLOOR, chi2_pvalue
from tests.tolerances import Z

# the app seeds a page's simulation with [session seed, Σ ord(page salt)] (explorer.state.seed_words); 2017 is
# its default session seed, in every shared link and snippet that does not change it
APP_SEEDS = [2017, [2017, sum(map(ord, "central"))], [0, sum(map(ord, "central"))], [2017, sum(map(ord, "compare"))]]


# ---------------------------------------------------------------------- the laws' moments


@dataclass(frozen=True)
class Moments:
    """The even cumulants κ₂, κ₄, κ₆, κ₈ of a symmetric noise of mean zero: they add over independent terms, and
    ``κ_r(aX) = a^r κ_r(X)``, so a combination of independent noises (2·Z₁ − Z₂, Z_a − Z_b) has them exactly."""

    k2: float
    k4: float
    k6: float
    k8: float

    def times(self, a: float) -> "Moments":
        return Moments(a**2 * self.k2, a**4 * self.k4, a**6 * self.k6, a**8 * self.k8)

    def __add__(self, other: "Moments") -> "Moments":
        return Moments(self.k2 + other.k2, self.k4 + other.k4, self.k6 + other.k6, self.k8 + other.k8)

    @property
    def var(self) -> float:
        return self.k2

    def raw(self) -> tuple[float, float, float, float]:
        """``E[X²], E[X⁴], E[X⁶], E[X⁸]`` from the cumulants (odd ones are zero)."""
        k2, k4, k6, k8 = self.k2, self.k4, self.k6, self.k8
        m4 = k4 + 3 * k2**2
        m6 = k6 + 15 * k4 * k2 + 15 * k2**3
        m8 = k8 + 28 * k6 * k2 + 35 * k4**2 + 210 * k4 * k2**2 + 105 * k2**4
        return k2, m4, m6, m8


def law_moments(law, grid: float = 1.0) -> Moments:
    """The exact even cumulants of a discrete Laplace or Gaussian law, in the answer's units (``grid`` per step).

    Summed from the pmf over ``|y| ≤ 40 sd + 40`` (beyond, the mass is below e⁻⁵⁶ for the Laplace, e⁻⁸⁰⁰ for the
    Gaussian). Check: the Laplace of scale 1 has m = 2, 24, 720, 40320 and κ = 2, 12, 240, 10080.
    """
    half = int(40 * math.sqrt(law.variance)) + 40
    y = np.arange(-half, half + 1, dtype=np.float64) * grid
    p = np.exp(law.log_pmf(np.arange(-half, half + 1, dtype=np.float64)))
    m2, m4, m6, m8 = (float(np.sum(y**r * p)) for r in (2, 4, 6, 8))
    return Moments(
        m2,
        m4 - 3 * m2**2,
        m6 - 15 * m4 * m2 + 30 * m2**3,
        m8 - 28 * m6 * m2 - 35 * m4**2 + 420 * m4 * m2**2 - 630 * m2**4,
    )


def within_z(z: float, skew: float, kurt: float) -> bool:
    """Whether a standardised mean lies between its P_FLOOR/2 and 1 − P_FLOOR/2 quantiles.

    The normal ±Z, corrected for the skewness ``skew`` and excess kurtosis ``kurt`` of the mean by the
    Cornish–Fisher expansion ``w = z + (z² − 1)γ/6 + (z³ − 3z)κ/24 − (2z³ − 5z)γ²/36`` (Abramowitz & Stegun
    26.2.49). A mean of n squared Laplace draws has γ ≈ 6.6/√n: at n = 1,000 the plain ±5 would put the upper
    tail at about 1.4e-6 instead of 2.9e-7.
    """

    def cf(q: float) -> float:
        return q + (q * q - 1) * skew / 6 + (q**3 - 3 * q) * kurt / 24 - (2 * q**3 - 5 * q) * skew * skew / 36

    return cf(-Z) <= z <= cf(Z)


def assert_variance(noise, law: Moments) -> None:
    """``mean(noise²)`` equals ``law.var`` (noise of mean zero): the mean of n squares ``Y = X²`` has standard
    error ``√((m₄ − m₂²)/n)``, skewness and excess kurtosis from ``m₆`` and ``m₈``, all exact from the law."""
    noise = np.asarray(noise, dtype=np.float64).ravel()
    n = noise.size
    m2, m4, m6, m8 = law.raw()
    var_y = m4 - m2**2
    skew = (m6 - 3 * m2 * m4 + 2 * m2**3) / var_y**1.5 / math.sqrt(n)
    kurt = ((m8 - 4 * m2 * m6 + 6 * m2**2 * m4 - 3 * m2**4) / var_y**2 - 3) / n
    z = (np.mean(noise * noise) - m2) / math.sqrt(var_y / n)
    assert within_z(z, skew, kurt), f"mean square {np.mean(noise * noise):.6g} against {m2:.6g} ({z:+.1f} s.e.)"


def assert_mean_zero(noise, law: Moments) -> None:
    noise = np.asarray(noise, dtype=np.float64).ravel()
    z = noise.mean() / math.sqrt(law.var / noise.size)
    assert within_z(z, 0.0, law.k4 / law.k2**2 / noise.size), z


def assert_uncorrelated(x, y, law_x: Moments, law_y: Moments) -> None:
    """Sample correlation of n independent pairs: ``√n·r`` has variance 1 (E[X²Y²] = E[X²]E[Y²]) and the excess
    kurtosis of ``XY`` over n, ``(m₄ˣ m₄ʸ / (m₂ˣ m₂ʸ)² − 3)/n``."""
    x, y = np.asarray(x, dtype=np.float64).ravel(), np.asarray(y, dtype=np.float64).ravel()
    r = np.corrcoef(x, y)[0, 1]
    (mx2, mx4, _, _), (my2, my4, _, _) = law_x.raw(), law_y.raw()
    assert within_z(r * math.sqrt(x.size), 0.0, (mx4 * my4 / (mx2 * my2) ** 2 - 3) / x.size), r


def coincidence_bound(pairs: int, q: float) -> int:
    """The count of equal pairs that ``pairs`` independent pairs, equal each with probability ``q``, reach with
    probability below P_FLOOR: seeing that many means the draws are not independent."""
    return int(stats.binom.isf(P_FLOOR, pairs, q)) + 1


def collision_probability(law) -> float:
    """``Σ_y P[Y = y]²``: the chance that two independent draws of ``law`` are equal."""
    half = int(40 * math.sqrt(law.variance)) + 40
    p = np.exp(law.log_pmf(np.arange(-half, half + 1, dtype=np.float64)))
    return float(np.sum(p * p))


# ---------------------------------------------------------------------- the samplers' laws from secure bits


def law_pvalue(draws, law, min_expected: float = 20.0) -> float:
    """χ² p-value of integer ``draws`` against ``law``: one cell per integer of ``|y| ≤ 10 sd``, the two tails
    pooled, then adjacent cells merged until each expects at least ``min_expected`` draws."""
    n = draws.size
    half = int(10 * math.sqrt(law.variance)) + 2
    probs = np.exp(law.log_pmf(np.arange(-half, half + 1)))
    tail = max((1.0 - probs.sum()) / 2.0, 0.0)  # the laws are symmetric
    probs = np.concatenate([[tail], probs, [tail]])
    counts = np.bincount(np.clip(draws, -half - 1, half + 1) + half + 1, minlength=probs.size)
    cells_c, cells_p, acc_c, acc_p = [], [], 0, 0.0
    for c, p in zip(counts.tolist(), probs.tolist()):
        acc_c, acc_p = acc_c + c, acc_p + p
        if acc_p * n >= min_expected:
            cells_c.append(acc_c)
            cells_p.append(acc_p)
            acc_c, acc_p = 0, 0.0
    cells_c[-1] += acc_c
    cells_p[-1] += acc_p
    cells_p = np.array(cells_p)
    return chi2_pvalue(cells_c, cells_p / cells_p.sum())


@pytest.mark.parametrize(
    "law",
    [
        DiscreteLaplace(1),
        DiscreteLaplace(3),
        DiscreteLaplace(50),
        DiscreteGaussian(1),
        DiscreteGaussian(10),
        DiscreteGaussian(1000),
    ],
    ids=repr,
)
def test_exact_samplers_driven_by_secure_bits_follow_their_laws(law):
    draws = law.sample(SecureGenerator(), 200_000)
    assert draws.dtype == np.int64
    assert law_pvalue(draws, law) > P_FLOOR
    assert_variance(draws, law_moments(law))


def test_the_law_check_catches_a_wrong_scale():
    # negative controls: secure draws of one law against a neighbouring law (p-values far below 1e-50)
    g = SecureGenerator()

    class Laplace33:  # the discrete Laplace of scale 3.3 (no integer scale)
        variance = DiscreteLaplace(3).variance

        def log_pmf(self, y):
            return math.log(math.tanh(0.5 / 3.3)) - np.abs(np.asarray(y, dtype=np.float64)) / 3.3

    assert law_pvalue(DiscreteLaplace(3).sample(g, 200_000), Laplace33()) < P_FLOOR
    assert law_pvalue(DiscreteGaussian(10).sample(g, 200_000), DiscreteGaussian(11)) < P_FLOOR


# ---------------------------------------------------------------------- the lattice release


VALUES = np.repeat(np.arange(1_000) + 0.5, 3)  # 3 values in each of 1,000 unit bins of [0, 1000]


@pytest.mark.parametrize("mechanism,delta", [("laplace", None), ("gaussian", 1e-5)])
def test_published_histogram_is_on_the_grid_with_the_stated_noise(mechanism, delta):
    # 20 publications × 1,000 bins, each bin with its own independent noise: 20,000 draws of the lattice noise
    lattice = lattice_mechanism(
        dp_histogram(VALUES, 1_000, 1.0, 0, lower=0, upper=1_000, mechanism=mechanism, delta=delta).mechanism
    )
    releases = [
        publish.publish_histogram(VALUES, 1_000, 0, 1_000, 1.0, mechanism=mechanism, delta=delta) for _ in range(20)
    ]
    r = releases[0]
    assert r.randomness is Randomness.PUBLICATION and r.is_publication
    assert r.noise_std == lattice.noise_std and r.epsilon == lattice.epsilon and r.delta == (lattice.delta or 0.0)
    exponent = str(int(math.log2(lattice.grid))).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    assert f"2{exponent} lattice" in r.mechanism
    steps = (np.array([rel.values for rel in releases]) - 3.0) / lattice.grid
    assert np.all(steps == np.round(steps)), "a published value off the grid"
    noise = steps * lattice.grid
    law = law_moments(lattice.noise, lattice.grid)
    assert law.var == pytest.approx(r.noise_std**2, rel=1e-9)
    assert_mean_zero(noise, law)
    assert_variance(noise, law)
    assert_uncorrelated(noise[:, :-1], noise[:, 1:], law, law)  # neighbouring bins: independent noise


def test_every_numeric_publication_is_on_its_grid():
    values = np.arange(50.0) / 7
    cases = [
        (publish.publish_count(values, 1.0), dp_count(values, 1.0, 0)),
        (
            publish.publish_count(values, 1.0, mechanism="gaussian", delta=1e-6),
            dp_count(values, 1.0, 0, mechanism="gaussian", delta=1e-6),
        ),
        (publish.publish_sum(values, 0, 10, 0.5), dp_sum(values, 0, 10, 0.5, 0)),
        (publish.publish_sum(values, -0.3, 0.7, 2.0), dp_sum(values, -0.3, 0.7, 2.0, 0)),
        (publish.publish_count_matching(values > 3, "value > 3", 1.0), dp_count_matching(values > 3, 1.0, 0)),
        (publish.publish_category_counts([0, 1, 1, 2], "abcd", 1.0), dp_category_counts([0, 1, 1, 2], 4, 1.0, 0)),
    ]
    for release, result in cases:
        lattice = lattice_mechanism(result.mechanism)
        steps = np.array(release.values) / lattice.grid
        assert np.all(steps == np.round(steps)), release.query
        assert release.noise_std == lattice.noise_std
    mean = publish.publish_mean(values, 0, 10, 1.0)
    assert 0 <= mean.value <= 10 and math.isnan(mean.noise_std) and mean.epsilon == 1.0


# ---------------------------------------------------------------------- attack (a): recompute the noise from a seed


def seed_candidates(count: int) -> list:
    """What an attacker would try: the app's seeds, then every small integer."""
    return (APP_SEEDS + list(range(count)))[:count]


def rng(seed) -> np.random.Generator:
    """A fresh generator from a seed, as the app makes one from the seed of a link or a snippet."""
    return np.random.default_rng(seed)


def test_attack_a_seed_subtraction_recovers_nothing():
    n_rows, dummy, eps, trials = 700, np.zeros(5), 1.0, 1_500
    table = np.arange(n_rows, dtype=np.float64)
    lattice = lattice_mechanism(dp_count(table, eps, 0).mechanism)
    law = law_moments(lattice.noise, lattice.grid)

    def seed_noise(seed):  # the attack: the release function rerun with the seed on a dummy table of known size
        return dp_count(dummy, eps, rng(seed)).on_lattice(rng(seed)).noisy_value - dummy.size

    seeds = seed_candidates(trials)
    # negative control: against the seeded simulation the attack recovers the count exactly, every time
    for seed in seeds[:50]:
        assert dp_count(table, eps, rng(seed)).on_lattice(rng(seed)).noisy_value - seed_noise(seed) == n_rows
        assert (
            dp_count(table, eps, rng(seed)).noisy_value - dp_count(dummy, eps, rng(seed)).noisy_value
            == n_rows - dummy.size
        )

    published = np.array([publish.publish_count(table, eps).value for _ in seeds])
    recomputed = np.array([dp_count(table, eps, rng(seed)).on_lattice(rng(seed)).noisy_value for seed in seeds])
    estimate = published - np.array([seed_noise(seed) for seed in seeds])
    # equal only as often as two independent draws of the noise are (Σ p² ≈ 1/(4t) = 2.4e-4 per pair)
    bound = coincidence_bound(trials, collision_probability(lattice.noise))
    assert np.count_nonzero(published == recomputed) < bound
    assert np.count_nonzero(estimate == n_rows) < bound
    assert_mean_zero(published - n_rows, law)
    assert_variance(published - n_rows, law)  # publication − truth: the stated spread
    assert_variance(estimate - n_rows, law + law)  # the attack's error: two independent noises
    assert_uncorrelated(published - n_rows, recomputed - n_rows, law, law)


def test_attack_a_on_counts_where_and_gaussian_histograms():
    # publish_count_matching, and a Gaussian histogram of 1,000 bins, against the seeded draws of the same query
    mask = np.arange(900) % 3 == 0
    lattice = lattice_mechanism(dp_count_matching(mask, 1.0, 0).mechanism)
    trials = 800
    seeds = seed_candidates(trials)
    published = np.array([publish.publish_count_matching(mask, "x mod 3 = 0", 1.0).value for _ in seeds])
    recomputed = np.array([dp_count_matching(mask, 1.0, rng(s)).on_lattice(rng(s)).noisy_value for s in seeds])
    assert np.count_nonzero(published == recomputed) < coincidence_bound(trials, collision_probability(lattice.noise))
    law = law_moments(lattice.noise, lattice.grid)
    assert_variance(published - recomputed, law + law)

    options = {"mechanism": "gaussian", "delta": 1e-5}
    hist = dp_histogram(VALUES, 1_000, 1.0, 0, lower=0, upper=1_000, **options)
    lattice = lattice_mechanism(hist.mechanism)
    for seed in APP_SEEDS[:2]:
        published = np.array(publish.publish_histogram(VALUES, 1_000, 0, 1_000, 1.0, **options).values)
        recomputed = hist.on_lattice(rng(seed)).noisy_value
        bound = coincidence_bound(1_000, collision_probability(lattice.noise))
        assert np.count_nonzero(published == recomputed) < bound
        law = law_moments(lattice.noise, lattice.grid)
        assert_variance(published - recomputed, law + law)


def test_no_seed_a_link_or_a_snippet_could_carry_reproduces_a_publication():
    # a dictionary attack: every seed the app's links and snippets use and every integer below 2,000, each rerun on
    # a dummy table; a publication is reproduced when its noise is one of those. Given the dictionary's noises S,
    # a publication's noise lands in S with probability Σ_{z∈S} p(z) exactly (ε = 0.01: t = 102,400 grid steps).
    eps, dummy = 0.01, np.zeros(3)
    lattice = lattice_mechanism(dp_count(dummy, eps, 0).mechanism)
    dictionary = APP_SEEDS + list(range(2_000))
    noises = {dp_count(dummy, eps, rng(s)).on_lattice(rng(s)).noisy_value - dummy.size for s in dictionary}
    steps = np.array(sorted(noises)) / lattice.grid
    p_hit = float(np.sum(np.exp(lattice.noise.log_pmf(steps))))
    table = np.arange(250.0)
    publications = 200
    hits = sum(publish.publish_count(table, eps).value - table.size in noises for _ in range(publications))
    assert hits < coincidence_bound(publications, p_hit), (hits, p_hit)
    # negative control: a seeded draw with any seed of the dictionary is found in it, every time
    assert all(dp_count(table, eps, rng(s)).on_lattice(rng(s)).noisy_value - table.size in noises for s in APP_SEEDS)


def test_two_publications_with_the_same_settings_and_seed_differ():
    # everything a link, a snippet or the session fixes is fixed (numpy's and Python's global seeds too): the two
    # publications still coincide only as often as independent draws (ε = 0.01: t = 102,400, Σ p² ≈ 2.4e-6)
    table = np.arange(300.0)
    lattice = lattice_mechanism(dp_count(table, 0.01, 0).mechanism)
    pairs = 300
    first, second = [], []
    for _ in range(pairs):
        for out in (first, second):
            np.random.seed(2017)
            random.seed(2017)
            out.append(publish.publish_count(table, 0.01).value)
    assert np.count_nonzero(np.array(first) == np.array(second)) < coincidence_bound(
        pairs, collision_probability(lattice.noise)
    )
    # publishing a seeded query result draws anew: not its simulated value, not its seeded lattice draw
    result = dp_count(table, 0.01, 2017)
    again = [publish.publish(result).value for _ in range(20)]
    seeded = result.on_lattice(2017).noisy_value
    assert result.noisy_value not in again  # a float draw, off the grid
    # each publication equals the seeded draw with probability at most max_y p(y) = tanh(1/(2t)) ≈ 4.9e-6
    assert sum(v == seeded for v in again) < coincidence_bound(20, math.tanh(0.5 / lattice.noise.scale))
    assert len(set(again)) >= 19  # 190 pairs × 2.4e-6: two coincidences have probability ≈ 1e-7


def test_a_publication_is_a_function_of_the_inputs_and_the_operating_systems_bits_alone(monkeypatch):
    # With os.urandom replaced by a fixed stream, two publications are equal: no seed, session or numpy state
    # enters them. With the real os.urandom, they differ. (The stream: SHAKE-256 of a key and a counter.)
    def fixed_stream(key: bytes):
        counter = iter(range(1 << 62))
        return lambda n: hashlib.shake_256(key + next(counter).to_bytes(8, "little")).digest(n)

    def everything():
        x = np.arange(200.0) / 3
        return [
            publish.publish_count(x, 1.0).value,
            publish.publish_count(x, 1.0, mechanism="gaussian", delta=1e-6).value,
            publish.publish_sum(x, 0, 50, 1.0).value,
            publish.publish_mean(x, 0, 50, 1.0).value,
            publish.publish_histogram(x, 10, 0, 100, 1.0).value,
            publish.publish_count_matching(x > 20, "x > 20", 1.0).value,
            publish.publish_category_counts([0, 1, 2, 2], "abc", 1.0, mechanism="gaussian", delta=1e-6).value,
            publish.publish_most_common([0, 1, 2, 2], "abc", 0.01).value,
        ]

    runs = []
    for seed in (1, 2):
        monkeypatch.setattr(os, "urandom", fixed_stream(b"the same bits"))
        np.random.seed(seed)  # different global states: they must not matter
        random.seed(seed)
        runs.append(everything())
    assert runs[0] == runs[1]
    monkeypatch.undo()
    assert everything()[:7] != everything()[:7]


# ---------------------------------------------------------------------- attack (b): ε-doubling


def test_attack_b_epsilon_doubling_recovers_nothing():
    n_rows, trials = 400, 1_000
    table = np.arange(n_rows, dtype=np.float64)
    # negative control: the seeded float simulation doubles the same noise when ε halves, so 2·r₁ − r₂ is the truth
    for seed in APP_SEEDS + list(range(20)):
        r1, r2 = dp_count(table, 1.0, rng(seed)).noisy_value, dp_count(table, 0.5, rng(seed)).noisy_value
        assert r1 != n_rows and 2 * r1 - r2 == pytest.approx(n_rows, abs=1e-9)

    lat1, lat2 = (lattice_mechanism(dp_count(table, e, 0).mechanism) for e in (1.0, 0.5))
    law1, law2 = law_moments(lat1.noise, lat1.grid), law_moments(lat2.noise, lat2.grid)
    r1 = np.array([publish.publish_count(table, 1.0).value for _ in range(trials)])
    r2 = np.array([publish.publish_count(table, 0.5).value for _ in range(trials)])
    estimate = 2 * r1 - r2
    # 2·r₁ − r₂ is the truth when Z₂ = 2·Z₁ (grid units, both on 2^-10): probability Σ_z p₁(z) p₂(2z) ≈ 1.2e-4
    half = 60 * lat2.noise.scale
    z = np.arange(-half, half + 1, dtype=np.float64)
    q = float(np.sum(np.exp(lat1.noise.log_pmf(z) + lat2.noise.log_pmf(2 * z))))
    assert lat1.grid == lat2.grid and np.count_nonzero(estimate == n_rows) < coincidence_bound(trials, q)
    assert_mean_zero(estimate - n_rows, law1.times(2) + law2)
    assert_variance(estimate - n_rows, law1.times(2) + law2)  # 4·var₁ + var₂, not 0
    assert_uncorrelated(r1 - n_rows, r2 - n_rows, law1, law2)


# ---------------------------------------------------------------------- attack (c): two conditions, one noise


def test_attack_c_shared_noise_recovers_nothing():
    rows, trials = np.arange(1_000), 1_000
    a, b = rows % 3 == 0, rows % 5 == 0
    true_gap = int(a.sum() - b.sum())
    # negative control: the seeded simulation gives both conditions the same noise, their difference is exact
    for seed in APP_SEEDS + list(range(20)):
        ra, rb = dp_count_matching(a, 1.0, rng(seed)), dp_count_matching(b, 1.0, rng(seed))
        assert ra.noisy_value - rb.noisy_value == pytest.approx(true_gap, abs=1e-9)
        assert ra.on_lattice(rng(seed)).noisy_value - rb.on_lattice(rng(seed)).noisy_value == true_gap

    lattice = lattice_mechanism(dp_count_matching(a, 1.0, 0).mechanism)
    law = law_moments(lattice.noise, lattice.grid)
    ra = np.array([publish.publish_count_matching(a, "row mod 3 = 0", 1.0).value for _ in range(trials)])
    rb = np.array([publish.publish_count_matching(b, "row mod 5 = 0", 1.0).value for _ in range(trials)])
    gap = (ra - rb) - true_gap
    assert np.count_nonzero(gap == 0) < coincidence_bound(trials, collision_probability(lattice.noise))
    assert_variance(gap, law + law)  # two independent noises
    assert_uncorrelated(ra - a.sum(), rb - b.sum(), law, law)


# ---------------------------------------------------------------------- nothing to seed, nothing seeded touched


def test_no_publication_function_takes_a_generator_or_a_seed():
    import importlib
    import pkgutil

    import dpcore

    functions = [f for _, f in inspect.getmembers(publish, inspect.isfunction) if f.__module__ == publish.__name__]
    assert {f.__name__ for f in functions} >= {n for n in publish.__all__ if n.startswith("publish")}
    # and every public publish* callable of every dpcore module (dpcore.plan_release's included)
    walked = set()
    for info in pkgutil.walk_packages(dpcore.__path__, "dpcore."):
        module = importlib.import_module(info.name)
        for name, f in inspect.getmembers(module, callable):
            if name.startswith("publish") and getattr(f, "__module__", None) == module.__name__:
                functions.append(f)
                walked.add(f"{module.__name__}.{name}")
    assert {"dpcore.plan_release.publish_plan", "dpcore.plan_release.publish_from_aggregates"} <= walked
    for f in functions:
        for name in inspect.signature(f).parameters:
            low = name.lower()
            assert low not in {"rng", "seed", "random_state", "generator", "random", "prng", "entropy"}, f.__name__
            assert "seed" not in low and "rng" not in low, (f.__name__, name)


def test_no_module_of_the_path_holds_a_generator():
    from dpcore import discrete, lattice, randomness, release

    kinds = (np.random.Generator, np.random.RandomState, np.random.BitGenerator, random.Random)
    for module in (publish, randomness, release, lattice, discrete):
        held = [name for name, value in vars(module).items() if isinstance(value, kinds)]
        assert not held, (module.__name__, held)


def test_publishing_leaves_numpys_and_pythons_global_generators_alone():
    np.random.seed(20170101)
    random.seed(20170101)
    before, before_py = np.random.get_state(), random.getstate()
    seeded = np.random.default_rng(7)
    x = seeded.normal(50, 10, size=500)
    seeded_state = seeded.bit_generator.state
    publish.publish_count(x, 1.0)
    publish.publish_sum(x, 0, 100, 1.0, mechanism="gaussian", delta=1e-6)
    publish.publish_mean(x, 0, 100, 1.0)
    publish.publish_histogram(x, 20, 0, 100, 1.0)
    publish.publish_count_matching(x > 50, "x > 50", 1.0)
    publish.publish_category_counts((x > 50).astype(int), ["no", "yes"], 1.0)
    publish.publish_most_common((x > 50).astype(int), ["no", "yes"], 1.0)
    after = np.random.get_state()
    assert after[0] == before[0] and np.array_equal(after[1], before[1]) and after[2:] == before[2:]
    assert random.getstate() == before_py
    assert seeded.bit_generator.state == seeded_state


# ---------------------------------------------------------------------- labels from declared inputs only


def test_histogram_labels_come_from_the_declared_bins_alone():
    base = np.array([12.0, 37.5, 50.0, 88.0, 99.9])
    declared = publish.bin_labels(np.linspace(0, 100, 11))
    assert declared[0] == "below 10" and declared[-1] == "90 and above" and len(declared) == 10
    for data in (
        base,
        np.append(base, 1e9),  # an outlier far above
        np.append(base, -1e9),  # and far below
        np.append(base, 100.0),  # a value exactly at the upper bound
        np.append(base, 0.0),  # and at the lower one
        base[:1],
        np.append(base, np.nan),
    ):
        r = publish.publish_histogram(data, 10, 0, 100, 1.0)
        assert r.labels == declared and len(r.values) == 10
        assert [f.value for f in r.public] == ["0", "100", "10 equal bins"]


def test_category_labels_are_the_declared_domain_whatever_the_data():
    domain = ("a", "b", "c", "d")
    for codes in ([0, 0, 1], [3], [0, 1, 2, 3] * 10):
        r = publish.publish_category_counts(codes, domain, 1.0)
        assert r.labels == domain and len(r.values) == 4  # absent categories listed, with a noisy count
        other = publish.publish_category_counts(codes, domain, 1.0, other=True)
        assert other.labels == (*domain, publish.OTHER) and len(other.values) == 5
        # one person with a value outside the domain (code 4 = "(other)"): no label changes
        assert publish.publish_category_counts([*codes, 4], domain, 1.0, other=True).labels == other.labels
        assert publish.publish_most_common(codes, domain, 1.0).labels == ("most common value",)
    # without a declared "(other)", the caller must leave such values out: a code outside the domain is refused
    with pytest.raises(ValueError, match=r"codes must hold integers in \[0, 4\)"):
        publish.publish_category_counts([0, 4], domain, 1.0)


def test_most_common_is_chosen_from_the_declared_domain_absent_values_too():
    # ε = 0.001 on counts (9, 0, 0): the three probabilities are within 0.5% of 1/3, so over 300 publications each
    # value of the domain is chosen (one never chosen: probability below 3·(0.67)^300 ≈ 1e-52)
    domain = ("present", "absent one", "absent two")
    chosen = {publish.publish_most_common([0] * 9, domain, 0.001).value for _ in range(300)}
    assert chosen == set(domain)
    r = publish.publish_most_common([0] * 9, domain, 1.0)
    assert r.public[0].value == "present, absent one, absent two" and r.randomness is Randomness.PUBLICATION


# -- the local and sparse-vector publications -------------------------------------------------------------------


def test_local_counts_list_the_declared_domain_whatever_the_data_and_hold_under_replace_one():
    from dpcore.neighbours import REPLACE_ONE

    codes = np.zeros(200, dtype=np.int64)  # nobody in the second or third category
    for oracle in ("GRR", "SUE", "OUE"):
        release = publish.publish_local_counts(codes, ["a", "b", "c"], oracle, 1.0)
        assert release.labels == ("a", "b", "c", publish.OTHER)
        assert release.relation is REPLACE_ONE and release.randomness is Randomness.PUBLICATION
    first = publish.publish_local_counts(codes, ["a", "b"], "OUE", 1.0).values
    assert first != publish.publish_local_counts(codes, ["a", "b"], "OUE", 1.0).values  # fresh reports each time


def test_range_counts_label_only_declared_ranges_and_an_outlier_changes_none():
    values = np.random.default_rng(3).uniform(0, 50, 3_000)
    ranges = [[0.0, 20.0], [10.0, 40.0], [45.0, 50.0]]
    declared = {"[0, 20]", "[10, 40]", "[45, 50]"}
    for data in (values, np.append(values, 1e9)):  # an extreme value added
        release = publish.publish_range_counts(data, ranges, 100, 3, 1.0)
        assert set(release.labels) <= declared


def test_the_clipping_bound_and_automatic_mean_choose_among_declared_candidates_only():
    values = np.random.default_rng(4).uniform(0, 50, 2_000)
    candidates = set(np.linspace(10.0, 100.0, 10).tolist())
    for data in (values, np.append(values, 1e12)):
        assert publish.publish_clipping_bound(data, 100.0, 10, 1.0).value in candidates
        assert publish.publish_automatic_mean(data, 100.0, 10, 1.0).values[1] in candidates


def test_every_row_reports_so_the_number_of_reports_is_the_number_of_rows():
    """Replacing a person inside the list by one outside it (or missing) must not change n, which replace-one
    leaves public: values outside the list and missing ones report (other)."""
    import pandas as pd

    from explorer.domains import encode_in_domain

    column = pd.Series(["a"] * 50 + ["b"] * 30)
    replaced = column.copy()
    replaced.iloc[0] = "zanzibar"
    gone = column.copy()
    gone.iloc[1] = None
    reports = []
    for series in (column, replaced, gone):
        codes = encode_in_domain(series, ["a", "b"], True, every_row=True)
        release = publish.publish_local_counts(codes, ["a", "b"], "GRR", 1.0)
        reports.append([f.value for f in release.public if f.name.startswith("number of reports")])
    assert reports[0] == reports[1] == reports[2] == [f"{len(column):,}"]
    mean = publish.publish_local_mean(np.r_[np.arange(10.0), np.nan], 0.0, 10.0, 1.0)
    assert [f.value for f in mean.public if f.name.startswith("number of reports")] == ["11"]


def test_the_mean_plan_reads_declared_facts_only_and_is_conservative_for_any_data_of_that_size():
    from dpcore import dp_mean
    from dpcore.publish import plan_mean_epsilon

    eps = plan_mean_epsilon(1.0, 0.0, 100.0, 5_000)
    assert eps == plan_mean_epsilon(1.0, 0.0, 100.0, 5_000)  # a plan: nothing random leaks into it
    rng = np.random.default_rng(4)
    for values in (np.full(5_000, 100.0), rng.uniform(0, 100, 5_000), np.full(5_000, 3.0)):
        errors = dp_mean(values, 0.0, 100.0, eps, 0).simulate_errors(20_000, rng)
        covered = np.mean(np.abs(errors) <= 1.0)
        # at least the planned 95%, less five binomial standard errors of the 20,000 draws
        assert covered >= 0.95 - 5 * np.sqrt(0.95 * 0.05 / 20_000), covered
    assert plan_mean_epsilon(1.0, 0.0, 100.0, 50_000) < eps  # a larger planned size needs less ε
    with pytest.raises(ValueError, match=r"^planned_n must be"):
        plan_mean_epsilon(1.0, 0.0, 100.0, 0)


# -- the exponential mechanism's publications, drawn exactly (dpcore.exact_choice) ------------------------------


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_most_common_publications_follow_the_exact_law(epsilon):
    # counts (5, 3, 0, 4): value k with probability ∝ exp(ε count_k / 2); 3,000 secure publications, χ² at P_FLOOR
    codes = [0] * 5 + [1] * 3 + [3] * 4
    domain = ("a", "b", "c", "d")
    drawn = [publish.publish_most_common(codes, domain, epsilon).value for _ in range(3_000)]
    counts = np.array([drawn.count(d) for d in domain])
    w = np.exp(epsilon * np.array([5.0, 3.0, 0.0, 4.0]) / 2)
    assert chi2_pvalue(counts, w / w.sum()) > P_FLOOR


def test_a_quantile_publication_away_from_the_median_follows_the_exact_law():
    # q = 0.3 (q·n = 1.2: the fractional target of dpcore.exact_choice.quantile_exponents), ε = 3, grid 0.25: each
    # grid point gets the probabilities of the intervals it overlaps, shared by length; 3,000 publications
    from dpcore.quantiles import ExponentialQuantile

    values, grid = [0.2, 0.2, 0.5, 0.9], 0.25
    law = ExponentialQuantile(3.0, 0.0, 1.0, 0.3).intervals(values)
    centres = grid * np.arange(5)
    lo, hi = np.maximum(centres - grid / 2, 0.0), np.minimum(centres + grid / 2, 1.0)
    overlap = np.clip(np.minimum(hi[:, None], law.right) - np.maximum(lo[:, None], law.left), 0, None)
    p = overlap @ (law.probabilities() / (law.right - law.left))
    drawn = np.array([publish.publish_quantile(values, 0.3, 0.0, 1.0, 3.0, grid=grid).value for _ in range(3_000)])
    counts = np.array([np.count_nonzero(drawn == c) for c in centres])
    assert counts.sum() == drawn.size
    assert chi2_pvalue(counts, p) > P_FLOOR


def test_the_exponential_publications_use_no_float_uniform(monkeypatch):
    # the old draws took SecureGenerator.random (53-bit float uniforms); the exact ones take raw words only
    def refuse(*args, **kwargs):
        raise AssertionError("a float uniform was drawn")

    monkeypatch.setattr(SecureGenerator, "random", refuse)
    x = np.random.default_rng(1).normal(40, 10, 1_000)
    most_common = publish.publish_most_common((x > 40).astype(int), ["no", "yes"], 1.0)
    quantile = publish.publish_quantile(x, 0.5, 0.0, 100.0, 1.0)
    for release in (most_common, quantile):
        assert "sampled exactly from secure bits" in release.mechanism and "53-bit" not in release.mechanism
        assert release.delta == 0.0


def test_the_sparse_vector_publications_compare_with_exact_noise_only(monkeypatch):
    # the float comparisons took SecureGenerator's exponential, Laplace or uniform floats; the exact ones take words
    def refuse(*args, **kwargs):
        raise AssertionError("a float draw was made")

    for name in ("random", "standard_exponential", "laplace", "exponential", "normal", "uniform"):
        if hasattr(SecureGenerator, name):
            monkeypatch.setattr(SecureGenerator, name, refuse)
    x = np.random.default_rng(2).integers(0, 100, 2_000).astype(float)
    bound = publish.publish_clipping_bound(x, 100.0, 20, 1.0)
    mean = publish.publish_automatic_mean(x, 100.0, 20, 1.0)
    ranges = publish.publish_range_counts(x, [(0, 10), (10, 50), (50, 100)], 100, 2, 1.0)
    assert bound.value in set(evenly_spaced_candidates(100.0, 20)) and len(mean.value) == 2 and len(ranges.value) <= 2
