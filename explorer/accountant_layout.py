"""The pieces the Accountant page's views share: the families it offers, one release of each, its accountings.

The families come from the registry (:mod:`dpcore.families`): every family whose releases
:mod:`dpcore.accounting.per_release` accounts as they are, which is every central one (Laplace, Gaussian, the
staircase; ``tests/test_page_accountant.py`` holds a new one to it) and GRR. SUE and OUE are charged as binary
randomized response at their ε, a bound rather than their own privacy loss, so the page's "tight" value would not
be tight for them. Which accounting is tight, and what each is called, are dpcore's facts
(``ReleaseAccounting.tight_method``, ``METHOD_NAMES``); these pieces only look them up.
"""

from __future__ import annotations

from dpcore import accounting, families
from dpcore.accounting.curves import PLAN_METHODS
from dpcore.accounting.per_release import METHOD_NAMES, ReleaseAccounting, accounting_for
from dpcore.neighbours import ADD_REMOVE
from explorer import budget

__all__ = [
    "K_GRID",
    "NAMES",
    "CONVERSION_NAMES",
    "ZCDP_CONVERSION_NAMES",
    "LEDGER_METHOD_NAMES",
    "FAMILIES",
    "FAMILY_NAMES",
    "ADDITIVE",
    "one_release",
    "accounting_of",
    "noise_words",
]

#: The numbers of releases of the k slider, and the grid PLD is composed on.
K_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000)
#: How each accounting method is named on the page (dpcore's one map).
NAMES = METHOD_NAMES
#: How the pickers name each of dpcore's RDP → (ε, δ) conversions; the link carries dpcore's key ("balle").
CONVERSION_NAMES = {"balle": "Balle et al. 2020 (tighter)", "mironov": "Mironov 2017 (classic)"}
#: How the pickers name each of dpcore's zCDP → (ε, δ) conversions; the link carries dpcore's key ("cks").
ZCDP_CONVERSION_NAMES = {
    "cks": "Canonne et al. 2020 (tighter)",
    "bun-steinke": "Bun & Steinke 2016 (classic)",
}
#: How the ledger's accounting picker names each of dpcore's ledger methods; the link carries dpcore's key.
LEDGER_METHOD_NAMES = {m: "Best (smallest ε)" if m == "best" else METHOD_NAMES[m] for m in accounting.LEDGER_METHODS}


def one_release(family, eps: float, delta: float, categories: int):
    """One release of ``family`` (a registered family or its name) at per-release ε.

    Additive noise is calibrated for one count under add/remove one record (sensitivity 1: only Δ/b and Δ/σ
    matter for privacy), a Gaussian to be exactly (ε, δ)-DP at ``delta``; an oracle answers ``categories`` values.
    """
    family = families.family(family)
    if family in families.local():
        return family.counts(eps, categories).mechanism
    return family.noise(eps, ADD_REMOVE.counting_query_sensitivity, delta)


def _example(family):
    """A release of ``family`` to ask dpcore about (what it asks does not depend on ε, δ or the categories)."""
    return one_release(family, 1.0, 1e-5, 2)


def _accounted_as_itself(family) -> bool:
    try:
        accounting_for(_example(family))
    except TypeError:  # charged as another kind (binary randomized response)
        return False
    return True


#: The families the page offers, central ones first, in registry order.
FAMILIES = tuple(f for f in (*families.central(), *families.local()) if _accounted_as_itself(f))
#: Their names, the values of the page's mechanism chooser (and of its link).
FAMILY_NAMES = tuple(f.name for f in FAMILIES)
#: The additive ones dpcore plans noise for (:data:`dpcore.accounting.curves.PLAN_METHODS`): the planner's noise and
#: the vectorised comparison (Laplace and Gaussian; the staircase's k-vector has no closed-form plan there).
ADDITIVE = tuple(f for f in FAMILIES if f in families.central() and f.key in PLAN_METHODS)


def accounting_of(family) -> ReleaseAccounting:
    """How a release of ``family`` enters each accountant: its methods, its default ones, its tight one."""
    return accounting_for(_example(family))


def noise_words(family) -> str:
    """How the parameter of an additive family's noise is named in a sentence ("scale b", "σ")."""
    return budget.noise_parameter(_example(family)).words
