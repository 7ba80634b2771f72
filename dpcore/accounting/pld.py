"""The PLD accountant: ε and δ of k releases of any kind, by privacy loss distributions composed by FFT.

:func:`pld_epsilon` and :func:`pld_delta` take a release (a dpcore mechanism
or an accounting event), find how its kind enters the PLD in one explicit
table, :data:`PRIVACY_LOSSES` (keyed by the class of the release the
accountants compute with: :func:`~dpcore.accounting.per_release.accountable`
first reduces SUE, OUE, LDPMean and ``PureDP`` to binary randomized response),
discretise one release's privacy loss pessimistically on a grid sized for the
largest k, compose it by FFT, and read ε(δ) or δ(ε) off each composition
(Koskela, Jälkö, Honkela 2020). The numerics (the distributions, the
connect-the-dots discretisation, the FFT composition with its Chernoff
windows, the read-out) are in :mod:`dpcore.accounting.privacy_loss`; they are
re-exported here. A kind with two orders of its neighbouring pair to read (a
DP-SGD run: add and remove, :mod:`dpcore.accounting.subsampled_gaussian`) has
one distribution per order and its ε is the larger.

Privacy loss of each kind (the pairs of Laplace, Gaussian, GRR and the staircase are symmetric, so one order
suffices):

* Laplace, ``ε₀ = Δ/b``, ``P = Lap(0, b)``, ``Q = Lap(Δ, b)``:
  ``L = ε₀`` for ``o ≤ 0`` (mass ½), ``L = −ε₀`` for ``o ≥ Δ`` (mass ½ e^{−ε₀}),
  and ``L = ε₀ − 2o/b`` in between, with density ``¼ e^{−(ε₀ − ℓ)/2}`` on
  ``(−ε₀, ε₀)`` (derived from the two densities; dp_accounting's
  ``from_laplace_mechanism`` uses the same loss). Integrating, one release has
  ``δ(ε) = 1 − e^{(ε − ε₀)/2}`` on ``[0, ε₀]``, so ``ε(δ) = ε₀ + 2 ln(1 − δ)``.
* Gaussian, ``μ = Δ/σ``: ``L ~ N(μ²/2, μ²)`` (Balle & Wang 2018;
  :func:`~dpcore.accounting.privacy_loss.gaussian_privacy_loss`).
* GRR (replace-one): ``L = +ε`` (mass p), ``0`` (mass (k−2)q), ``−ε`` (mass q);
  on the grid ``h = ε/n`` this is exact.
* Staircase (Geng & Viswanath 2016), answer moved by its step Δ: ``L = +ε``, ``0``
  or ``−ε`` with the masses of
  :func:`~dpcore.accounting.privacy_loss.staircase_loss_masses` (derived there
  from the density, with why a move of exactly Δ is the worst);
  exact on the same lattice (:func:`staircase_privacy_loss`).
* A DP-SGD run of T steps: T compositions of one step's loss in each direction
  (:func:`~dpcore.accounting.subsampled_gaussian.subsampled_gaussian_privacy_loss`).

Adding a kind of release
------------------------
Beside its entry in :data:`~dpcore.accounting.per_release.ACCOUNTINGS`, a
:class:`ReleaseLoss` under its class in :data:`PRIVACY_LOSSES` says how its
release enters the PLD (a test checks that every kind has one), unless it is
charged as another kind (a ``reduce``). A release without one is refused with
``TypeError``, never computed as another.

References
----------
- Meiser & Mohammadi (2018), "Tight on Budget? Tight Bounds for r-Fold Approximate Differential
  Privacy", CCS. https://doi.org/10.1145/3243734.3243765
- Koskela, Jälkö & Honkela (2020), "Computing Tight Differential Privacy Guarantees Using FFT",
  AISTATS. https://arxiv.org/abs/1906.03049
- Doroshenko, Ghazi, Kamath, Kumar & Manurangsi (2022), "Connect the Dots: Tighter Discrete
  Approximations of Privacy Loss Distributions", PoPETs 2022(4). https://arxiv.org/abs/2207.04380
- Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential Privacy: Analytical
  Calibration and Optimal Denoising", ICML (the Gaussian's privacy loss). https://arxiv.org/abs/1805.06530
- Geng & Viswanath (2016), "The Optimal Noise-Adding Mechanism in Differential Privacy", IEEE
  Transactions on Information Theory 62(2), Definition 2 (the staircase's density). https://arxiv.org/abs/1212.1186
- Mironov (2017), "Rényi Differential Privacy", CSF, Proposition 6 (the Laplace RDP that sizes its grid).
  https://arxiv.org/abs/1702.07476
- Google dp_accounting, ``pld`` package and its supplementary "Privacy Loss Distributions" notes.
  https://github.com/google/differential-privacy
"""

