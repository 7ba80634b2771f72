"""What one release of each kind costs, under each accounting: the one dispatch table.

The curves, the PLD accountant and the ledger take mechanism objects from
:mod:`dpcore` (:class:`~dpcore.laplace.Laplace`, :class:`~dpcore.gaussian.Gaussian`,
:class:`~dpcore.randomized_response.GRR`, :class:`~dpcore.unary_encoding.SUE`,
:class:`~dpcore.unary_encoding.OUE`, :class:`~dpcore.ldp_mean.LDPMean`,
:class:`~dpcore.staircase.Staircase`) and
events (:class:`~dpcore.accounting.events.PureDP`, :class:`~dpcore.accounting.events.ApproxDP`). This module is the one
place that knows, for each, its pure ε, its RDP curve, its zCDP ρ, its
per-release (ε, δ) and which accountings apply: :data:`ACCOUNTINGS` lists one
:class:`ReleaseAccounting` per kind.

Adding a kind of release
------------------------
Write one subclass of :class:`ReleaseAccounting` (its ``types``, ``kind``,
``methods``, ``relation``, and the methods that apply: ``rdp``, ``rho``,
``epsilon``, ``pure_epsilon``, ``gdp_mu``, ``for_group``) and add an instance
to :data:`ACCOUNTINGS`.
A kind that every accountant may charge as another one (as every ε-DP
release is charged as binary randomized response) only needs a ``reduce``.
The curves and the ledger then accept it; the PLD accountant also needs its
privacy loss distribution, an entry under its class in
:data:`dpcore.accounting.pld.PRIVACY_LOSSES` (unless it has a ``reduce``):
that table sits above this one, since the PLD accountant dispatches through
:func:`accountable` and the PLD of each kind is built in the modules below.

Neighbouring relations
----------------------
Every kind says under which neighbouring relation and unit of privacy
(:mod:`dpcore.neighbours`) its guarantee holds, :func:`relation_of`: Laplace,
Gaussian and staircase releases and a DP-SGD run (:class:`~dpcore.accounting.events.PoissonSampledGaussian`)
under add/remove one record, as every central query and the run's own
analysis; GRR, SUE, OUE and LDPMean under replace one record (one person's
report changes), their only meaningful relation in the local model; a
:class:`~dpcore.accounting.events.PureDP` or :class:`~dpcore.accounting.events.ApproxDP`
event under the relation it was given. A caller whose mechanism was calibrated to another relation (a
histogram at replace-one sensitivity 2, a client-level DP-FedAvg run) says
so to the ledger.

For data sets ``k`` neighbouring steps apart (another relation, converted by
:func:`dpcore.neighbours.conversion`), :meth:`ReleaseAccounting.for_group`
gives a release that accounts them: a Laplace or Gaussian with ``k`` times the
sensitivity (a path of ``k`` steps moves the query by at most ``k`` times its
sensitivity, the triangle inequality; Dwork & Roth 2014, Definition 3.1), any
other pure ε-DP release a ``PureDP(kε)`` (Dwork & Roth 2014, Theorem 2.2). A
DP-SGD run has none: the ledger converts its (ε, δ) and ρ by group privacy.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.6; Theorem 2.2 (group privacy) and
  Definition 3.1 (sensitivity). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Mironov (2017), "Rényi Differential Privacy", CSF, Propositions 5–7. https://arxiv.org/abs/1702.07476
- Bun & Steinke (2016), "Concentrated Differential Privacy: Simplifications, Extensions, and Lower
  Bounds", TCC, Propositions 1.4 and 1.6. https://arxiv.org/abs/1605.02065
- Kairouz, Oh & Viswanath (2015), "The Composition Theorem for Differential Privacy", ICML,
  Theorem 2.1 and Corollary 2.3. https://arxiv.org/abs/1311.0776
- Wang, Blocki, Li & Jha (2017), "Locally Differentially Private Protocols for Frequency Estimation",
  USENIX Security, Section 4.1. https://arxiv.org/abs/1705.04421
- Geng & Viswanath (2016), "The Optimal Noise-Adding Mechanism in Differential Privacy", IEEE
  Transactions on Information Theory 62(2), Theorem 3 (the staircase is ε-DP). https://arxiv.org/abs/1212.1186
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from dpcore.accounting.events import ApproxDP, PoissonSampledGaussian, PureDP
from dpcore.accounting.privacy_loss import staircase_loss_masses
from dpcore.accounting.rdp import laplace_rdp, randomized_response_rdp
from dpcore.accounting.subsampled_gaussian import dpsgd_epsilon, subsampled_gaussian_rdp
from dpcore.accounting.zcdp import pure_dp_to_zcdp
from dpcore.gaussian import Gaussian
from dpcore.gdp import gdp_epsilon_array, gdp_rdp, gdp_rho
from dpcore.laplace import Laplace
from dpcore.ldp_mean import LDPMean
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE, UNIT_RECORD, NeighbouringRelation
from dpcore.randomized_response import GRR
from dpcore.staircase import Staircase
from dpcore.unary_encoding import UnaryEncoding

__all__ = [
    "METHODS",
    "METHOD_NAMES",
    "ReleaseAccounting",
    "ACCOUNTINGS",
    "KINDS",
    "accountable",
    "accounting_for",
    "mechanism_kind",
    "relation_of",
    "pure_epsilon",
    "release_rdp",
    "release_rho",
    "release_epsilon",
]

#: Every accounting method name, in the order the explorer shows them.
METHODS = ("basic", "advanced", "rdp", "zcdp", "exact", "pld")

#: How each accounting method is named on screen and in files.
METHOD_NAMES = {
    "basic": "basic",
    "advanced": "advanced (DRV)",
    "rdp": "RDP",
    "zcdp": "zCDP",
    "exact": "exact (μ-GDP)",
    "pld": "PLD",
}


class ReleaseAccounting:
    """How releases of one kind enter each accounting (subclass once per kind; see the module notes).

    Attributes
    ----------
    types : tuple of type
        The classes this entry accounts (``isinstance`` is used).
    names : tuple of str
        How those classes are named in the ``TypeError`` for a refused object.
    event : bool
        Whether they are accounting events (named apart in that message).
    kind : str
        The name :func:`mechanism_kind` reports; empty for an entry that reduces.
    methods : tuple of str
        The accountings that apply, among :data:`METHODS`.
    default_methods : tuple of str
        The accountings :func:`~dpcore.accounting.curves.epsilon_curve` shows by default.
    tight_method : str or None
        The method among ``methods`` that no accountant can beat for this kind: ``"exact"`` where k releases
        are exactly μ-GDP (Dong, Roth, Su 2019), ``"pld"`` where the privacy loss distribution is composed
        exactly (up to its grid); None when none of ``methods`` is tight.
    relation : NeighbouringRelation or None
        The relation the kind's guarantee holds under (for one record); None
        when each object carries its own (``relation`` and ``unit`` attributes).
    """

    types: tuple[type, ...] = ()
    names: tuple[str, ...] = ()
    event: bool = False
    kind: str = ""
    methods: tuple[str, ...] = ()
    default_methods: tuple[str, ...] = ()
    tight_method: str | None = None
    relation: NeighbouringRelation | None = None

    def reduce(self, mechanism):
        """The release the accountants compute with (itself unless the kind is charged as another)."""
        return mechanism

    def relation_of(self, mechanism) -> tuple[NeighbouringRelation, str]:
        """The neighbouring relation and unit of privacy the release's guarantee holds under."""
        if self.relation is not None:
            return self.relation, UNIT_RECORD
        try:
            return mechanism.relation, mechanism.unit
        except AttributeError:
            raise NotImplementedError(
                f"{type(mechanism).__name__} states no neighbouring relation in dpcore (give its kind a relation)"
            ) from None

    def for_group(self, mechanism, group: int):
        """A release whose accountings hold for data sets ``group`` neighbouring steps apart, or None.

        None when the kind has no such release: its guarantees are then
        converted by group privacy (:func:`dpcore.neighbours.convert`,
        :func:`dpcore.neighbours.convert_rho`).
        """
        return None

    def pure_epsilon(self, mechanism) -> float | None:
        """The ε of a pure ε-DP guarantee of one release, or None."""
        return None

    def rdp(self, mechanism, orders: np.ndarray) -> np.ndarray:
        """RDP curve of one release at checked ``orders``."""
        raise NotImplementedError(f"{type(mechanism).__name__} has no RDP curve in dpcore")

    def rho(self, mechanism) -> float:
        """zCDP ρ of one release."""
        raise NotImplementedError(f"{type(mechanism).__name__} has no zCDP guarantee in dpcore")

    def epsilon(self, mechanism, release_delta: np.ndarray) -> np.ndarray:
        """ε of one release at each per-release δ in the checked array ``release_delta``."""
        pure = self.pure_epsilon(mechanism)
        if pure is None:
            raise NotImplementedError(f"{type(mechanism).__name__} has no per-release (epsilon, delta) in dpcore")
        return np.full(release_delta.shape, pure)

    def gdp_mu(self, mechanism) -> float | None:
        """The μ of an exact μ-GDP guarantee of one release (for the ``"exact"`` method), or None."""
        return None


