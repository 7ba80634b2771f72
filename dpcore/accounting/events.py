"""Privacy events: releases the accountants charge that are not a dpcore mechanism object.

A mechanism of dpcore (``Laplace``, ``Gaussian``, ``GRR``, ``SUE``, ``OUE``,
``LDPMean``) is charged as what it is. A release whose only known guarantee
is "ε-DP" (the exponential mechanism, AboveThreshold, Sparse, a whole SVT
release, a third-party tool) is a :class:`PureDP` event, the analogue of
dp_accounting's ``EpsilonDeltaDpEvent`` with δ = 0. A DP-SGD training run is
a :class:`PoissonSampledGaussian` event, dp_accounting's
``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), T)``.
A release whose only known guarantee is an (ε, δ) pair with δ > 0 (a partition
selection, whose δ is the chance a one-person group shows) is an
:class:`ApproxDP` event, dp_accounting's ``EpsilonDeltaDpEvent``: it enters
basic composition only.

This module is a leaf of the accounting: an event holds its parameters,
checked, and imports no accountant, so that no accountant can form an import
cycle through an event (dp_accounting keeps its events in ``dp_event.py`` for
the same reason). What an event costs under each accountant (the subsampled
Gaussian's RDP curve and PLD are in :mod:`dpcore.accounting.subsampled_gaussian`)
is decided in :mod:`dpcore.accounting.per_release`.

An event says, like every release, under which neighbouring relation and
unit of privacy its guarantee holds (:mod:`dpcore.neighbours`): the caller
knows, since the ε of an exponential mechanism or an SVT follows from a
sensitivity under some relation. The default is that of every central query
of dpcore, add/remove one record.

How an event enters each accountant is decided in one place,
:mod:`dpcore.accounting.per_release`.

References
----------
- Kairouz, Oh & Viswanath (2015), "The Composition Theorem for Differential Privacy", ICML,
  Theorem 2.1 and Corollary 2.3. https://arxiv.org/abs/1311.0776
- Mironov, Talwar & Zhang (2019), "Rényi Differential Privacy of the Sampled Gaussian Mechanism",
  arXiv:1908.10530, Section 3 (why zCDP sees no amplification by sampling). https://arxiv.org/abs/1908.10530
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and Trends in
  Theoretical Computer Science 9(3–4), Theorem 3.16 (basic composition of (ε, δ)-DP releases).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Google dp_accounting, ``dp_event.EpsilonDeltaDpEvent``, ``PoissonSampledDpEvent``, ``SelfComposedDpEvent``.
  https://github.com/google/differential-privacy
"""

from __future__ import annotations

from dataclasses import dataclass

from dpcore.limits import MAX_COMPOSITIONS
from dpcore.neighbours import ADD_REMOVE, UNIT_RECORD, NeighbouringRelation, check_relation, check_unit
from dpcore.validation import check_delta, check_epsilon, check_int, check_noise_multiplier, check_sampling_rate

__all__ = ["PureDP", "ApproxDP", "PoissonSampledGaussian"]


@dataclass(frozen=True)
class PureDP:
    """One ε-DP release of any kind, for the accountants.

    Its accounting is that of binary randomized response at the same ε, the
    worst case of every ε-DP mechanism: any ε-DP mechanism's output pair is a
    post-processing of binary RR's (Kairouz, Oh & Viswanath 2015, Theorem 2.1 /
    Corollary 2.3), so its Rényi divergences, privacy loss distribution and
    compositions are bounded by those of ``GRR(ε, 2)``. Under basic
    composition it costs ε; under zCDP ``ε²/2`` (Bun & Steinke 2016,
    Proposition 1.4).

    Parameters
    ----------
    epsilon : float
        The ε of the release, in (0, inf).
    relation : NeighbouringRelation, default ADD_REMOVE
        The neighbouring relation the ε holds under.
    unit : {"record", "client"}, default "record"
        The unit of privacy the ε holds for.

    Examples
    --------
    >>> from dpcore.accounting import BudgetLedger
    >>> BudgetLedger(1.0, 1e-6).spend(PureDP(0.25), count=2).spent().epsilon
    0.5
    """

    epsilon: float
    relation: NeighbouringRelation = ADD_REMOVE
    unit: str = UNIT_RECORD

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        check_relation(self.relation)
        check_unit(self.unit)