from __future__ import annotations

import math
from types import MappingProxyType

import numpy as np

from dpcore.accounting._numerics import as_ks
from dpcore.accounting.events import PoissonSampledGaussian
from dpcore.accounting.per_release import ACCOUNTINGS, accountable
from dpcore.accounting.privacy_loss import (
    AUTO_RELATIVE_EXCESS,
    GAUSSIAN_Z,
    TAIL_MASS_TRUNCATION,
    PrivacyLossPMF,
    check_grid_points,
    compose,
    connect_the_dots,
    connect_the_dots_step,
    fft_capped,
    gaussian_interval,
    gaussian_privacy_loss,
    grid_for_atom,
    round_to_grid,
    staircase_loss_masses,
)
from dpcore.accounting.rdp import DEFAULT_ORDERS, laplace_rdp, rdp_to_dp
from dpcore.accounting.subsampled_gaussian import (
    subsampled_gaussian_intervals,
    subsampled_gaussian_privacy_losses,
)
from dpcore.gaussian import Gaussian
from dpcore.laplace import Laplace
from dpcore.limits import MAX_COMPOSITIONS
from dpcore.randomized_response import GRR
from dpcore.staircase import Staircase
from dpcore.validation import (
    check_delta,
    check_epsilon,
    check_int,
    check_nonnegative,
    check_positive,
    check_probability,
)

__all__ = [
    "TAIL_MASS_TRUNCATION",
    "PrivacyLossPMF",
    "check_grid_points",
    "connect_the_dots",
    "round_to_grid",
    "laplace_privacy_loss",
    "gaussian_privacy_loss",
    "randomized_response_privacy_loss",
    "staircase_privacy_loss",
    "ReleaseLoss",
    "PRIVACY_LOSSES",
    "privacy_loss_pmf",
    "compose",
    "default_interval",
    "connect_the_dots_interval",
    "laplace_loss_variance",
    "pld_epsilon",
    "pld_delta",
]


# ---------------------------------------------------------------- single releases