class _PureAccounting(ReleaseAccounting):
    """A pure ε₀-DP kind: ε₀ at every δ; zCDP ``ρ = ε₀²/2`` (Bun & Steinke 2016, Proposition 1.4).

    The zCDP ρ is not the smallest these mechanisms satisfy (the tight
    conversion from pure DP is smaller: Steinke, "Tight RDP & zCDP Bounds from
    Pure DP", https://differentialprivacy.org/pdp-to-zcdp/), but the textbook
    one, and the one that makes "zCDP" mean "pure DP seen as zCDP".
    """

    methods = ("basic", "advanced", "rdp", "zcdp", "pld")
    default_methods = ("basic", "advanced", "rdp", "zcdp", "pld")
    tight_method = "pld"  # the loss of one release is known exactly; k of them are its k-fold convolution

    def rho(self, mechanism) -> float:
        return pure_dp_to_zcdp(self.pure_epsilon(mechanism))

    def for_group(self, mechanism, group: int) -> PureDP:
        # an ε-DP release is kε-DP for data sets k steps apart (Dwork & Roth 2014, Theorem 2.2)
        return PureDP(group * self.pure_epsilon(mechanism))


class _LaplaceAccounting(_PureAccounting):
    """Laplace: ``ε₀ = Δ / b`` (Dwork & Roth 2014, Theorem 3.6); RDP of Mironov (2017), Proposition 6."""

    types = (Laplace,)
    names = ("Laplace",)
    kind = "laplace"
    relation = ADD_REMOVE

    def pure_epsilon(self, mechanism) -> float:
        return mechanism.epsilon

    def for_group(self, mechanism, group: int) -> Laplace:
        # k steps move the query by at most kΔ in L1 (triangle inequality): the same noise at sensitivity kΔ
        return Laplace(mechanism.scale, group * mechanism.sensitivity)

    def rdp(self, mechanism, orders):
        return laplace_rdp(mechanism.scale, orders, mechanism.sensitivity)


