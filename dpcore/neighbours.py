"""Neighbouring relations, and the sensitivities that follow from them.

Differential privacy compares a data set with its neighbours; which data sets
are neighbours is part of the guarantee, and every sensitivity depends on it:

* **add/remove one record** (unbounded DP): a neighbour has one record more
  or fewer. Dwork & Roth's definition (Definition 2.4, with histograms at
  ℓ1 distance 1) and the one of every central query in :mod:`dpcore.queries`.
* **replace one record** (bounded DP): a neighbour has the same size and one
  record changed. The relation of the local model, where one person's
  report changes, and so the one under which local and central mechanisms
  are compared.

The sensitivity of a query is the largest change of its answer between
neighbours (Dwork & Roth, Definition 3.1):

==================  ========================  =======================
query               add/remove one            replace one
==================  ========================  =======================
counting query      1                         1
histogram, L1       1                         2
histogram, L2       1                         √2
clipped sum         max(|L|, |U|)             U − L
==================  ========================  =======================

A counting query counts the records with a property: one record changes it
by at most 1 under both relations. (The size of the whole data set is public
under replace-one, sensitivity 0; :func:`dpcore.queries.dp_count` releases it
under add/remove.) Under replace-one, one record leaves one histogram bin and
enters another: two counts move by 1. A record clipped to [L, U] adds at most
``max(|L|, |U|)`` to a sum, and replacing it moves the sum by at most ``U − L``.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Definitions 2.4 and 3.1, Section 3.3
  (counting and histogram queries). https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Near & Abuah (2021), *Programming Differential Privacy*, chapter "Sensitivity" (neighbouring
  data sets, sensitivity of counts, sums and histograms, clipping). https://programming-dp.com/
- Kifer & Machanavajjhala (2011), "No Free Lunch in Data Privacy", SIGMOD, Section 2
  (bounded and unbounded differential privacy). https://doi.org/10.1145/1989323.1989345
"""

from __future__ import annotations

import math
from enum import Enum

from dpcore.validation import check_bounds

__all__ = ["NeighbouringRelation", "ADD_REMOVE", "REPLACE_ONE"]


class NeighbouringRelation(Enum):
    """Which data sets are neighbours; each sensitivity of dpcore derives from it.

    Examples
    --------
    >>> REPLACE_ONE.histogram_l1_sensitivity, ADD_REMOVE.histogram_l1_sensitivity
    (2.0, 1.0)
    >>> ADD_REMOVE.clipped_sum_sensitivity(-5.0, 3.0), REPLACE_ONE.clipped_sum_sensitivity(-5.0, 3.0)
    (5.0, 8.0)
    """

    ADD_REMOVE = "add/remove one record"
    REPLACE_ONE = "replace one record"

    @property
    def counting_query_sensitivity(self) -> float:
        """Sensitivity of a counting query ``#{x: P(x)}``: 1 under both relations."""
        return 1.0

    @property
    def histogram_l1_sensitivity(self) -> float:
        """L1 sensitivity of a histogram (disjoint bins): 1 under add/remove, 2 under replace-one."""
        return 1.0 if self is NeighbouringRelation.ADD_REMOVE else 2.0

    @property
    def histogram_l2_sensitivity(self) -> float:
        """L2 sensitivity of a histogram (disjoint bins): 1 under add/remove, √2 under replace-one."""
        return 1.0 if self is NeighbouringRelation.ADD_REMOVE else math.sqrt(2.0)

    def clipped_sum_sensitivity(self, lower: float, upper: float) -> float:
        """Sensitivity (L1 = L2) of ``Σ clip(x, lower, upper)``.

        ``max(|lower|, |upper|)`` under add/remove one record, ``upper − lower``
        under replace-one.

        Parameters
        ----------
        lower, upper : float
            Clipping bounds, finite, ``lower < upper``.
        """
        lower, upper = check_bounds(lower, upper)
        if self is NeighbouringRelation.ADD_REMOVE:
            return max(abs(lower), abs(upper))
        return upper - lower


#: Add or remove one record (unbounded DP): the relation of every central query in dpcore.
ADD_REMOVE = NeighbouringRelation.ADD_REMOVE
#: Replace one record (bounded DP): the relation of the local model.
REPLACE_ONE = NeighbouringRelation.REPLACE_ONE