def laplace_privacy_loss(
    epsilon0: float, interval: float, *, pessimistic: bool = True, connect_dots: bool = True
) -> PrivacyLossPMF:
    """Discretised PLD of one Laplace release with ``ε₀ = Δ / b``.

    The grid step is shrunk to ``ε₀ / ceil(ε₀ / interval)`` so that the atoms
    at ``±ε₀`` sit on the grid (no rounding for them). The continuous part,
    density ``¼ e^{−(ε₀ − ℓ)/2}`` on ``(−ε₀, ε₀)``, has P-mass
    ``½ e^{(ℓ_i − ε₀)/2} (1 − e^{−h/2})`` in the cell ``(ℓ_{i−1}, ℓ_i]``
    and Q-mass ``E_P[e^{−L}] = ½ e^{−ε₀/2} e^{−ℓ_{i−1}/2} (1 − e^{−h/2})``.

    * ``pessimistic=True, connect_dots=True`` (default): connect the dots
      (:func:`connect_the_dots`). Here ``e^{ℓ_{i−1}} Q/P = e^{−h/2}`` in every
      cell, so the split is the same everywhere: ``1/(1 + e^{−h/2})`` of the
      cell's mass to its top, the rest to its bottom.
    * ``pessimistic=True, connect_dots=False``: every cell's mass at its top
      (losses rounded up).
    * ``pessimistic=False``: at its bottom (rounded down; a lower bound).

    Parameters
    ----------
    epsilon0 : float
        ``Δ / b``, in (0, inf).
    interval : float
        Requested grid step, in (0, inf).
    pessimistic : bool, default True
    connect_dots : bool, default True
        Only used when ``pessimistic``.
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0")
    interval = check_positive(interval, "interval")
    n, h = grid_for_atom(epsilon0, interval)
    idx = np.arange(-n, n + 1)
    probs = np.zeros(2 * n + 1)
    cells = 0.5 * np.exp((idx[1:] * h - epsilon0) / 2.0) * -math.expm1(-h / 2.0)  # cells i = −n+1 .. n
    if pessimistic and connect_dots:
        # p_top = p (1 − e^{−h/2}) / (1 − e^{−h}) = p / (1 + e^{−h/2})
        top = cells / (1.0 + math.exp(-h / 2.0))
        probs[1:] += top
        probs[:-1] += cells - top
    elif pessimistic:
        probs[1:] += cells
    else:
        probs[:-1] += cells
    probs[-1] += 0.5  # o ≤ 0: L = +ε₀
    probs[0] += 0.5 * math.exp(-epsilon0)  # o ≥ Δ: L = −ε₀
    return PrivacyLossPMF(h, -n, probs, 0.0, pessimistic=pessimistic)


def randomized_response_privacy_loss(epsilon: float, k: int, interval: float | None = None) -> PrivacyLossPMF:
    """PLD of one GRR report (replace-one): ``+ε`` w.p. p, ``0`` w.p. (k−2)q, ``−ε`` w.p. q.

    Exact on the grid ``h = ε / n`` (``n = 1`` by default: the lattice of
    multiples of ε), so nothing is rounded.

    Parameters
    ----------
    epsilon : float
        ε of randomized response, in (0, inf).
    k : int
        Number of categories, in [2, inf).
    interval : float, optional
        Requested grid step, in (0, inf); default ε.
    """
    epsilon = check_epsilon(epsilon)
    k = check_int(k, "k", minimum=2, maximum=MAX_COMPOSITIONS)
    p = 1.0 / (1.0 + (k - 1) * math.exp(-epsilon))
    q = p * math.exp(-epsilon)
    return _three_point_loss(epsilon, (p, (k - 2) * q, q), interval)


def _three_point_loss(epsilon: float, masses: tuple[float, float, float], interval: float | None) -> PrivacyLossPMF:
    """``+ε``, ``0``, ``−ε`` with ``masses``, on the grid ``h = ε / n`` (``n = 1`` without ``interval``): exact."""
    n, h = (1, epsilon) if interval is None else grid_for_atom(epsilon, check_positive(interval, "interval"))
    plus, zero, minus = masses
    probs = np.zeros(2 * n + 1)
    probs[-1] = plus
    probs[0] = minus
    probs[n] += zero
    return PrivacyLossPMF(h, -n, probs, 0.0)


def staircase_privacy_loss(epsilon: float, gamma: float, interval: float | None = None) -> PrivacyLossPMF:
    """PLD of one staircase release: ``+ε``, ``0``, ``−ε`` with the masses of :func:`staircase_loss_masses`.

    Exact on the grid ``h = ε / n`` (``n = 1`` by default), as GRR's.

    Parameters
    ----------
    epsilon : float
        ε of the staircase, in (0, inf).
    gamma : float
        Where each of its steps drops, in [0, 1].
    interval : float, optional
        Requested grid step, in (0, inf); default ε.
    """
    epsilon = check_epsilon(epsilon)
    return _three_point_loss(epsilon, staircase_loss_masses(epsilon, gamma), interval)


def connect_the_dots_interval(
    k: int, epsilon_ref: float, variance: float, relative_excess: float = AUTO_RELATIVE_EXCESS
) -> float:
    """Grid step for k compositions of a connect-the-dots PLD: ``h = sqrt(8 r / (k/ε_ref + 1/v))``.

    :func:`~dpcore.accounting.privacy_loss.connect_the_dots_step` (where the
    formula and its derivation live; Doroshenko et al. 2022), with ``epsilon_ref``
    checked as an ε.

    Parameters
    ----------
    k : int
        Number of compositions, in [1, inf).
    epsilon_ref : float
        An estimate of the ε sought (an upper bound makes the grid finer), in (0, inf).
    variance : float
        Variance of one release's privacy loss under P, in (0, inf).
    relative_excess : float, default 0.002
        Target excess over the true ε, as a fraction of it, in (0, inf).
    """
    k = check_int(k, "k", minimum=1, maximum=MAX_COMPOSITIONS)
    epsilon_ref = check_epsilon(epsilon_ref, "epsilon_ref")
    return connect_the_dots_step(k, epsilon_ref, variance, relative_excess)


def laplace_loss_variance(epsilon0: float) -> float:
    """Variance of one Laplace release's privacy loss under P (``ε₀ = Δ / b``).

    From the law in the module notes: ``E[L] = ε₀ + e^{−ε₀} − 1`` (the KL
    divergence) and, with ``∫ ℓ² e^{ℓ/2} dℓ = e^{ℓ/2} (2ℓ² − 8ℓ + 16)``,
    ``E[L²] = ½ ε₀² (1 + e^{−ε₀}) + ¼ [2 ε₀² (1 − e^{−ε₀}) − 8 ε₀ (1 + e^{−ε₀}) − 16 (e^{−ε₀} − 1)]``.

    Parameters
    ----------
    epsilon0 : float
        ``Δ / b``, in (0, inf).
    """
    epsilon0 = check_epsilon(epsilon0, "epsilon0")
    e = math.exp(-epsilon0)
    mean = epsilon0 + math.expm1(-epsilon0)
    second = 0.5 * epsilon0**2 * (1 + e) + 0.25 * (
        2 * epsilon0**2 * -math.expm1(-epsilon0) - 8 * epsilon0 * (1 + e) - 16 * math.expm1(-epsilon0)
    )
    return max(second - mean * mean, 1e-300)


# ---------------------------------------------------------------- how each kind enters the PLD


class ReleaseLoss:
    """How releases of one kind enter the PLD accountant (one instance per kind in :data:`PRIVACY_LOSSES`).

    A release has one privacy loss distribution per order of its neighbouring
    pair that must be read (one for a symmetric pair; two for a DP-SGD run,
    whose add and remove directions differ), each composed :meth:`steps`
    times per release; its ε (δ) is the largest over them.
    """

    def distributions(self, release) -> int:
        """How many distributions one release has."""
        return 1

    def steps(self, release) -> int:
        """How many times each distribution composes per release."""
        return 1

    def intervals(self, release, k_max: int, delta: float, connect_dots: bool) -> tuple[float, ...]:
        """The default grid step of each distribution for ``k_max`` releases read at δ: about 0.2 % excess."""
        raise NotImplementedError

    def pmfs(self, release, intervals, pessimistic: bool, connect_dots: bool) -> tuple[PrivacyLossPMF, ...]:
        """One release's discretised privacy loss distributions, on the grid steps ``intervals`` (one each)."""
        raise NotImplementedError