class _GaussianAccounting(ReleaseAccounting):
    """Gaussian: exactly μ-GDP with ``μ = Δ/σ``; RDP ``αμ²/2``, ρ ``μ²/2`` and ε(δ) from :mod:`dpcore.gdp`."""

    types = (Gaussian,)
    names = ("Gaussian",)
    kind = "gaussian"
    methods = METHODS
    default_methods = ("basic", "advanced", "rdp", "zcdp", "exact")
    tight_method = "exact"  # k releases are exactly √k μ-GDP (Dong, Roth, Su 2019, Corollary 3.3)
    relation = ADD_REMOVE

    def for_group(self, mechanism, group: int) -> Gaussian:
        # k steps move the query by at most kΔ in L2 (triangle inequality): exactly kμ-GDP on such pairs
        return Gaussian(mechanism.sigma, group * mechanism.sensitivity)

    def gdp_mu(self, mechanism) -> float:
        return mechanism.mu

    def rdp(self, mechanism, orders):
        return gdp_rdp(mechanism.mu, orders)

    def rho(self, mechanism) -> float:
        return gdp_rho(mechanism.mu)

    def epsilon(self, mechanism, release_delta):
        # the exact ε of one release at each δ (Balle & Wang 2018, Theorem 8), vectorised over δ
        return gdp_epsilon_array(np.full(release_delta.shape, mechanism.mu), np.log(release_delta))


