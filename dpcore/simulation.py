"""The label of a simulated release: the same :class:`~dpcore.release.Release` type, randomness SIMULATION.

What the explorer's views draw is seeded noise: reproducible from the link, shown beside the truth, and not
private (:mod:`dpcore.randomness`). Its downloads still say what a reader needs to judge the numbers, in the
same words as a publication: the mechanism, the (ε, δ) each number would cost, the neighbouring relation and
unit under which that guarantee would hold, and that the randomness is a simulation. :func:`simulated`
builds that release from the mechanism (or query result) that drew it; the relation and unit come from the
accounting registry (:func:`dpcore.accounting.per_release.relation_of`), the one home of that fact.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Definition 2.4 (a guarantee holds under a
  neighbouring relation). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
"""

from __future__ import annotations

import math

from dpcore.accounting.events import PoissonSampledGaussian
from dpcore.accounting.per_release import relation_of
from dpcore.neighbours import check_unit
from dpcore.queries import MeanResult, QueryResult
from dpcore.randomness import Randomness
from dpcore.release import PublicFact, Release, as_tuple

__all__ = ["simulated"]


def _describe(mechanism) -> tuple[str, float, float, float]:
    """Words, ε, δ and noise std of one mechanism (or query result) that drew a simulation."""
    if isinstance(mechanism, MeanResult):
        words = f"noisy clipped sum over noisy count, {type(mechanism.sum.mechanism).__name__} noise"
        return words, mechanism.epsilon, mechanism.delta or 0.0, mechanism.approx_std
    if isinstance(mechanism, QueryResult):
        mechanism = mechanism.mechanism
    if isinstance(mechanism, PoissonSampledGaussian):  # a whole DP-SGD or DP-FedAvg run: its (ε, δ) is the caller's
        words = (
            f"Poisson-subsampled Gaussian noise, noise multiplier {mechanism.noise_multiplier:g}, sampling rate "
            f"{mechanism.sampling_rate:.4g}, {mechanism.steps:,} steps"
        )
        return words, math.nan, math.nan, math.nan
    std = getattr(mechanism, "std", math.nan)
    std = float(std) if isinstance(std, (int, float)) else math.nan
    delta = getattr(mechanism, "delta", None)
    epsilon = getattr(mechanism, "epsilon", None)  # None for a Gaussian given by σ: its (ε, δ) is the caller's
    epsilon = math.nan if epsilon is None else float(epsilon)
    return f"{type(mechanism).__name__} noise", epsilon, float(delta or 0.0), std


def simulated(
    mechanism, *, query: str, value=math.nan, labels=("value",), public=(), spent=None, unit: str | None = None
) -> Release:
    """The label of a simulated (seeded, not private) release drawn by ``mechanism``.

    Parameters
    ----------
    mechanism : object
        The dpcore mechanism that drew it (Laplace, Gaussian, GRR, SUE, OUE, LDPMean, a staircase, a PureDP
        event for a composite such as SVT, a DP-SGD run), or the :class:`~dpcore.queries.QueryResult` /
        :class:`~dpcore.queries.MeanResult` it returned.
    query : str
        What was asked, in words.
    value, labels
        The simulated numbers and one label each (``nan`` when the file carries them itself).
    public : sequence of PublicFact
        The facts it relied on, with where they came from.
    spent : (float, float), optional
        The (ε, δ) of the whole run when ``mechanism`` is one of T composed releases (noisy gradient descent's
        Gaussian) or an event without its own ε (a :class:`~dpcore.accounting.events.PoissonSampledGaussian`
        run: required), as the run's accountant computed them.
    unit : str, optional
        The unit of privacy when the run protects more than one record: ``"client"`` for DP-FedAvg, whose
        clipping bounds one client's whole update (McMahan et al. 2018), as the ledger is told.

    Raises
    ------
    TypeError
        When ``mechanism`` is not one the accountants know (naming those they do).
    """
    source = mechanism.mechanism if isinstance(mechanism, QueryResult) else mechanism
    source = source.sum.mechanism if isinstance(source, MeanResult) else source
    relation, kind_unit = relation_of(source)
    unit = kind_unit if unit is None else check_unit(unit)
    words, epsilon, delta, std = _describe(mechanism)
    if spent is not None:
        epsilon, delta = (float(v) for v in spent)
    elif math.isnan(epsilon):
        raise TypeError(f"spent must be given for a {type(source).__name__} run: its (epsilon, delta)")
    return Release(
        query=query,
        value=as_tuple(value) if not isinstance(value, str) else value,
        labels=tuple(labels),
        mechanism=words,
        noise_std=std,
        epsilon=epsilon,
        delta=delta,
        relation=relation,
        unit=unit,
        randomness=Randomness.SIMULATION,
        public=tuple(p for p in public if isinstance(p, PublicFact)),
    )