class _LaplaceLoss(ReleaseLoss):
    """Laplace, ``ε₀ = Δ/b``: :func:`laplace_privacy_loss`; its grid from the RDP ε (Mironov 2017, Prop. 6)."""

    def intervals(self, release, k_max, delta, connect_dots):
        # ε_ref: a quick upper estimate of the answer, the smaller of basic composition and RDP, at least ½ sd sqrt(k)
        eps0 = release.epsilon
        rdp = k_max * laplace_rdp(release.scale, DEFAULT_ORDERS, release.sensitivity)
        eps_ref = min(k_max * eps0, rdp_to_dp(DEFAULT_ORDERS, rdp, delta, "balle", warn=False)[0])
        eps_ref = max(eps_ref, 0.5 * eps0 * math.sqrt(k_max))
        if connect_dots:
            h = connect_the_dots_step(k_max, eps_ref, laplace_loss_variance(eps0))
        else:
            # rounding adds at most h per release on the continuous part, w = (1 − e^{−ε₀})/2 of the mass
            h = AUTO_RELATIVE_EXCESS * eps_ref / (k_max * (-0.5 * math.expm1(-eps0)))
        return (fft_capped(min(eps0 / 4, h), k_max, eps0, 2 * GAUSSIAN_Z * eps0),)

    def pmfs(self, release, intervals, pessimistic, connect_dots):
        return (
            laplace_privacy_loss(release.epsilon, intervals[0], pessimistic=pessimistic, connect_dots=connect_dots),
        )