class _RandomizedResponseAccounting(_PureAccounting):
    """k-ary randomized response: ``ε = ln(p/q)`` (Wang et al. 2017, Section 4.1); RDP of its two output laws."""

    types = (GRR,)
    names = ("GRR",)
    kind = "grr"
    relation = REPLACE_ONE

    def pure_epsilon(self, mechanism) -> float:
        return mechanism.epsilon

    def rdp(self, mechanism, orders):
        return randomized_response_rdp(mechanism.epsilon, mechanism.k, orders)


class _StaircaseAccounting(_PureAccounting):
    """Staircase: ε-DP (Geng & Viswanath 2016, Theorem 3), with its own privacy loss, not binary RR's bound.

    Its loss takes the values ``ε, 0, −ε`` with masses ``p₊, p₀, e^{−ε} p₊``
    (:func:`~dpcore.accounting.privacy_loss.staircase_loss_masses`, which also
    shows that an answer moved by exactly Δ is the worst pair), so its RDP
    curve is exact: ``D_α = ln(p₀ + p₊ (e^{(α−1)ε} + e^{−αε})) / (α − 1)``
    (``ln E_P[e^{(α−1)L}] / (α − 1)``, the Rényi divergence of Mironov 2017). Its PLD is
    :func:`~dpcore.accounting.pld.staircase_privacy_loss`.
    """

    types = (Staircase,)
    names = ("Staircase",)
    kind = "staircase"
    relation = ADD_REMOVE

    def pure_epsilon(self, mechanism) -> float:
        return mechanism.epsilon

    def rdp(self, mechanism, orders):
        eps = mechanism.epsilon
        plus, zero, _ = staircase_loss_masses(eps, mechanism.gamma)
        a = np.asarray(orders, dtype=np.float64)
        with np.errstate(divide="ignore"):  # p₀ = 0 at γ = ½: its term drops out (log 0 = −inf)
            terms = np.stack(np.broadcast_arrays(np.log(zero), np.log(plus) + (a - 1) * eps, np.log(plus) - a * eps))
        return np.maximum(logsumexp(terms, axis=0), 0.0) / (a - 1)


class _BinaryRRBound(ReleaseAccounting):
    """An ε-DP release charged as binary randomized response at the same ε, ``GRR(ε, 2)``.

    Every ε-DP mechanism is dominated by binary RR in the hypothesis-testing
    sense (Kairouz, Oh, Viswanath 2015, Theorem 2.1 / Corollary 2.3), so by
    data processing its Rényi divergences, privacy loss distribution and
    compositions are bounded by binary RR's. (The k-ary GRR formulas are
    tighter than that and would be wrong for the unary encodings.)
    """

    def __init__(
        self,
        types: tuple[type, ...],
        names: tuple[str, ...],
        event: bool = False,
        relation: NeighbouringRelation | None = None,
    ):
        self.types, self.names, self.event, self.relation = types, names, event, relation

    def reduce(self, mechanism) -> GRR:
        return GRR(mechanism.epsilon, 2)


