"""Auditing differential privacy from the outside: an empirical lower bound on ε.

Run a mechanism many times on two neighbouring inputs, estimate how often an
output event happens on each, and turn the two frequencies into a lower bound
on ε that holds with a chosen confidence (:mod:`dpcore.audit.bounds`). The
event and its direction are chosen on half of the runs and measured on the
other half (:mod:`dpcore.audit.engine`). A correct mechanism's bound stays
below its claimed ε; a broken one's exceeds it.

* :func:`epsilon_lower_bound` — the bound from four counts.
* :func:`audit` — one audit of the catalogue (:data:`CATALOGUE`), or of a
  broken exhibit (:data:`BROKEN`).
* :func:`lower_bound_curve` — the bound as the number of runs grows.
* :func:`floating_point_attack` — Mironov's (2012) attack on floating-point
  Laplace noise, and the same test on the lattice release.

References
----------
- Jagielski, Ullman & Oprea (2020), "Auditing Differentially Private Machine Learning: How Private is
  Private SGD?", NeurIPS, Section 3 and Algorithm 2. https://arxiv.org/abs/2006.07709
- Ding, Wang, Wang, Zhang & Kifer (2018), "Detecting Violations of Differential Privacy", CCS,
  Sections 4 and 6. https://arxiv.org/abs/1805.10277
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS,
  Section 3. https://www.microsoft.com/en-us/research/wp-content/uploads/2012/10/lsbs.pdf
"""

from dpcore.audit import learning as _learning  # noqa: F401  (registers the learning audits)
from dpcore.audit.api import audit, lower_bound_curve
from dpcore.audit.bounds import clopper_pearson, epsilon_lower_bound
from dpcore.audit.broken import BROKEN, BrokenSpec
from dpcore.audit.catalogue import CATALOGUE, AuditSpec
from dpcore.audit.engine import AuditResult, BoundCurve
from dpcore.audit.floating_point import FloatingPointAttack, floating_point_attack

__all__ = [
    "audit",
    "lower_bound_curve",
    "epsilon_lower_bound",
    "clopper_pearson",
    "CATALOGUE",
    "AuditSpec",
    "BROKEN",
    "BrokenSpec",
    "AuditResult",
    "BoundCurve",
    "FloatingPointAttack",
    "floating_point_attack",
]
