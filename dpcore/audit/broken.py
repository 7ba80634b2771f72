"""Broken variants, as exhibits: each one line away from dpcore's correct code, audited the same way.

Every variant here copies the structure of the dpcore function it breaks and
changes one line, marked ``# BUG`` (with ``bug=None`` the copy draws from the
generator exactly as the original does, so the tests check that it reproduces
the original's outputs run for run). Sources for the bugs:

* SVT variants: Lyu, Su & Li (2017), "Understanding the Sparse Vector Technique
  for Differential Privacy", PVLDB 10(6), Section 3 (Algorithms 3-6: no
  threshold noise, answer noise not scaled with c, no cutoff); Ding et al.
  (2018), "Detecting Violations of Differential Privacy", CCS, Section 6.
* Sensitivity: a clipped sum's sensitivity is the clipping bound (Dwork & Roth
  2014, Definition 3.1), not 1.
* The exponential mechanism's ``ε/Δ`` scale is private only for monotone
  scores (McSherry & Talwar 2007; Dwork & Roth 2014, remark after
  Theorem 3.10).
* Unary encoding probabilities: Wang, Blocki, Li & Jha (2017), Theorem 3.
* Contribution bounding: a person with many rows moves a count by all of them unless each person is bounded to
  m rows, and a group-by's counts unless each person is bounded to L₀ groups and L∞ rows in each (Wilson et al.
  2020, Section 3).

References
----------
- Lyu, Su & Li (2017), "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB
  10(6), Section 3. https://arxiv.org/abs/1603.01699
- Ding, Wang, Wang, Zhang & Kifer (2018), "Detecting Violations of Differential Privacy", CCS,
  Sections 4 and 6. https://arxiv.org/abs/1805.10277
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends
  in Theoretical Computer Science 9(3–4), Definitions 2.4 and 3.1. https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- McSherry & Talwar (2007), "Mechanism Design via Differential Privacy", FOCS.
  https://doi.org/10.1109/FOCS.2007.66
- Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency Estimation",
  USENIX Security, Theorem 3. https://www.usenix.org/conference/usenixsecurity17/technical-sessions/presentation/wang-tianhao
- Wilson, Zhang, Lam, Desfontaines, Simmons-Marengo & Gipson (2020), "Differentially Private SQL with Bounded User
  Contribution", Proceedings on Privacy Enhancing Technologies 2020(2), Section 3. https://arxiv.org/abs/1909.01917
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from scipy.special import expit

from dpcore.audit.catalogue import (
    GROUP_MAX_GROUPS,
    GROUP_MAX_ROWS,
    PERSON_BOUND,
    PERSON_GROUP_ROWS,
    PERSON_ROWS,
    SELECTION_SHARE,
    above_threshold_pair,
    exponential_build,
    group_by_noise,
    group_by_selection,
    index_label,
    person_count_pair,
    person_group_by_pair,
    set_code,
    set_label,
    smallest_count,
    smallest_released_count,
    sparse_pair,
    unary_build,
)
from dpcore.audit.engine import Sampler
from dpcore.contributions import ContributionBounds
from dpcore.laplace import Laplace, sample_laplace
from dpcore.unary_encoding import SUE

__all__ = ["BrokenSpec", "BROKEN", "above_threshold_variant", "sparse_variant"]


@dataclass(frozen=True)
class BrokenSpec:
    """A broken variant of a catalogue mechanism.

    Attributes
    ----------
    key : str
    bug : str
        The bug in one line.
    build : callable
        ``build(epsilon, params) -> Sampler``, as for the catalogue.
    params : Mapping
        Parameters whose defaults differ from the correct mechanism's audit (a pair that shows the bug).
    neighbours : str, optional
        The pair in words when it differs from the catalogue's.
    violates : bool
        Whether the bug breaks the privacy claim (an audit must then exceed it);
        False for a bug that only breaks the estimates, kept as a control.
    actual_epsilon : callable, optional
        ``actual_epsilon(epsilon, params)``: the true ε of the variant, when known in closed form.
    """

    key: str
    bug: str
    build: Callable[[float, dict], Sampler] = field(repr=False)
    params: Mapping = field(default_factory=lambda: MappingProxyType({}))
    neighbours: str | None = None
    violates: bool = True
    actual_epsilon: Callable[[float, dict], float] | None = field(default=None, repr=False)


# ---------------------------------------------------------------------- sparse vector


def above_threshold_variant(answers, threshold, epsilon, rng, trials, sensitivity=1.0, bug=None) -> np.ndarray:
    """:func:`dpcore.svt.above_threshold_trials` with one line changed (``-1`` where nothing passed).

    ``bug``: None (the correct algorithm), ``"shared_query_noise"`` (one noise
    draw for every query of a run), ``"no_threshold_noise"`` (the threshold is
    compared as it is). One block of trials (the original splits into blocks of
    2²² draws; below that the two consume the generator identically).
    """
    answers = np.asarray(answers, dtype=np.float64)
    m = trials
    t_hat = threshold + sample_laplace(rng, 2.0 * sensitivity / epsilon, size=(m, 1))
    if bug == "no_threshold_noise":
        t_hat = np.full((m, 1), float(threshold))  # BUG: the threshold noise is skipped
    if bug == "shared_query_noise":
        mask = answers + sample_laplace(rng, 4.0 * sensitivity / epsilon, size=(m, 1)) >= t_hat  # BUG: one draw
    else:
        mask = answers + sample_laplace(rng, 4.0 * sensitivity / epsilon, size=(m, answers.size)) >= t_hat
    idx = mask.argmax(axis=1)
    return np.where(mask[np.arange(m), idx], idx, -1)


def sparse_variant(answers, threshold, c, epsilon, rng, trials, sensitivity=1.0, bug=None) -> np.ndarray:
    """:func:`dpcore.svt.sparse_trials` with one line changed (indices padded with ``-1``).

    ``bug``: None (the correct algorithm) or ``"no_cutoff"``: the loop runs
    over every query instead of stopping after ``c`` positives, while each round
    still costs only ε/c. The output then has one column per query. One block
    of trials, as in :func:`above_threshold_variant`.
    """
    answers = np.asarray(answers, dtype=np.float64)
    round_eps = epsilon / c
    n = answers.size
    rounds = n if bug == "no_cutoff" else c  # BUG: no cutoff after c positives
    positions = np.arange(n)
    m = trials
    out = np.full((m, rounds), -1, dtype=np.int64)
    rows = np.arange(m)
    nxt = np.zeros(m, dtype=np.int64)
    active = np.ones(m, dtype=bool)
    for r in range(rounds):
        active &= nxt < n
        if not active.any():
            break
        t_hat = threshold + sample_laplace(rng, 2.0 * sensitivity / round_eps, size=(m, 1))
        mask = answers + sample_laplace(rng, 4.0 * sensitivity / round_eps, size=(m, n)) >= t_hat
        mask &= positions >= nxt[:, None]
        idx = mask.argmax(axis=1)
        passed = mask[rows, idx] & active
        out[rows[passed], r] = idx[passed]
        nxt = np.where(passed, idx + 1, nxt)
        active &= passed
    return out


def _at_variant_build(bug: str):
    def build(epsilon: float, p: dict) -> Sampler:
        a0, a1 = above_threshold_pair(p["queries"], p["sensitivity"])
        n = a0.size

        def draw(answers):
            def run(rng, m):
                idx = above_threshold_variant(answers, p["threshold"], epsilon, rng, m, p["sensitivity"], bug)
                return np.where(idx < 0, n, idx)

            return run

        return Sampler(draw(a0), draw(a1), "codes", 0.0, "first index", labels=index_label(n), width=n)

    return build


def _sparse_variant_build(epsilon: float, p: dict) -> Sampler:
    a0, a1 = sparse_pair(p["rounds"], p["queries_per_round"], p["sensitivity"])

    def draw(answers):
        return lambda rng, m: set_code(
            sparse_variant(answers, p["threshold"], p["c"], epsilon, rng, m, p["sensitivity"], bug="no_cutoff")
        )

    return Sampler(draw(a0), draw(a1), "codes", 0.0, "answered set", labels=set_label, width=a0.size)


# ---------------------------------------------------------------------- sum sensitivity


def _sum_sensitivity_one_build(epsilon: float, p: dict) -> Sampler:
    lo, hi = p["lower"], p["upper"]
    data0 = np.full(p["n"], lo)
    data1 = np.append(data0, hi)
    # as dp_sum: the clipped sum, released with Laplace noise ...
    true0, true1 = float(np.clip(data0, lo, hi).sum()), float(np.clip(data1, lo, hi).sum())
    noise = Laplace.from_epsilon(epsilon, 1.0)  # BUG: sensitivity 1, not max(|lower|, |upper|)

    def draw(true):
        return lambda rng, m: noise.simulate(true, rng, trials=m)

    return Sampler(draw(true0), draw(true1), "real", 0.0, "noisy sum")


# ---------------------------------------------------------------------- contribution bounding


def _person_count_unbounded_build(epsilon: float, p: dict) -> Sampler:
    x0, x1 = person_count_pair(p["n"])
    # as dp_person_count: the rows counted, with Laplace noise at the bound's sensitivity m ...
    noise = Laplace.from_epsilon(epsilon, ContributionBounds(max_rows=PERSON_BOUND).count_sensitivity().l1)
    true0, true1 = float(x0.size), float(x1.size)  # BUG: every row counted, no person bounded to m rows

    def draw(true):
        return lambda rng, m: noise.simulate(true, rng, trials=m)

    return Sampler(draw(true0), draw(true1), "real", 0.0, "noisy count of rows")


def _person_group_by_unbounded_build(epsilon: float, p: dict) -> Sampler:
    (_, groups0), (_, groups1) = person_group_by_pair(p["n"], p["groups"])
    # as group_by with declared keys: counts per group, with Laplace noise calibrated to L₀ groups of L∞ rows ...
    bounds = ContributionBounds(max_groups=GROUP_MAX_GROUPS, max_rows_per_group=GROUP_MAX_ROWS)
    noise = group_by_noise(epsilon, bounds)
    true0 = np.bincount(groups0, minlength=p["groups"]).astype(np.float64)  # BUG: every row counted, in every group
    true1 = np.bincount(groups1, minlength=p["groups"]).astype(np.float64)
    return Sampler(
        smallest_count(noise, true0),
        smallest_count(noise, true1),
        "real",
        0.0,
        "smallest noisy count over the groups",
        width=p["groups"],
    )


def _person_group_by_selection_unbounded_build(epsilon: float, p: dict) -> Sampler:
    from dpcore.groupby import group_by_cost

    # as group_by with partition selection: Laplace thresholding and noisy counts, both calibrated to L₀ and L∞ ...
    bounds = ContributionBounds(max_groups=GROUP_MAX_GROUPS, max_rows_per_group=GROUP_MAX_ROWS)
    selection = group_by_selection(epsilon, p["delta"])
    count_epsilon = epsilon - selection.epsilon
    _, total_delta = group_by_cost(count_epsilon, selection=selection)
    noise = group_by_noise(count_epsilon, bounds)
    draws = []
    for persons, groups in person_group_by_pair(p["n"], p["groups"]):
        counts = np.bincount(groups, minlength=p["groups"]).astype(np.float64)  # BUG: every row, in every group
        distinct = np.array([np.unique(persons[groups == g]).size for g in range(p["groups"])])
        draws.append(smallest_released_count(noise, selection, counts, distinct))
    return Sampler(
        draws[0],
        draws[1],
        "real",
        total_delta,
        "smallest noisy count over the groups (a dropped group: 0)",
        width=p["groups"],
    )


def _unbounded_group_by_epsilon(epsilon: float, p: dict, selection: bool) -> float:
    """The privacy loss of the unbounded group-by on its pair: each of the G groups moved by its rows (and, with a
    selection, by one distinct person) against noise calibrated to L₀ groups of L∞ rows."""
    count_epsilon = epsilon * (1.0 - SELECTION_SHARE) if selection else epsilon
    per_group = count_epsilon * PERSON_GROUP_ROWS / (GROUP_MAX_GROUPS * GROUP_MAX_ROWS)
    if selection:
        per_group += SELECTION_SHARE * epsilon / GROUP_MAX_GROUPS
    return p["groups"] * per_group


# ---------------------------------------------------------------------- unary encoding


@dataclass(frozen=True)
class _UnaryProbabilities(SUE):
    """SUE's perturbation with chosen ``p`` and ``q`` (the variants below)."""

    swap: bool = False

    def __post_init__(self):
        super().__post_init__()
        if self.swap:
            p, q = self.q, self.p  # BUG (swapped): the true bit kept with q, the others set with p
        else:
            p, q = float(expit(self.epsilon)), float(expit(-self.epsilon))  # BUG: binary RR's p, q (ε, not ε/2)
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "q", q)


