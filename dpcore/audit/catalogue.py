"""The catalogue of audits: each mechanism of dpcore on its worst-case neighbouring pair.

Every entry runs dpcore's own public code (``dp_count(...).simulate``,
``GRR.perturb``, ``above_threshold_trials``, ...) on two neighbouring inputs
``x, x'`` chosen so that some output event has a likelihood ratio at or near
``e^ε``, with the natural event family of the output:

* noisy count, sum, mean (Laplace or Gaussian): thresholds ``output ≥ t`` and
  ``output < t``. For additive noise on a scalar the likelihood ratio is
  monotone in the output, so by the Neyman–Pearson lemma the threshold sets are
  the most powerful events (Balle & Wang 2018, Theorem 5, for the Gaussian;
  the Laplace ratio is constant on each side of the pair).
* GRR, the coin flip, the LDP mean: the reported value.
* SUE, OUE: the two bits of the report at the values of ``x`` and ``x'``; the
  other bits have the same law on both inputs, so these two bits are a
  sufficient statistic and no event on the full pattern does better.
* the exponential mechanism: the chosen candidate.
* AboveThreshold: the index of the first query above the threshold; Sparse:
  the set of queries answered.
* a user-level group-by (one person with rows in more groups than L₀): thresholds
  on the smallest noisy count over the groups, whose event ``min ≥ t`` is exactly
  where the likelihood ratio of the person's random L₀ groups reaches ``e^ε``
  (with partition selection, a dropped group counts 0; see
  ``_person_group_by_build``).

How close the bound can come to the claim depends on the mechanism (measured in
``benchmarks/bench_audit.py``). Pure ε-DP mechanisms whose worst event is
likely (Laplace on a count or sum, GRR, SUE, OUE, the LDP mean) reach about
0.97 ε with 10⁶ runs per input. The exponential mechanism reaches
``ln(m e^ε / (e^ε + m − 1))`` with ``m`` candidates (tends to ε as ``m`` grows,
while the event gets rarer). AboveThreshold, Sparse, the Gaussian mechanism
with small δ and the mean stay further below: their worst events are rare
(AboveThreshold needs a long run of queries below a high noisy threshold; the
Gaussian's ``e^ε`` likelihood ratio is reached only in a tail of probability
about δ), or, for the mean, the released ratio is a post-processing of two
noisy numbers that no single threshold on it inverts.

References
----------
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML, Theorem 5. https://arxiv.org/abs/1805.06530
- Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency Estimation",
  USENIX Security, Theorem 3. https://www.usenix.org/conference/usenixsecurity17/technical-sessions/presentation/wang-tianhao
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends in
  Theoretical Computer Science 9(3–4), Theorem 3.10 (the exponential mechanism).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Jagielski, Ullman & Oprea (2020), "Auditing Differentially Private Machine Learning: How Private is
  Private SGD?", NeurIPS, Section 3 and Algorithm 2. https://arxiv.org/abs/2006.07709
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from dpcore import families
from dpcore.audit.engine import Sampler
from dpcore.exponential import exponential_mechanism
from dpcore.lattice import lattice_mechanism
from dpcore.ldp_mean import LDPMean
from dpcore.queries import dp_count, dp_mean, dp_sum
from dpcore.randomized_response import COIN_FLIP_EPSILON, GRR, coin_flip_response
from dpcore.svt import above_threshold_trials, sparse_trials
from dpcore.unary_encoding import OUE, SUE
from dpcore.validation import check_elements, check_int

__all__ = ["AuditSpec", "CATALOGUE", "register"]


@dataclass(frozen=True)
class AuditSpec:
    """One audit of the catalogue.

    Attributes
    ----------
    name : str
        Key in :data:`CATALOGUE`.
    title : str
        The mechanism in a few words.
    claim : str
        The guarantee audited, e.g. ``"ε-DP"`` or ``"(ε, δ)-DP"``.
    neighbours : str
        The neighbouring pair ``x, x'`` in words; ``{name}`` fields are filled from the parameters.
    events : str
        The family of output events searched.
    params : Mapping
        Parameter names and their defaults (ε is given separately).
    build : callable
        ``build(epsilon, params) -> Sampler``.
    default_epsilon : float
        The ε a page may start from.
    """

    name: str
    title: str
    claim: str
    neighbours: str
    events: str
    params: Mapping
    build: Callable[[float, dict], Sampler] = field(repr=False)
    default_epsilon: float = 1.0

    def describe_neighbours(self, params: Mapping) -> str:
        """The neighbouring pair in words for these parameters."""
        return self.neighbours.format(**params)


_REGISTRY: dict[str, AuditSpec] = {}
#: Every audit, by name (read-only).
CATALOGUE: Mapping[str, AuditSpec] = MappingProxyType(_REGISTRY)


def register(spec: AuditSpec) -> AuditSpec:
    """Add an audit to :data:`CATALOGUE` (used by this package's modules)."""
    _REGISTRY[spec.name] = spec
    return spec


# ---------------------------------------------------------------------- central queries


def _simulated(result) -> Callable[[np.random.Generator, int], np.ndarray]:
    return lambda rng, m: np.asarray(result.simulate(m, rng), dtype=np.float64).reshape(-1)


def _gaussian_kw(p: Mapping, mechanism: str) -> dict:
    return {"mechanism": mechanism, "delta": families.family(mechanism).delta(p.get("delta"))}


def _count_build(mechanism: str):
    def build(epsilon: float, p: dict) -> Sampler:
        data0 = np.zeros(p["n"])
        data1 = np.zeros(p["n"] + 1)
        kw = _gaussian_kw(p, mechanism)
        r0, r1 = dp_count(data0, epsilon, 0, **kw), dp_count(data1, epsilon, 0, **kw)
        return Sampler(_simulated(r0), _simulated(r1), "real", kw["delta"] or 0.0, "noisy count")

    return build


def _sum_build(mechanism: str):
    def build(epsilon: float, p: dict) -> Sampler:
        lo, hi = p["lower"], p["upper"]
        data0 = np.full(p["n"], lo)
        data1 = np.append(data0, hi if abs(hi) >= abs(lo) else lo)  # the record of largest |value|
        kw = _gaussian_kw(p, mechanism)
        r0, r1 = dp_sum(data0, lo, hi, epsilon, 0, **kw), dp_sum(data1, lo, hi, epsilon, 0, **kw)
        return Sampler(_simulated(r0), _simulated(r1), "real", kw["delta"] or 0.0, "noisy sum")

    return build


def _mean_build(mechanism: str):
    def build(epsilon: float, p: dict) -> Sampler:
        lo, hi = p["lower"], p["upper"]
        data0 = np.full(p["n"], lo)
        data1 = np.append(data0, hi)
        kw = _gaussian_kw(p, mechanism)
        r0 = dp_mean(data0, lo, hi, epsilon, 0, split=p["split"], **kw)
        r1 = dp_mean(data1, lo, hi, epsilon, 0, split=p["split"], **kw)
        return Sampler(_simulated(r0), _simulated(r1), "real", kw["delta"] or 0.0, "noisy mean")

    return build


#: The events a threshold audit searches, in words (shared with :mod:`dpcore.audit.learning`).
THRESHOLD_EVENTS = "thresholds: output ≥ t and output < t, for t at quantiles of the selection runs"
for _family in families.central():  # every central family: its noise on a count, a sum and a mean
    _mech, _label, _claim = _family.key, _family.title, "(ε, δ)-DP" if _family.takes_delta else "ε-DP"
    _extra = {"delta": 1e-5} if _family.takes_delta else {}
    register(
        AuditSpec(
            f"{_mech}_count",
            f"{_label} noise on a count (dp_count)",
            _claim,
            "x: {n} records; x′: the same {n} records and one more (add/remove one record, sensitivity 1)",
            THRESHOLD_EVENTS,
            MappingProxyType({"n": 100, **_extra}),
            _count_build(_mech),
        )
    )
    register(
        AuditSpec(
            f"{_mech}_sum",
            f"{_label} noise on a clipped sum (dp_sum)",
            _claim,
            "x: {n} records at {lower}; x′: the same and one record at {upper} "
            "(clipped to [{lower}, {upper}], sensitivity max(|lower|, |upper|))",
            THRESHOLD_EVENTS,
            MappingProxyType({"n": 100, "lower": 0.0, "upper": 10.0, **_extra}),
            _sum_build(_mech),
        )
    )
    register(
        AuditSpec(
            f"{_mech}_mean",
            f"{_label} noisy sum over noisy count (dp_mean)",
            _claim,
            "x: {n} records at {lower}; x′: the same and one record at {upper} (a share {split} of ε to the sum)",
            THRESHOLD_EVENTS,
            MappingProxyType({"n": 1, "lower": 0.0, "upper": 10.0, "split": 0.5, **_extra}),
            _mean_build(_mech),
        )
    )


def _lattice_build(mechanism: str):
    def build(epsilon: float, p: dict) -> Sampler:
        kw = _gaussian_kw(p, mechanism)
        lattice = lattice_mechanism(dp_count(np.zeros(p["n"]), epsilon, 0, **kw).mechanism)
        n = float(p["n"])

        def draw(value):
            return lambda rng, m: lattice.simulate(value, rng, m)

        return Sampler(draw(n), draw(n + 1.0), "real", kw["delta"] or 0.0, "safe noisy count")

    return build


for _family in (f for f in families.central() if f.lattice):  # the families published on a lattice
    _mech, _label, _claim = _family.key, _family.lattice, "(ε, δ)-DP" if _family.takes_delta else "ε-DP"
    register(
        AuditSpec(
            f"lattice_{_mech}_count",
            f"Safe release of a count on a grid with exact {_label} noise (dpcore.lattice)",
            _claim,
            "x: {n} records; x′: {n} and one more (sensitivity 1)",
            THRESHOLD_EVENTS,
            MappingProxyType({"n": 100, **({"delta": 1e-5} if _family.takes_delta else {})}),
            _lattice_build(_mech),
        )
    )


# ---------------------------------------------------------------------- local DP


def _grr_build(epsilon: float, p: dict) -> Sampler:
    grr = GRR(epsilon, p["k"])
    return Sampler(
        lambda rng, m: grr.perturb(np.zeros(m, dtype=np.int64), rng),
        lambda rng, m: grr.perturb(np.ones(m, dtype=np.int64), rng),
        "codes",
        0.0,
        "report",
        labels=lambda c: f"report = {c}",
    )


register(
    AuditSpec(
        "grr",
        "Generalised randomized response (GRR.perturb)",
        "ε-LDP",
        "one user; x: value 0, x′: value 1 (of k = {k})",
        "the reported value",
        MappingProxyType({"k": 4}),
        _grr_build,
    )
)


def _coin_build(epsilon: float, p: dict) -> Sampler:
    def draw(truth: bool):
        return lambda rng, m: coin_flip_response(np.full(m, truth), rng).astype(np.int64)

    return Sampler(draw(True), draw(False), "codes", 0.0, "answer", labels=lambda c: f"answer = {'yes' if c else 'no'}")


register(
    AuditSpec(
        "coin_flip",
        "The coin-flip survey (coin_flip_response); the mechanism is fixed, ε is the claim audited",
        "ε-LDP",
        "one respondent; x: the truth is yes, x′: the truth is no",
        "the answer",
        MappingProxyType({}),
        _coin_build,
        default_epsilon=COIN_FLIP_EPSILON,
    )
)


def unary_build(cls):
    """The audit of a unary encoding ``cls`` (SUE or OUE): ``build(ε, {"k": k}) -> Sampler``.

    One person's value is 0 (x) or 1 (x′); the events are the reported bits at
    those two positions, the only ones whose laws differ (each bit is perturbed
    on its own; Wang, Blocki, Li & Jha 2017, Theorem 3). Shared with
    :mod:`dpcore.audit.broken`, whose broken encodings are audited the same way.
    """

    def build(epsilon: float, p: dict) -> Sampler:
        mech = cls(epsilon, p["k"])

        def draw(value: int):
            def run(rng, m):
                bits = mech.perturb(np.full(m, value, dtype=np.int64), rng)
                return 2 * bits[:, 0].astype(np.int64) + bits[:, 1]

            return run

        return Sampler(
            draw(0),
            draw(1),
            "codes",
            0.0,
            "report",
            labels=lambda c: f"report bits (0, 1) = ({c // 2}, {c % 2})",
            width=p["k"],
        )

    return build


for _cls in (SUE, OUE):
    register(
        AuditSpec(
            _cls.__name__.lower(),
            f"{_cls.__name__}: unary encoding ({_cls.__name__}.perturb)",
            "ε-LDP",
            "one user; x: value 0, x′: value 1 (of k = {k})",
            "bits 0 and 1 of the report (the other bits have the same law on x and x′)",
            MappingProxyType({"k": 4}),
            unary_build(_cls),
        )
    )


def _ldp_mean_build(epsilon: float, p: dict) -> Sampler:
    mech = LDPMean(epsilon, p["lower"], p["upper"])

    def draw(value):
        return lambda rng, m: mech.perturb(np.full(m, value), rng).astype(np.int64)

    return Sampler(
        draw(p["lower"]),
        draw(p["upper"]),
        "codes",
        0.0,
        "report",
        labels=lambda c: f"rounded report = {'upper' if c else 'lower'}",
    )


register(
    AuditSpec(
        "ldp_mean",
        "Local-DP mean: randomized rounding and binary RR (LDPMean.perturb)",
        "ε-LDP",
        "one user; x: value {lower}, x′: value {upper}",
        "the one-bit rounded report",
        MappingProxyType({"lower": 0.0, "upper": 1.0}),
        _ldp_mean_build,
    )
)


# ---------------------------------------------------------------------- selection


def exponential_pair(m: int, sensitivity: float) -> tuple[np.ndarray, np.ndarray]:
    """Scores on x (all 0) and x′ (candidate 0 up by Δ, the others down by Δ): a non-monotone change.

    ``P[0 | x′] / P[0 | x] = m e^ε / (e^ε + m − 1)`` with the ε-DP scale ``ε/(2Δ)``.
    """
    s1 = np.full(m, -sensitivity)
    s1[0] = sensitivity
    return np.zeros(m), s1


def exponential_build(epsilon: float, p: dict, factor: float = 1.0) -> Sampler:
    """The audit of the exponential mechanism on :func:`exponential_pair`'s scores, run at ``factor · ε``.

    ``factor = 1`` is the mechanism as dpcore runs it, ``exp(ε u/(2Δ))`` (Dwork & Roth 2014, Theorem 3.10);
    :mod:`dpcore.audit.broken` audits ``factor = 2``, ``exp(ε u/Δ)``, which is only ε-DP for monotone scores.
    """
    s0, s1 = exponential_pair(p["candidates"], p["sensitivity"])
    eps = factor * epsilon

    def draw(scores):
        return lambda rng, m: exponential_mechanism(scores, eps, p["sensitivity"], rng, trials=m)

    return Sampler(draw(s0), draw(s1), "codes", 0.0, "choice", labels=lambda c: f"candidate {c} chosen")


register(
    AuditSpec(
        "exponential",
        "The exponential mechanism (exponential_mechanism)",
        "ε-DP",
        "{candidates} candidates; x: every score 0; x′: candidate 0 scores +{sensitivity}, "
        "the others −{sensitivity} (each score moves by at most Δ = {sensitivity})",
        "the chosen candidate",
        MappingProxyType({"candidates": 40, "sensitivity": 1.0}),
        exponential_build,
    )
)


# ---------------------------------------------------------------------- sparse vector


def above_threshold_pair(queries: int, sensitivity: float) -> tuple[np.ndarray, np.ndarray]:
    """Answers on x (0, …, 0, Δ) and x′ (Δ, …, Δ, 0): every answer moves by Δ, the last one the other way.

    The output "the last query is the first above" then pays for the threshold
    noise (the earlier queries rise by Δ on x′) and for the last query's noise
    (it falls by Δ): the two halves of AboveThreshold's ε (Dwork & Roth 2014,
    proof of Theorem 3.23), both at their worst when the noisy threshold is high,
    which a long run of queries below it makes likely.
    """
    a0 = np.zeros(queries)
    a0[-1] = sensitivity
    a1 = np.full(queries, sensitivity)
    a1[-1] = 0.0
    return a0, a1


def index_label(n: int):
    """The label of code ``c`` of an AboveThreshold-like audit over ``n`` queries (``n``: none above the threshold)."""
    return lambda c: "no query above the threshold" if c == n else f"first query above the threshold: #{c}"


def _at_build(epsilon: float, p: dict) -> Sampler:
    a0, a1 = above_threshold_pair(p["queries"], p["sensitivity"])
    n = a0.size

    def draw(answers):
        def run(rng, m):
            idx = above_threshold_trials(answers, p["threshold"], epsilon, rng, m, p["sensitivity"])
            return np.where(idx < 0, n, idx)

        return run

    return Sampler(draw(a0), draw(a1), "codes", 0.0, "first index", labels=index_label(n), width=n)


register(
    AuditSpec(
        "above_threshold",
        "AboveThreshold (above_threshold_trials)",
        "ε-DP",
        "{queries} queries of sensitivity {sensitivity}, threshold {threshold}; x: answers (0, …, 0, Δ); "
        "x′: answers (Δ, …, Δ, 0)",
        "the index of the first query above the threshold (or none)",
        MappingProxyType({"queries": 12, "threshold": 0.0, "sensitivity": 1.0}),
        _at_build,
    )
)


def sparse_pair(rounds: int, queries_per_round: int, sensitivity: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`above_threshold_pair` repeated ``rounds`` times: each round of Sparse at its worst."""
    a0, a1 = above_threshold_pair(queries_per_round, sensitivity)
    return np.tile(a0, rounds), np.tile(a1, rounds)


def set_code(found: np.ndarray) -> np.ndarray:
    """The set of indices in each row of ``found`` (padded with −1) as a bit mask ``Σ 2^i``."""
    return np.where(found >= 0, np.left_shift(1, np.maximum(found, 0)), 0).sum(axis=1)


def set_label(code: int) -> str:
    members = [i for i in range(63) if code >> i & 1]
    return "answered: " + ("none" if not members else "{" + ", ".join(f"#{i}" for i in members) + "}")


def _sparse_build(epsilon: float, p: dict) -> Sampler:
    a0, a1 = sparse_pair(p["c"], p["queries_per_round"], p["sensitivity"])

    def draw(answers):
        return lambda rng, m: set_code(
            sparse_trials(answers, p["threshold"], p["c"], epsilon, rng, m, p["sensitivity"])
        )

    return Sampler(draw(a0), draw(a1), "codes", 0.0, "answered set", labels=set_label, width=a0.size)


register(
    AuditSpec(
        "sparse",
        "Sparse: at most c queries above the threshold (sparse_trials)",
        "ε-DP",
        "{c} rounds of {queries_per_round} queries of sensitivity {sensitivity}, threshold {threshold}; "
        "in each round x: (0, …, 0, Δ), x′: (Δ, …, Δ, 0)",
        "the set of queries answered",
        MappingProxyType({"c": 2, "queries_per_round": 6, "threshold": 0.0, "sensitivity": 1.0}),
        _sparse_build,
    )
)

del _mech, _label, _claim, _extra, _cls


# ---------------------------------------------------------------------- quantiles


def _quantile_build(epsilon: float, p: dict) -> Sampler:
    """x: one record at ``lower + share·(upper − lower)``; x′: it and one more at ``upper`` (add one record).

    At the median (Δu = ½) every output at or above x's record gains ½ of utility on x′ and every output below it
    loses ½, so ``P[output ≥ v | x′] / P[output ≥ v | x] = e^{ε/2} / (e^{−ε/2}(1 − p) + e^{ε/2} p)`` with
    ``p = 1 − share`` the chance of ``output ≥ v`` on x: it tends to e^ε as p falls (0.92 ε at p = 0.05).
    """
    from dpcore.quantiles import ExponentialQuantile  # imported with the block that registers it

    lo, hi = p["lower"], p["upper"]
    mechanism = ExponentialQuantile(epsilon, lo, hi, p["q"])
    record = lo + p["share"] * (hi - lo)
    law0, law1 = mechanism.intervals([record]), mechanism.intervals([record, hi])
    return Sampler(
        lambda rng, m: law0.simulate(rng, m), lambda rng, m: law1.simulate(rng, m), "real", 0.0, "released quantile"
    )


register(
    AuditSpec(
        "quantile",
        "The median (a quantile) by the exponential mechanism over a declared range (dpcore.quantiles)",
        "ε-DP",
        "range [{lower}, {upper}], q = {q}; x: one record at {share} of the range; x′: it and one record at {upper} "
        "(add/remove one record)",
        THRESHOLD_EVENTS,
        MappingProxyType({"q": 0.5, "lower": 0.0, "upper": 1.0, "share": 0.95}),
        _quantile_build,
    )
)


# ---------------------------------------------------------------------- the unit of privacy: one person's rows


#: The person x′ adds to the user-level count's pair, and the bound m on each person's rows.
PERSON_ROWS, PERSON_BOUND = 1_000, 5


def person_count_pair(n: int, rows: int = PERSON_ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Person identifiers of x (``n`` persons, one row each) and x′ (the same and one more person with ``rows`` rows)."""
    x = np.arange(n)
    return x, np.append(x, np.full(rows, n))


def _person_count_build(epsilon: float, p: dict) -> Sampler:
    """A user-level count (:func:`dpcore.groupby.dp_person_count`) on :func:`person_count_pair`, m = PERSON_BOUND.

    Every person keeps ``min(rows, m)`` rows whichever are sampled, so the bounded count does not depend on the
    sampling: one bounding serves every run, and the runs draw the noise. The heavy person (1,000 rows) moves the
    count by exactly m, the sensitivity the noise is calibrated to: the Laplace ratio ``e^ε`` is reached.
    """
    from dpcore.contributions import ContributionBounds  # imported with the block that registers the audit
    from dpcore.groupby import dp_person_count

    bounds = ContributionBounds(max_rows=PERSON_BOUND)
    x0, x1 = person_count_pair(p["n"])
    r0, r1 = dp_person_count(x0, epsilon, 0, bounds=bounds), dp_person_count(x1, epsilon, 0, bounds=bounds)
    return Sampler(_simulated(r0), _simulated(r1), "real", 0.0, "noisy count of rows")


register(
    AuditSpec(
        "person_count",
        "Laplace noise on a user-level count: each person bounded to m rows (dp_person_count)",
        "ε-DP",
        f"x: {{n}} persons with one row each; x′: the same and one more person with {PERSON_ROWS:,} rows "
        f"(add/remove one person; each person keeps at most m = {PERSON_BOUND} rows, sensitivity m)",
        THRESHOLD_EVENTS,
        MappingProxyType({"n": 100}),
        _person_count_build,
    )
)


#: The user-level group-by's bounds, L₀ groups per person and L∞ rows per person in each, and the rows its heavy
#: person holds in each of their groups (more groups than L₀, more rows than L∞).
GROUP_MAX_GROUPS, GROUP_MAX_ROWS, PERSON_GROUP_ROWS = 2, 2, 250
#: The most groups in the group-by audit's pair, and the most rows of its x (n persons in each group).
PAIR_MAX_GROUPS, PAIR_MAX_ROWS = 100, 1_000_000


def person_group_by_pair(
    n: int, groups: int, rows: int = PERSON_GROUP_ROWS
) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``(persons, groups)`` of x (``n`` persons in each of ``groups`` groups, one row each) and of x′ (the same and
    one more person with ``rows`` rows in every group); sizes checked before anything is allocated."""
    groups = check_int(groups, "groups", minimum=1, maximum=PAIR_MAX_GROUPS)
    n = check_int(n, "n", minimum=1)
    check_elements(n * groups, "n × groups (the rows of x)", PAIR_MAX_ROWS)
    persons, codes = np.arange(n * groups), np.repeat(np.arange(groups), n)
    heavy = np.repeat(np.arange(groups), rows)
    return (persons, codes), (np.append(persons, np.full(heavy.size, n * groups)), np.append(codes, heavy))


def group_by_keys(groups: int) -> list[str]:
    """The declared keys of the group-by audit: every group of :func:`person_group_by_pair`, as text."""
    return [str(g) for g in range(groups)]


def group_by_noise(epsilon: float, bounds):
    """The Laplace noise of each group's count as :func:`dpcore.groupby.group_by` calibrates it for ``bounds``."""
    from dpcore.groupby import entry_noise  # the group-by's own rule (ε/L₀ per entry at sensitivity L∞)

    return entry_noise(families.family("laplace"), epsilon, bounds.histogram_sensitivity(), None)


def smallest_count(noise, true: np.ndarray):
    """``draw(rng, m)``: ``m`` runs of ``true`` + the group-by's noise, each reduced to its smallest group."""
    return lambda rng, m: noise.simulate(true, rng, trials=m).min(axis=1)


def _person_group_by_build(epsilon: float, p: dict) -> Sampler:
    """A user-level group-by count (:func:`dpcore.groupby.group_by`, declared keys, Laplace) on
    :func:`person_group_by_pair`, with L₀ = GROUP_MAX_GROUPS, L∞ = GROUP_MAX_ROWS.

    The statistic is the smallest noisy count over the groups. On x every group holds ``n``; on x′ the heavy person
    adds L∞ to L₀ of their groups, chosen at random by the bounding, and the noise of each group is Laplace of scale
    ``b = L₀·L∞/ε``. The privacy loss of an output ``y`` is ``ln mean_S Π_{i∈S} e^{(|y_i − n| − |y_i − n − L∞|)/b}``
    over the L₀-sets S the bounding may keep: each factor is at most ``e^{ε/L₀}``, with equality exactly when
    ``y_i ≥ n + L∞``, so the loss equals ε exactly when every group's noisy count is at least ``n + L∞``, that is
    when the smallest one is. The event {smallest ≥ n + L∞} is thus the whole region where the likelihood ratio
    reaches ``e^ε`` (no event with ratio ``e^ε`` is more likely, by Neyman–Pearson), with probability
    ``2^{−G} e^{−ε(G − L₀)/L₀}`` on x′ (G groups): 0.023 at G = 4, ε = 1, measured closely with 10⁶ runs. The sum
    of the noisy counts, by contrast, moves by L₀·L∞ against G Laplace draws, whose tail ratio nears ``e^ε`` only
    far out (a polynomial factor: about 0.7 ε where its event is as likely), and one group alone shows ε/L₀.

    The event is symmetric in the groups, so its law does not depend on which L₀ groups the bounding kept: one
    bounding serves every run (as for the count), and the runs draw the noise.
    """
    from dpcore.contributions import ContributionBounds  # imported with the block that registers the audit
    from dpcore.groupby import group_by

    bounds = ContributionBounds(max_groups=GROUP_MAX_GROUPS, max_rows_per_group=GROUP_MAX_ROWS)
    (persons0, groups0), (persons1, groups1) = person_group_by_pair(p["n"], p["groups"])
    keys = group_by_keys(p["groups"])
    r0 = group_by(groups0, epsilon, 0, persons=persons0, bounds=bounds, keys=keys)
    r1 = group_by(groups1, epsilon, 0, persons=persons1, bounds=bounds, keys=keys)
    noise = group_by_noise(epsilon, bounds)
    return Sampler(
        smallest_count(noise, r0.true_values),
        smallest_count(noise, r1.true_values),
        "real",
        0.0,
        "smallest noisy count over the groups",
        width=p["groups"],
    )


register(
    AuditSpec(
        "person_group_by",
        "Laplace noise on a user-level group-by count: each person bounded to L₀ groups and L∞ rows in each "
        "(group_by, declared keys)",
        "ε-DP",
        f"x: {{n}} persons in each of {{groups}} declared groups, one row each; x′: the same and one more person "
        f"with {PERSON_GROUP_ROWS:,} rows in every group (add/remove one person; each person keeps at most "
        f"L₀ = {GROUP_MAX_GROUPS} groups and L∞ = {GROUP_MAX_ROWS} rows in each, Laplace scale L₀·L∞/ε per group)",
        "thresholds on the smallest noisy count over the groups: min ≥ t and min < t, for t at quantiles of the "
        "selection runs",
        MappingProxyType({"n": 100, "groups": 4}),
        _person_group_by_build,
    )
)


#: The share of the claimed ε the group-by audit with partition selection gives the selection (the rest: the counts).
SELECTION_SHARE = 0.5


def group_by_selection(epsilon: float, delta: float):
    """The partition selection of the group-by audit: Laplace thresholding at ``SELECTION_SHARE · ε`` and ``δ``, for
    L₀ = GROUP_MAX_GROUPS."""
    from dpcore.partition_selection import LaplaceThresholding  # imported with the block that registers the audit

    return LaplaceThresholding(SELECTION_SHARE * epsilon, delta, max_groups=GROUP_MAX_GROUPS)


def smallest_released_count(noise, selection, counts: np.ndarray, distinct: np.ndarray):
    """``draw(rng, m)``: ``m`` runs of the group-by with partition selection on groups of these bounded ``counts`` and
    ``distinct`` persons, each reduced to its smallest count, a dropped group counting 0."""

    def run(rng, m):
        noisy = noise.simulate(counts, rng, trials=m)
        released = np.column_stack([selection.simulate(int(d), rng, m) for d in distinct])
        return np.where(released, noisy, 0.0).min(axis=1)

    return run


def _person_group_by_selection_build(epsilon: float, p: dict) -> Sampler:
    """:func:`_person_group_by_build` with the groups chosen by private partition selection, an (ε, δ) claim.

    The counts get ``(1 − SELECTION_SHARE)·ε``, Laplace thresholding on each group's distinct persons
    ``SELECTION_SHARE·ε`` and δ (:func:`dpcore.groupby.group_by_cost` adds them). On x each group has ``n`` distinct
    persons; on x′ the L₀ groups the bounding keeps for the heavy person have ``n + 1``. The statistic is the
    smallest noisy count, a dropped group counting 0, so that {smallest ≥ t} for ``t > 0`` is the event "every group
    released and its noisy count at least t". Each group's decision is independent of the noise, and for
    ``n + 1 ≤ τ`` the keep probability gains exactly ``e^{ε_sel/L₀}`` per added person (``p(n) = ½ e^{−(τ − n)ε_sel/L₀}``,
    :class:`~dpcore.partition_selection.LaplaceThresholding`), so for ``t ≥ n + L∞`` the event's ratio is exactly
    ``e^{ε_sel} · e^{ε_count} = e^ε``, symmetric in the groups as before; ``n`` defaults to ``⌊τ⌋ − 1`` at ε = 1,
    where the released probability is largest with that ratio. The δ is not at stake on this pair: every group
    exists in x too (a group only the person creates is released with probability at most δ on x′ and never on x,
    which gives no bound above 0).
    """
    from dpcore.contributions import ContributionBounds, bound_contributions
    from dpcore.groupby import group_by_cost

    bounds = ContributionBounds(max_groups=GROUP_MAX_GROUPS, max_rows_per_group=GROUP_MAX_ROWS)
    selection = group_by_selection(epsilon, p["delta"])
    count_epsilon = epsilon - selection.epsilon
    _, total_delta = group_by_cost(count_epsilon, selection=selection)  # ε: count_epsilon + the selection's = ε
    noise = group_by_noise(count_epsilon, bounds)
    draws = []
    for persons, groups in person_group_by_pair(p["n"], p["groups"]):
        table = bound_contributions(persons, 0, bounds=bounds, groups=groups)  # as group_by bounds them
        counts = np.bincount(table.group_codes[table.kept], minlength=p["groups"]).astype(np.float64)
        draws.append(smallest_released_count(noise, selection, counts, table.distinct))
    return Sampler(
        draws[0],
        draws[1],
        "real",
        total_delta,
        "smallest noisy count over the groups (a dropped group: 0)",
        width=p["groups"],
    )


def _selection_pair_size(epsilon: float = 1.0, delta: float = 1e-5) -> int:
    """``⌊τ⌋ − 1``: the most distinct persons a group can have while one more still multiplies its keep probability
    by ``e^{ε_sel/L₀}``, at the default ε and δ."""
    return max(1, math.floor(group_by_selection(epsilon, delta).threshold) - 1)


register(
    AuditSpec(
        "person_group_by_selection",
        "Laplace noise on a user-level group-by count with private partition selection (Laplace thresholding): "
        "each person bounded to L₀ groups and L∞ rows in each (group_by)",
        "(ε, δ)-DP",
        f"x: {{n}} persons in each of {{groups}} groups, one row each; x′: the same and one more person with "
        f"{PERSON_GROUP_ROWS:,} rows in every group (add/remove one person; each person keeps at most "
        f"L₀ = {GROUP_MAX_GROUPS} groups and L∞ = {GROUP_MAX_ROWS} rows in each; {SELECTION_SHARE:.0%} of ε to the "
        "selection, the rest to the counts)",
        "thresholds on the smallest noisy count over the groups, a dropped group counting 0: min ≥ t and min < t, "
        "for t at quantiles of the selection runs",
        MappingProxyType({"n": _selection_pair_size(), "groups": 3, "delta": 1e-5}),
        _person_group_by_selection_build,
    )
)


def _worst_group_size(selection, largest: int = 200, runs: int = 1_000_000) -> int:
    """The group size n whose pair (n, n + 1) an audit of ``runs`` runs per input measures nearest to the claim.

    Adding one person moves the release decision by ``ln((p(n+1) − δ)/p(n))`` (released) or
    ``ln((1 − p(n) − δ)/(1 − p(n+1)))`` (dropped); each probability is moved by three of its standard errors at
    ``runs`` runs against the claim, so that a pair whose event is too rare to measure is not chosen.
    """
    p = selection.keep_probability(np.arange(largest + 2))
    a, b, d = p[1:-1], p[2:], selection.delta_spent

    def measured(big, small):
        big = big - 3.0 * np.sqrt(big * (1.0 - big) / runs)
        small = small + 3.0 * np.sqrt(small * (1.0 - small) / runs)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(np.maximum(big - d, 0.0) / small)

    scores = np.nan_to_num(np.maximum(measured(b, a), measured(1.0 - a, 1.0 - b)), nan=-np.inf)
    return int(np.argmax(scores)) + 1


def _selection_build(key: str):
    def build(epsilon: float, p: dict) -> Sampler:
        from dpcore.partition_selection import selection as by_key

        selection = by_key(key, epsilon, p["delta"])

        def draw(size: int):
            return lambda rng, m: selection.simulate(size, rng, m).astype(np.int64)

        return Sampler(
            draw(p["n"]),
            draw(p["n"] + 1),
            "codes",
            selection.delta_spent,
            "release decision",
            labels=lambda c: "the group is released" if c else "the group is dropped",
        )

    return build


def _register_selections() -> None:
    from dpcore.partition_selection import SELECTIONS

    for cls in SELECTIONS:
        register(
            AuditSpec(
                f"{cls.key}_selection",
                f"Private partition selection: {cls.name} ({cls.source}), one group of a group-by",
                "(ε, δ)-DP",
                "x: a group of {n} distinct persons; x′: the same group and one more person (add/remove one person, "
                "one group per person)",
                "the release decision (the group released, or dropped)",
                MappingProxyType({"n": _worst_group_size(cls(1.0, 1e-3)), "delta": 1e-3}),
                _selection_build(cls.key),
            )
        )


_register_selections()