class _GaussianLoss(ReleaseLoss):
    """Gaussian, ``μ = Δ/σ``: :func:`gaussian_privacy_loss` on :func:`~dpcore.accounting.privacy_loss.gaussian_interval`."""

    def intervals(self, release, k_max, delta, connect_dots):
        return (gaussian_interval(release.mu, k_max, delta, connect_dots=connect_dots),)

    def pmfs(self, release, intervals, pessimistic, connect_dots):
        return (gaussian_privacy_loss(release.mu, intervals[0], pessimistic=pessimistic, connect_dots=connect_dots),)


class _RandomizedResponseLoss(ReleaseLoss):
    """GRR: :func:`randomized_response_privacy_loss`, exact on the lattice of multiples of ε."""

    def intervals(self, release, k_max, delta, connect_dots):
        return (release.epsilon,)

    def pmfs(self, release, intervals, pessimistic, connect_dots):
        return (randomized_response_privacy_loss(release.epsilon, release.k, intervals[0]),)


class _StaircaseLoss(ReleaseLoss):
    """The staircase: :func:`staircase_privacy_loss`, exact on the lattice of multiples of ε."""

    def intervals(self, release, k_max, delta, connect_dots):
        return (release.epsilon,)

    def pmfs(self, release, intervals, pessimistic, connect_dots):
        return (staircase_privacy_loss(release.epsilon, release.gamma, intervals[0]),)


class _SubsampledGaussianLoss(ReleaseLoss):
    """A DP-SGD run: T compositions of one step's loss per direction (:mod:`dpcore.accounting.subsampled_gaussian`)."""

    def distributions(self, release):
        return 1 if release.sampling_rate == 1.0 else 2  # at q = 1 both directions are the Gaussian's

    def steps(self, release):
        return release.steps

    def intervals(self, release, k_max, delta, connect_dots):
        steps = check_int(k_max * release.steps, "steps", minimum=1, maximum=MAX_COMPOSITIONS)
        return subsampled_gaussian_intervals(
            release.noise_multiplier, release.sampling_rate, steps, delta, connect_dots=connect_dots
        )

    def pmfs(self, release, intervals, pessimistic, connect_dots):
        return subsampled_gaussian_privacy_losses(
            release.noise_multiplier,
            release.sampling_rate,
            intervals,
            pessimistic=pessimistic,
            connect_dots=connect_dots,
        )


#: How each kind of release enters the PLD accountant, by the class of the release the accountants compute with
#: (:func:`~dpcore.accounting.per_release.accountable`): the one table.
PRIVACY_LOSSES = MappingProxyType(
    {
        Laplace: _LaplaceLoss(),
        Gaussian: _GaussianLoss(),
        GRR: _RandomizedResponseLoss(),
        Staircase: _StaircaseLoss(),
        PoissonSampledGaussian: _SubsampledGaussianLoss(),
    }
)


def _release_loss(mechanism) -> tuple[object, ReleaseLoss]:
    """The release the PLD computes with and its entry; ``TypeError`` naming the releases it accepts otherwise."""
    release = accountable(mechanism)  # TypeError for objects no accountant knows
    for cls in type(release).__mro__:
        if cls in PRIVACY_LOSSES:
            return release, PRIVACY_LOSSES[cls]
    reduced = [name for entry in ACCOUNTINGS if not entry.kind for name in entry.names]  # accounted as GRR(ε, 2)
    accepted = [cls.__name__ for cls in PRIVACY_LOSSES] + reduced
    raise TypeError(
        f"mechanism must be a release the PLD accountant knows ({', '.join(accepted)}), got {type(mechanism).__name__}"
    )