def _unary_variant_build(swap: bool):
    def cls(epsilon, k):
        return _UnaryProbabilities(epsilon, k, swap=swap)

    cls.__name__ = "SUE"
    return unary_build(cls)


# ---------------------------------------------------------------------- the exhibits


def _table(*specs: BrokenSpec) -> Mapping[str, BrokenSpec]:
    return MappingProxyType({s.key: s for s in specs})


#: Broken exhibits by catalogue name, then by key.
BROKEN: Mapping[str, Mapping[str, BrokenSpec]] = MappingProxyType(
    {
        "above_threshold": _table(
            BrokenSpec(
                "shared_query_noise",
                "one Laplace draw is reused for every query of a run instead of a fresh draw per query",
                _at_variant_build("shared_query_noise"),
                MappingProxyType({"queries": 2}),
                actual_epsilon=lambda e, p: float("inf"),
            ),
            BrokenSpec(
                "no_threshold_noise",
                "the threshold is compared without its Laplace noise",
                _at_variant_build("no_threshold_noise"),
                MappingProxyType({"queries": 8}),
            ),
        ),
        "sparse": _table(
            BrokenSpec(
                "no_cutoff",
                "Sparse keeps answering after c positives, each round still charged ε/c",
                _sparse_variant_build,
                MappingProxyType({"c": 1, "rounds": 4, "queries_per_round": 2}),
                neighbours="{rounds} rounds of {queries_per_round} queries of sensitivity {sensitivity}, "
                "threshold {threshold}, cutoff c = {c}; in each round x: (0, …, 0, Δ), x′: (Δ, …, Δ, 0)",
            ),
        ),
        "laplace_sum": _table(
            BrokenSpec(
                "sensitivity_one",
                "Laplace noise calibrated to sensitivity 1 for a sum clipped at [0, 10] (sensitivity 10)",
                _sum_sensitivity_one_build,
                actual_epsilon=lambda e, p: e * max(abs(p["lower"]), abs(p["upper"])),
            ),
        ),
        "sue": _table(
            BrokenSpec(
                "rr_probabilities",
                "SUE with binary RR's p = e^ε/(e^ε + 1), q = 1/(e^ε + 1): ε per bit, though two bits change",
                _unary_variant_build(swap=False),
                actual_epsilon=lambda e, p: 2.0 * e,
            ),
            BrokenSpec(
                "swapped_pq",
                "SUE with p and q swapped: the report is the bitwise complement of correct SUE's, "
                "so it is still ε-LDP (only the frequency estimates break); a control",
                _unary_variant_build(swap=True),
                violates=False,
                actual_epsilon=lambda e, p: e,
            ),
        ),
        "person_count": _table(
            BrokenSpec(
                "no_bounding",
                "every row of a person counted (no contribution bounding), the noise still calibrated to m rows",
                _person_count_unbounded_build,
                actual_epsilon=lambda e, p: e * PERSON_ROWS / PERSON_BOUND,
            ),
        ),
        "person_group_by": _table(
            BrokenSpec(
                "no_bounding",
                "every row of a person counted in every group (no contribution bounding), the noise still "
                "calibrated to L₀ groups of L∞ rows",
                _person_group_by_unbounded_build,
                actual_epsilon=lambda e, p: _unbounded_group_by_epsilon(e, p, selection=False),
            ),
        ),
        "person_group_by_selection": _table(
            BrokenSpec(
                "no_bounding",
                "every row of a person counted in every group and in each group's distinct persons (no contribution "
                "bounding), the noise and the threshold still calibrated to L₀ groups of L∞ rows",
                _person_group_by_selection_unbounded_build,
                actual_epsilon=lambda e, p: _unbounded_group_by_epsilon(e, p, selection=True),
            ),
        ),
        "exponential": _table(
            BrokenSpec(
                "monotone_scale",
                "exp(ε·u/Δ) instead of exp(ε·u/(2Δ)) for a score that is not monotone",
                lambda e, p: exponential_build(e, p, factor=2.0),
                actual_epsilon=lambda e, p: 2.0 * e,
            ),
        ),
    }
)