class _PoissonSampledGaussianAccounting(ReleaseAccounting):
    """A whole DP-SGD run, T steps of the Poisson-subsampled Gaussian, as one event.

    RDP: its exact curve, T times one step's (Mironov, Talwar & Zhang 2019);
    zCDP: ``ρ = T/(2σ²)``, which sees no amplification by sampling; per-event
    (ε, δ) for basic composition: its PLD ε at that δ
    (:func:`~dpcore.accounting.subsampled_gaussian.dpsgd_epsilon`). Under
    add/remove neighbours, as the run's own analysis. No release for a group
    (:meth:`~ReleaseAccounting.for_group`): halving σ would not account for
    the sampling of two records, so its guarantees are converted by group privacy.
    """

    types = (PoissonSampledGaussian,)
    names = ("PoissonSampledGaussian",)
    event = True
    kind = "poisson_gaussian"
    methods = ("basic", "rdp", "zcdp", "pld")
    default_methods = ("basic", "rdp", "zcdp")
    relation = ADD_REMOVE

    def rdp(self, mechanism, orders):
        # T steps: T times one step's curve (Mironov 2017, Proposition 1)
        return mechanism.steps * subsampled_gaussian_rdp(mechanism.noise_multiplier, mechanism.sampling_rate, orders)

    def rho(self, mechanism) -> float:
        return mechanism.zcdp_rho

    def epsilon(self, mechanism, release_delta):
        sigma, q, steps = mechanism.noise_multiplier, mechanism.sampling_rate, mechanism.steps
        return np.array([dpsgd_epsilon(sigma, q, steps, float(d)) for d in release_delta.reshape(-1)]).reshape(
            release_delta.shape
        )


class _ApproxDPAccounting(ReleaseAccounting):
    """An (ε, δ)-DP release known only by its pair (:class:`~dpcore.accounting.events.ApproxDP`): basic composition only.

    Per-event (ε, δ') for basic composition (Dwork & Roth 2014, Theorem 3.16):
    ε at every δ' ≥ δ (an (ε, δ)-DP release is (ε, δ')-DP), ``inf`` below δ,
    where the pair states nothing. No RDP curve, zCDP ρ, μ-GDP or PLD: see
    the event's notes. Under the relation and unit it carries.
    """

    types = (ApproxDP,)
    names = ("ApproxDP",)
    event = True
    kind = "approx_dp"
    methods = ("basic",)
    default_methods = ("basic",)

    def epsilon(self, mechanism, release_delta):
        return np.where(release_delta >= mechanism.delta, mechanism.epsilon, np.inf)


#: One entry per kind of release; the first whose ``types`` match an object accounts for it.
ACCOUNTINGS: tuple[ReleaseAccounting, ...] = (
    _LaplaceAccounting(),
    _GaussianAccounting(),
    _RandomizedResponseAccounting(),
    _BinaryRRBound((UnaryEncoding, LDPMean), ("SUE", "OUE", "LDPMean"), relation=REPLACE_ONE),  # ε-LDP
    _StaircaseAccounting(),
    _BinaryRRBound((PureDP,), ("PureDP",), event=True),  # under the relation it carries
    _PoissonSampledGaussianAccounting(),
    _ApproxDPAccounting(),  # under the relation it carries
)

#: The kinds :func:`mechanism_kind` reports.
KINDS = tuple(entry.kind for entry in ACCOUNTINGS if entry.kind)


def _refusal(mechanism) -> TypeError:
    mechanisms = [name for entry in ACCOUNTINGS if not entry.event for name in entry.names]
    events = [name for entry in ACCOUNTINGS if entry.event for name in entry.names]
    return TypeError(
        f"mechanism must be a dpcore {', '.join(mechanisms[:-1])} or {mechanisms[-1]}, "
        f"got {type(mechanism).__name__} (or a dpcore.accounting event: {', '.join(events)})"
    )


