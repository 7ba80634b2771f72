"""The two calls a page makes: :func:`audit` and :func:`lower_bound_curve`.

References
----------
- Jagielski, Ullman & Oprea (2020), "Auditing Differentially Private Machine Learning: How Private is
  Private SGD?", NeurIPS, Section 3 and Algorithm 2. https://arxiv.org/abs/2006.07709
"""

from __future__ import annotations

import math
from types import MappingProxyType

from dpcore import limits
from dpcore.audit.broken import BROKEN
from dpcore.audit.catalogue import CATALOGUE, PAIR_MAX_GROUPS
from dpcore.audit.engine import AuditResult, BoundCurve, bound_curve, run_audit
from dpcore.validation import (
    as_generator,
    check_choice,
    check_delta,
    check_elements,
    check_epsilon,
    check_finite_real,
    check_int,
    check_probability,
)

__all__ = [
    "audit",
    "lower_bound_curve",
    "MIN_TRIALS",
    "MAX_TRIALS",
    "MAX_CURVE_TRIALS",
    "PARAM_MAXIMA",
    "MAX_AUDIT_WORK",
]

MIN_TRIALS = 100
#: Runs on each input (dpcore.limits): the audit draws them in blocks, its time grows with them.
MAX_TRIALS = limits.MAX_TRIALS
#: The curve keeps all its runs in memory (two float64 arrays).
MAX_CURVE_TRIALS = limits.MAX_TRIALS
#: The largest value of each whole-number parameter of an audit: each sizes what one run draws (n records,
#: k values, candidates, queries, rounds, groups), so with the runs it bounds the audit's work.
PARAM_MAXIMA = MappingProxyType(
    {
        "n": 1_000_000,
        "k": 1_000,
        "candidates": 1_000,
        "queries": 1_000,
        "c": 100,
        "queries_per_round": 100,
        "rounds": 100,
        "groups": PAIR_MAX_GROUPS,
    }
)
#: Runs × what one run draws (queries, candidates, values, rounds × queries per round, groups): about 3 s of CPU.
MAX_AUDIT_WORK = 100_000_000
_RUN_WIDTH = ("queries", "candidates", "k", "rounds", "queries_per_round", "groups")


def _check_work(trials: int, params: dict) -> None:
    width = math.prod(params.get(key, 1) for key in _RUN_WIDTH)
    check_elements(trials * width, "runs × draws per run", MAX_AUDIT_WORK)


def _resolve(name, epsilon, broken, params):
    """Check the arguments; return ``(spec, exhibit, epsilon, params)``."""
    check_choice(name, "name", tuple(CATALOGUE))
    spec = CATALOGUE[name]
    exhibit = None
    defaults = dict(spec.params)
    if broken is not None:
        exhibits = BROKEN.get(name, {})
        if not exhibits:
            raise ValueError(f"broken must be None for {name!r} (it has no broken exhibit), got {broken!r}")
        check_choice(broken, "broken", tuple(exhibits))
        exhibit = exhibits[broken]
        defaults.update(exhibit.params)
    epsilon = check_epsilon(epsilon)
    unknown = sorted(set(params) - set(defaults))
    if unknown:
        allowed = ", ".join(defaults) or "none"
        raise ValueError(f"parameters of {name!r} must be among ({allowed}), got {unknown[0]!r}")
    merged = {**defaults, **params}
    for key, value in merged.items():
        default = defaults[key]
        if key == "delta":
            merged[key] = check_delta(value, "delta")
        elif isinstance(default, int) and not isinstance(default, bool):
            merged[key] = check_int(value, key, minimum=1, maximum=PARAM_MAXIMA.get(key))
        else:
            merged[key] = check_finite_real(value, key)
    return spec, exhibit, epsilon, merged


def audit(
    name: str, epsilon: float, *, trials: int, rng, broken: str | None = None, confidence: float = 0.95, **params
) -> AuditResult:
    """Audit the claim "mechanism ``name`` is ε-DP" (or (ε, δ)-DP) on its worst-case neighbouring pair.

    Runs the mechanism ``trials`` times on each input of the pair, chooses the
    output event and direction on the first half of the runs and measures it on
    the second half, and returns the Clopper–Pearson lower bound on ε (see
    :mod:`dpcore.audit.engine` for why the confidence is honest). With
    ``broken``, the same audit of a broken variant from :data:`BROKEN`.

    Parameters
    ----------
    name : str
        A key of :data:`dpcore.audit.CATALOGUE`.
    epsilon : float
        The claimed ε, in (0, inf); the mechanism is calibrated to it (the coin
        flip is fixed at ln 3 and ``epsilon`` is only the claim).
    trials : int
        Runs on each input, in [100, 10⁸].
    rng : numpy.random.Generator or int
    broken : str, optional
        A key of ``BROKEN[name]``.
    confidence : float, default 0.95
        Probability, in (0, 1), that the bound is below the true ε.
    **params
        The mechanism's parameters (``CATALOGUE[name].params`` lists them with
        their defaults; a broken exhibit may change some defaults).

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> r = audit("laplace_count", 1.0, trials=200_000, rng=1)
    >>> 0.9 < r.epsilon_lower <= 1.0
    True
    >>> audit("laplace_sum", 1.0, trials=200_000, rng=1, broken="sensitivity_one").violated
    True
    """
    spec, exhibit, epsilon, p = _resolve(name, epsilon, broken, params)
    trials = check_int(trials, "trials", minimum=MIN_TRIALS, maximum=MAX_TRIALS)
    _check_work(trials, p)
    confidence = check_probability(confidence, "confidence")
    rng = as_generator(rng)
    sampler = (exhibit or spec).build(epsilon, p)
    found = run_audit(sampler, trials, rng, confidence)
    return AuditResult(
        name=name,
        broken=broken,
        epsilon_claimed=epsilon,
        delta=sampler.delta,
        confidence=confidence,
        trials=trials,
        neighbours=(exhibit.neighbours.format(**p) if exhibit and exhibit.neighbours else spec.describe_neighbours(p)),
        output_name=sampler.output_name,
        params=MappingProxyType(p),
        **found,
    )


def lower_bound_curve(
    name: str,
    epsilon: float,
    *,
    trials: int,
    rng,
    broken: str | None = None,
    confidence: float = 0.95,
    points: int = 12,
    **params,
) -> BoundCurve:
    """The audit's lower bound at nested numbers of runs: how it rises toward the claim.

    One sample of ``trials`` runs per input is drawn; the point at ``n`` runs
    audits the first ``n`` of them (event chosen on the first ``n/2``, measured
    on the next ``n/2``), for ``n`` geometrically spaced from 100 to ``trials``.
    Each point is an honest audit on its own; the points share runs, so they
    are not independent.

    Parameters
    ----------
    name, epsilon, rng, broken, confidence, **params
        As in :func:`audit`.
    trials : int
        The largest number of runs per input, in [100, 10⁷].
    points : int, default 12
        Number of trial counts, in [2, 100].

    Returns
    -------
    BoundCurve
    """
    spec, exhibit, epsilon, p = _resolve(name, epsilon, broken, params)
    trials = check_int(trials, "trials", minimum=MIN_TRIALS, maximum=MAX_CURVE_TRIALS)
    _check_work(trials, p)
    confidence = check_probability(confidence, "confidence")
    points = check_int(points, "points", minimum=2, maximum=100)
    rng = as_generator(rng)
    sampler = (exhibit or spec).build(epsilon, p)
    sizes, bounds = bound_curve(sampler, trials, rng, confidence, points)
    return BoundCurve(sizes, bounds, epsilon, sampler.delta, confidence, name, broken)