def privacy_loss_pmf(
    mechanism, interval: float, *, pessimistic: bool = True, connect_dots: bool = True
) -> PrivacyLossPMF:
    """Discretised PLD of one release with one distribution (all but a DP-SGD run below q = 1), on the grid ``interval``.

    Parameters
    ----------
    mechanism : Laplace, Gaussian, GRR, SUE, OUE, LDPMean, Staircase or PureDP
        One release (SUE, OUE, LDPMean and PureDP accounted as binary randomized response at their ε).
    interval : float
        Grid step, in (0, inf) (GRR, the staircase and the releases accounted as GRR: rounded to a divisor of ε).
    pessimistic : bool, default True
    connect_dots : bool, default True
        Only used when ``pessimistic``.
    """
    release, entry = _release_loss(mechanism)
    if entry.distributions(release) != 1:
        raise TypeError(
            f"mechanism must have one privacy loss distribution, got {type(mechanism).__name__} (one per direction: "
            "see dpcore.accounting.subsampled_gaussian.subsampled_gaussian_privacy_losses)"
        )
    return entry.pmfs(release, (interval,), pessimistic, connect_dots)[0]


def default_interval(mechanism, k_max: int, delta: float, *, connect_dots: bool = True) -> float:
    """The grid step used when none is given: about 0.2 % excess over the true ε at ``k_max`` releases.

    GRR and the staircase: ``ε`` (their losses are multiples of ε: exact). Laplace and Gaussian,
    with ``ε_ref`` a quick upper estimate of the answer (RDP for Laplace,
    exact GDP for Gaussian; at least ``½ sd sqrt(k)``):

    * connect the dots (the default discretisation):
      :func:`connect_the_dots_interval` with the variance of one release's
      loss (Gaussian ``μ²``; Laplace :func:`laplace_loss_variance`);
    * rounding (``connect_dots=False``, and the optimistic lower bound): the
      rounding adds at most ``h`` per release to the loss, on the fraction
      ``w`` of releases whose loss is not on the grid (Laplace:
      ``w = (1 − e^{−ε₀})/2``, its continuous part; Gaussian: ``w = 1``),
      so ``h = 0.002 · ε_ref / (k_max · w)``.

    The step is at most a quarter of one release's spread, and is coarsened
    if the FFT would need more than 2²² points (still an upper bound, then
    less tight). A DP-SGD run has one step per direction
    (:func:`~dpcore.accounting.subsampled_gaussian.subsampled_gaussian_intervals`):
    the finer is returned.

    Parameters
    ----------
    mechanism : a release, as in :func:`pld_epsilon`
    k_max : int
        The most releases composed, in [1, inf).
    delta : float
        The δ the ε will be read at, in (0, 1).
    connect_dots : bool, default True
    """
    release, entry = _release_loss(mechanism)
    k_max = check_int(k_max, "k_max", minimum=1, maximum=MAX_COMPOSITIONS)
    delta = check_delta(delta)
    return min(entry.intervals(release, k_max, delta, connect_dots))


# ---------------------------------------------------------------- the accountant


def _compositions(
    mechanism, k, value_discretization_interval, tail_mass_truncation, delta_for_default, pessimistic, connect_dots
):
    """Per distribution of one release, the list of its compositions for each k in ``k`` (checked)."""
    release, entry = _release_loss(mechanism)
    ks = as_ks(k)
    tail = check_probability(tail_mass_truncation, "tail_mass_truncation")
    if value_discretization_interval is None:
        intervals = entry.intervals(release, int(ks.max()), delta_for_default, connect_dots)
    else:
        h = check_positive(value_discretization_interval, "value_discretization_interval")
        intervals = (h,) * entry.distributions(release)
    steps = entry.steps(release)
    pmfs = entry.pmfs(release, intervals, pessimistic, connect_dots)
    return [list(compose(pmf, ks * steps, tail)) for pmf in pmfs]