def _entry(mechanism) -> ReleaseAccounting | None:
    for entry in ACCOUNTINGS:
        if isinstance(mechanism, entry.types):
            return entry
    return None


def accountable(mechanism):
    """The release the accountants compute with: itself, or the binary RR that dominates it.

    Laplace, Gaussian, GRR and the staircase are accounted exactly as they are. SUE, OUE,
    LDPMean (each ε-LDP under replace-one) and :class:`~dpcore.accounting.events.PureDP`
    events are accounted as binary randomized response at the same ε,
    ``GRR(ε, 2)`` (see :class:`_BinaryRRBound`). ``TypeError`` for anything else.
    """
    entry = _entry(mechanism)
    if entry is None:
        raise _refusal(mechanism)
    return entry.reduce(mechanism)


def accounting_for(mechanism) -> ReleaseAccounting:
    """The :class:`ReleaseAccounting` of an accountable release (``TypeError`` for anything else).

    Objects that are charged as another kind (SUE, OUE, LDPMean, PureDP) must
    first go through :func:`accountable`.
    """
    entry = _entry(mechanism)
    if entry is None or not entry.kind:
        raise _refusal(mechanism)
    return entry


def relation_of(mechanism) -> tuple[NeighbouringRelation, str]:
    """The neighbouring relation and unit of privacy under which a release's guarantee holds.

    Laplace, Gaussian, a DP-SGD run: ``(ADD_REMOVE, "record")``; GRR, SUE, OUE,
    LDPMean: ``(REPLACE_ONE, "record")``; a :class:`~dpcore.accounting.events.PureDP`
    event: the relation and unit it carries. ``TypeError`` for anything else.

    Examples
    --------
    >>> from dpcore import GRR, Laplace
    >>> relation_of(Laplace(1.0))[0].value, relation_of(GRR(1.0, 3))[0].value
    ('add/remove one record', 'replace one record')
    """
    entry = _entry(mechanism)
    if entry is None:
        raise _refusal(mechanism)
    return entry.relation_of(mechanism)


def mechanism_kind(mechanism) -> str:
    """``"laplace"``, ``"gaussian"``, ``"grr"``, ``"staircase"``… (one of :data:`KINDS`); ``TypeError`` for anything else."""
    return accounting_for(mechanism).kind


def pure_epsilon(mechanism) -> float | None:
    """The ε of the pure ε-DP guarantee of one release, or ``None`` (Gaussian: no pure guarantee).

    Laplace: ``ε₀ = Δ / b`` (Dwork & Roth 2014, Theorem 3.6). GRR: ``ε = ln(p/q)``
    (Wang et al. 2017, Section 4.1).
    """
    return accounting_for(mechanism).pure_epsilon(mechanism)


def release_rdp(mechanism, orders: np.ndarray) -> np.ndarray:
    """RDP curve of one release at the (checked) ``orders``.

    Laplace: Mironov (2017) Prop. 6; Gaussian: ``α Δ² / (2σ²)``, Prop. 7; GRR:
    :func:`dpcore.accounting.rdp.randomized_response_rdp`.
    """
    return accounting_for(mechanism).rdp(mechanism, orders)


def release_rho(mechanism) -> float:
    """zCDP ρ of one release.

    Gaussian: ``ρ = Δ² / (2σ²)`` (Bun & Steinke 2016, Proposition 1.6). Laplace
    and GRR: ``ρ = ε₀² / 2`` from their pure ε₀-DP (Bun & Steinke 2016,
    Proposition 1.4).
    """
    return accounting_for(mechanism).rho(mechanism)


def release_epsilon(mechanism, release_delta) -> np.ndarray:
    """ε of one release at per-release δ (array, for basic/advanced composition).

    Laplace and GRR: their pure ε₀, whatever δ. Gaussian: the exact ε of one
    release at that δ (Balle & Wang 2018, Theorem 8), vectorised over δ.
    """
    return accounting_for(mechanism).epsilon(mechanism, np.asarray(release_delta, dtype=np.float64))