@dataclass(frozen=True)
class ApproxDP:
    """One (ε, δ)-DP release of any kind, with δ > 0, for the accountants: its (ε, δ) is all that is known of it.

    Basic composition charges it ``(ε, δ)``: the (ε_i, δ_i) of releases add up
    (Dwork & Roth 2014, Theorem 3.16), so a ledger holding it and a Laplace
    release at ε₀ spends ``(ε + ε₀, δ)``. At a per-release δ' ≥ δ it is also
    (ε, δ')-DP; below δ it states nothing (an ε of ``inf``).

    No other accounting of dpcore applies to it. An (ε, δ) guarantee with
    δ > 0 bounds no Rényi divergence (a mechanism may put mass δ where its
    neighbour puts none: the divergence is infinite at every order), so it has
    no RDP curve and no zCDP ρ. A privacy loss distribution that dominates it
    exists (Kairouz, Oh & Viswanath 2015, Theorem 2.1: mass δ at +∞, the rest
    at ±ε), but dpcore's PLD accountant has no entry for it, so it is not
    offered either. The accountants refuse it (:func:`~dpcore.accounting.curves.epsilon_curve` names
    ``"basic"`` as its only method), and a ledger holding it charges by basic
    composition only: its RDP, zCDP and exact (μ-GDP) bounds do not apply while
    it is recorded (:class:`~dpcore.accounting.ledger.BudgetLedger`).

    Parameters
    ----------
    epsilon : float
        The ε of the release, in (0, inf).
    delta : float
        The δ of the release, in (0, 1) (a δ of 0 is a :class:`PureDP`).
    relation : NeighbouringRelation, default ADD_REMOVE
        The neighbouring relation the (ε, δ) holds under.
    unit : {"record", "client", "person"}, default "record"
        The unit of privacy the (ε, δ) holds for.

    Examples
    --------
    >>> from dpcore.accounting import BudgetLedger
    >>> from dpcore.laplace import Laplace
    >>> led = BudgetLedger(2.0, 1e-5).spend(ApproxDP(0.5, 1e-6)).spend(Laplace.from_epsilon(1.0))
    >>> led.charge()[:3]
    (1.5, 1e-06, 'basic')
    """

    epsilon: float
    delta: float
    relation: NeighbouringRelation = ADD_REMOVE
    unit: str = UNIT_RECORD

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check_delta(self.delta))
        check_relation(self.relation)
        check_unit(self.unit)


@dataclass(frozen=True)
class PoissonSampledGaussian:
    """T steps of the Poisson-subsampled Gaussian mechanism: one DP-SGD training run, as one privacy event.

    Like dp_accounting's ``SelfComposed(PoissonSampled(q, Gaussian(σ)), T)``
    under add/remove neighbours of one record. Its accountings are those of
    :mod:`dpcore.accounting.subsampled_gaussian`, reached through the dispatch
    table (:mod:`dpcore.accounting.per_release`): its RDP curve
    (:func:`~dpcore.accounting.per_release.release_rdp`, T times
    :func:`~dpcore.accounting.subsampled_gaussian.subsampled_gaussian_rdp`), its
    ε at a δ (:func:`~dpcore.accounting.per_release.release_epsilon`, the PLD of
    :func:`~dpcore.accounting.subsampled_gaussian.dpsgd_epsilon`), and the
    PLD accountant (:func:`~dpcore.accounting.pld.pld_epsilon`).

    Parameters
    ----------
    noise_multiplier : float
        σ, in [0.1, 10⁴] (:mod:`dpcore.limits`).
    sampling_rate : float
        q, in [1e-7, 1].
    steps : int, default 1
        T, in [1, inf).

    Examples
    --------
    >>> from dpcore.accounting.per_release import release_epsilon
    >>> run = PoissonSampledGaussian(noise_multiplier=1.1, sampling_rate=256 / 60_000, steps=14_063)
    >>> round(float(release_epsilon(run, 1e-5)), 3), run.zcdp_rho > 5_000
    (2.385, True)
    """

    noise_multiplier: float
    sampling_rate: float
    steps: int = 1

    def __post_init__(self):
        object.__setattr__(self, "noise_multiplier", check_noise_multiplier(self.noise_multiplier))
        object.__setattr__(self, "sampling_rate", check_sampling_rate(self.sampling_rate))
        object.__setattr__(self, "steps", check_int(self.steps, "steps", minimum=1, maximum=MAX_COMPOSITIONS))

    @property
    def zcdp_rho(self) -> float:
        """The smallest ρ with ``T · r(α) ≤ ρ α`` for every α: ``T / (2σ²)``, no amplification by sampling.

        ``r(α) ≤ α/(2σ²)`` (subsampling cannot increase a divergence: the
        mixture's divergence is at most that of ``N(1, σ²)`` by convexity), and
        ``r(α)/α → 1/(2σ²)`` as ``α → ∞`` (the ``i = α`` term alone gives
        ``r(α) ≥ α/(2σ²) + α ln q /(α − 1)``; Mironov, Talwar, Zhang 2019). So
        zCDP, a bound linear in α, cannot see the amplification: use RDP or PLD
        for subsampled runs.
        """
        return self.steps / (2.0 * self.noise_multiplier * self.noise_multiplier)