def pld_epsilon(
    mechanism,
    k,
    delta: float,
    *,
    value_discretization_interval: float | None = None,
    tail_mass_truncation: float = TAIL_MASS_TRUNCATION,
    _pessimistic: bool = True,
    _connect_dots: bool = True,
):
    """ε of k releases at δ by the privacy loss distribution: an upper bound, tight up to the grid.

    Discretise the privacy loss of one release pessimistically, compose by FFT
    (one transform shared by all k), and read ``ε(δ) = min{ε ≥ 0: δ(ε) ≤ δ}``
    off each composed distribution, with ``δ(ε) = Σ_{ℓ > ε} (1 − e^{ε − ℓ}) p(ℓ)``
    plus the infinity and truncated masses (Meiser & Mohammadi 2018;
    Koskela, Jälkö, Honkela 2020; see :mod:`dpcore.accounting.privacy_loss`).
    A release with two distributions (a DP-SGD run) reports the larger ε.

    Parameters
    ----------
    mechanism : Laplace, Gaussian, GRR, SUE, OUE, LDPMean, Staircase, PureDP or PoissonSampledGaussian
        One release (GRR: replace-one neighbours; the staircase by its own three-valued loss; SUE, OUE,
        LDPMean and PureDP are accounted as binary randomized response at their ε; a
        DP-SGD run as T steps of the subsampled Gaussian in both directions).
    k : int or array_like of int
        Number of releases, each in [1, inf). An array shares one forward FFT.
    delta : float
        Target δ, in (0, 1); well above ``tail_mass_truncation``.
    value_discretization_interval : float, optional
        Grid step of the loss, in (0, inf). Default: :func:`default_interval`
        for the largest k (about 0.2 % excess over the true ε).
    tail_mass_truncation : float, default 1e-15
        Composed mass allowed outside the FFT window, in (0, 1); added to δ.

    Returns
    -------
    float or numpy.ndarray
        ε (a float for a scalar k); ``inf`` if δ is below the mass at ``+∞``.

    Raises
    ------
    TypeError
        For an object that is no release the accountant knows, naming those it does.

    Examples
    --------
    >>> from dpcore.laplace import Laplace
    >>> round(pld_epsilon(Laplace(scale=1.0), 1, 1e-3), 4)   # exact: 1 + 2 ln(1 − 1e-3) = 0.9980
    0.998
    """
    delta = check_delta(delta)
    connect_dots = _pessimistic and _connect_dots
    each = _compositions(
        mechanism, k, value_discretization_interval, tail_mass_truncation, delta, _pessimistic, connect_dots
    )
    out = np.max([[composed.epsilon(delta) for composed in compositions] for compositions in each], axis=0)
    return float(out[0]) if np.ndim(k) == 0 else out


def pld_delta(
    mechanism,
    k,
    epsilon: float,
    *,
    value_discretization_interval: float | None = None,
    tail_mass_truncation: float = TAIL_MASS_TRUNCATION,
    _pessimistic: bool = True,
    _connect_dots: bool = True,
):
    """δ(ε) of k releases by the privacy loss distribution: an upper bound, tight up to the grid.

    Parameters
    ----------
    mechanism : a release, as in :func:`pld_epsilon`
        A release with two distributions (a DP-SGD run) reports the larger δ.
    k : int or array_like of int
        Number of releases, each in [1, inf).
    epsilon : float
        ε, in [0, inf).
    value_discretization_interval : float, optional
        Grid step, in (0, inf); default as in :func:`pld_epsilon` (sized for δ = 1e-6).
    tail_mass_truncation : float, default 1e-15
        In (0, 1).

    Returns
    -------
    float or numpy.ndarray
    """
    epsilon = check_nonnegative(epsilon, "epsilon")
    connect_dots = _pessimistic and _connect_dots
    each = _compositions(
        mechanism, k, value_discretization_interval, tail_mass_truncation, 1e-6, _pessimistic, connect_dots
    )
    out = np.max([[composed.delta(epsilon) for composed in compositions] for compositions in each], axis=0)
    return float(out[0]) if np.ndim(k) == 0 else out
