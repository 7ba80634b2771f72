"""The tight accounting of each kind of release and the names of the methods, as the Accountant page reads them.

``ReleaseAccounting.tight_method`` is the accounting no accountant can beat for a kind (the page marks it
"the tight value"); ``METHOD_NAMES`` is the one map of method names on screen. Cross-check: the tight method's
ε is the smallest of every method's, at every k (PLD within its grid's slack).
"""

import warnings

import numpy as np
import pytest

from dpcore import GRR, Gaussian, Laplace, accounting
from dpcore.accounting.per_release import ACCOUNTINGS, METHOD_NAMES, METHODS, accounting_for

KS = [1, 2, 10, 100]
PLD_SLACK = 2e-3  # PLD is an upper bound within about 0.2 % of the exact ε (the page's note says so)


def test_every_method_has_one_name_and_names_are_distinct():
    assert tuple(METHOD_NAMES) == METHODS
    assert len(set(METHOD_NAMES.values())) == len(METHODS)


@pytest.mark.parametrize("entry", [e for e in ACCOUNTINGS if e.kind], ids=lambda e: e.kind)
def test_a_tight_method_is_one_of_the_kinds_own_methods(entry):
    assert entry.tight_method is None or entry.tight_method in entry.default_methods


@pytest.mark.parametrize(
    "mechanism, tight",
    [
        (Laplace.from_epsilon(0.5), "pld"),
        (Laplace.from_epsilon(3.0), "pld"),
        (GRR(1.0, 2), "pld"),
        (GRR(2.0, 7), "pld"),
        (Gaussian.from_epsilon_delta(1.0, 1e-5), "exact"),
        (Gaussian(sigma=5.0), "exact"),
    ],
    ids=repr,
)
def test_the_tight_method_reports_the_smallest_epsilon_at_every_k(mechanism, tight):
    assert accounting_for(mechanism).tight_method == tight
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", accounting.OrderGridEdgeWarning)
        df = accounting.epsilon_curve(mechanism, KS, 1e-5, accounting.methods_for(mechanism))
    table = df.pivot(index="k", columns="method", values="epsilon")
    others = table.drop(columns=tight)
    assert np.all(table[tight].to_numpy()[:, None] <= others.to_numpy() * (1 + PLD_SLACK)), table
