"""Privacy accounting: how the privacy cost of k releases grows, under several accountings.

Pure functions plus one small stateful ledger (the house style of Google's
``dp_accounting`` and diffprivlib). Modules, each findable by name:

* :mod:`~dpcore.accounting.composition`: basic and advanced (Dwork–Rothblum–Vadhan 2010) composition.
* :mod:`~dpcore.accounting.rdp`: RDP curves (Gaussian, Laplace, randomized response) and the RDP → (ε, δ) conversions.
* :mod:`~dpcore.accounting.zcdp`: zCDP → (ε, δ) (Canonne–Kamath–Steinke 2020; Bun–Steinke 2016).
* :mod:`~dpcore.accounting.gaussian_exact`: exact Gaussian composition through μ-GDP (Dong, Roth, Su 2019).
* :mod:`~dpcore.accounting.privacy_loss`: privacy loss distributions on a grid, composed by FFT (Koskela et al.
  2020): the numerics, which know no kind of release.
* :mod:`~dpcore.accounting.pld`: the PLD accountant, ε and δ of k releases of any kind.
* :mod:`~dpcore.accounting.subsampled_gaussian`: DP-SGD's accountant, the Poisson-subsampled Gaussian
  (RDP of Mironov, Talwar, Zhang 2019; PLD of both add/remove directions), its noise calibration and a run planner.
* :mod:`~dpcore.accounting.curves`: ε against k for every method, vectorised vs sequential, noise planning.
* :mod:`~dpcore.accounting.ledger`: :class:`BudgetLedger`, the per-session budget under one neighbouring relation,
  :class:`BudgetError` and :class:`~dpcore.neighbours.RelationError`.
* :mod:`~dpcore.accounting.events`: :class:`PureDP`, any ε-DP release, :class:`ApproxDP`, any (ε, δ)-DP release
  known by its pair alone (basic composition only), and :class:`PoissonSampledGaussian`, a DP-SGD run: the leaf,
  importing no accountant.
* :mod:`~dpcore.accounting.per_release`: how each kind of release enters every accountant (the one dispatch table),
  and under which neighbouring relation it holds (:func:`relation_of`).

Releases are the ``Laplace``, ``Gaussian``, ``GRR``, ``SUE``, ``OUE`` and
``LDPMean`` objects of :mod:`dpcore`, and :class:`PureDP` events for any other
ε-DP release (the exponential mechanism, AboveThreshold, a whole SVT release), and :class:`ApproxDP` events for
an (ε, δ)-DP release known by its pair alone (a partition selection).
"""

from dpcore.accounting.composition import advanced_composition, basic_composition
from dpcore.accounting.curves import (
    METHODS,
    epsilon_curve,
    methods_for,
    plan_epsilon,
    plan_noise,
    vectorised_vs_sequential,
)
from dpcore.accounting.events import ApproxDP, PoissonSampledGaussian, PureDP
from dpcore.accounting.gaussian_exact import (
    gaussian_epsilon,
    gaussian_sigma_for_epsilon,
    gdp_delta,
    gdp_epsilon,
    gdp_mu,
)
from dpcore.accounting.ledger import (
    LEDGER_ACCOUNTINGS,
    LEDGER_METHODS,
    Budget,
    BudgetError,
    BudgetLedger,
    Charge,
    LedgerEntry,
    LedgerFullError,
    RelationError,
)
from dpcore.accounting.per_release import relation_of
from dpcore.accounting.pld import PrivacyLossPMF, pld_delta, pld_epsilon
from dpcore.accounting.rdp import (
    CONVERSIONS,
    DEFAULT_ORDERS,
    OrderGridEdgeWarning,
    gaussian_rdp,
    laplace_rdp,
    randomized_response_rdp,
    rdp_epsilons,
    rdp_to_dp,
)
from dpcore.accounting.subsampled_gaussian import (
    DPSGD_METHODS,
    DPSGDPlan,
    dpsgd_epsilon,
    dpsgd_noise_multiplier,
    plan_dpsgd,
    subsampled_gaussian_rdp,
)
from dpcore.accounting.zcdp import ZCDP_CONVERSIONS, pure_dp_to_zcdp, zcdp_rho_for_epsilon, zcdp_to_dp

__all__ = [
    # composition
    "basic_composition",
    "advanced_composition",
    # RDP
    "DEFAULT_ORDERS",
    "CONVERSIONS",
    "OrderGridEdgeWarning",
    "gaussian_rdp",
    "laplace_rdp",
    "randomized_response_rdp",
    "rdp_to_dp",
    "rdp_epsilons",
    # zCDP
    "ZCDP_CONVERSIONS",
    "zcdp_to_dp",
    "pure_dp_to_zcdp",
    "zcdp_rho_for_epsilon",
    # exact Gaussian
    "gaussian_epsilon",
    "gaussian_sigma_for_epsilon",
    "gdp_mu",
    "gdp_delta",
    "gdp_epsilon",
    # PLD
    "PrivacyLossPMF",
    "pld_epsilon",
    "pld_delta",
    # DP-SGD: the Poisson-subsampled Gaussian
    "DPSGD_METHODS",
    "subsampled_gaussian_rdp",
    "dpsgd_epsilon",
    "dpsgd_noise_multiplier",
    "PoissonSampledGaussian",
    "DPSGDPlan",
    "plan_dpsgd",
    # curves
    "METHODS",
    "methods_for",
    "epsilon_curve",
    "vectorised_vs_sequential",
    "plan_noise",
    "plan_epsilon",
    # events
    "PureDP",
    "ApproxDP",
    # ledger
    "LEDGER_METHODS",
    "Budget",
    "Charge",
    "LEDGER_ACCOUNTINGS",
    "LedgerEntry",
    "BudgetError",
    "LedgerFullError",
    "RelationError",
    "BudgetLedger",
    # neighbouring relations
    "relation_of",
]
