"""The work budget: the largest problem each public function of dpcore takes.

A hosted explorer runs every session in one process, so one call that allocates
terabytes or loops for an hour takes the server down for everyone. Every numeric
parameter of dpcore that sizes an array or a loop is therefore bounded here, once,
by name, and checked where it enters (:func:`dpcore.validation.check_int` with
``maximum=``, or :func:`dpcore.validation.check_elements` for a product of
sizes); beyond its bound a call is refused with one ``ValueError`` in the house
form (``trials must be an integer in [1, 10000000], got 1000000000000``).

The budget: at these bounds no single array passes :data:`MAX_ELEMENTS`
(160 MB of float64; a call holds a few at once, so under 1 GB), and a call that
only computes a closed form or a fixed grid stays within seconds on a 2-core
machine. ``tests/test_limits.py`` calls every public function with each of its
size-driving parameters far beyond its bound and checks the refusal comes at
once, within 2 s of CPU and 1 GB, in a forked process with a memory limit.

Two parameters bound the numerics rather than the size: the noise multiplier
and the sampling rate of the subsampled Gaussian (DP-SGD, DP-FedAvg). Below
σ = 0.1 one step already costs ε ≈ 92 at q = 1 (nothing of use lies there) and the
privacy-loss distribution degenerates in floating point; above σ = 10⁴ a step
costs ε below 10⁻⁴; a sampling rate below 10⁻⁷ is a batch of one from ten
million. Within these ranges every accountant answers in floating point.

References
----------
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang (2016), "Deep Learning with Differential
  Privacy", CCS, Section 5 (noise multipliers of 0.5 to 8 in practice). https://arxiv.org/abs/1607.00133
- Mironov, Talwar & Zhang (2019), "Rényi Differential Privacy of the Sampled Gaussian Mechanism",
  arXiv:1908.10530, Section 3.2 (an integer order α sums α + 1 terms). https://arxiv.org/abs/1908.10530
- Koskela, Jälkö & Honkela (2020), "Computing Tight Differential Privacy Guarantees Using FFT",
  AISTATS (a privacy-loss grid of n points, composed by FFTs of that length). https://arxiv.org/abs/1906.03049
"""

from __future__ import annotations

__all__ = [
    "MAX_ELEMENTS",
    "MAX_TRIALS",
    "MAX_COMPOSITIONS",
    "MAX_CURVE_POINTS",
    "MAX_PLD_CURVE_POINTS",
    "MAX_ORDERS",
    "MAX_ORDER",
    "MAX_CATEGORIES",
    "MAX_CANDIDATES",
    "MAX_TRAINING_STEPS",
    "MAX_DRAWS",
    "MAX_TRAINING_WORK",
    "MIN_NOISE_MULTIPLIER",
    "MAX_NOISE_MULTIPLIER",
    "MIN_SAMPLING_RATE",
    "MAX_PLD_POINTS",
    "MIN_PLAN_NOISE",
    "MAX_PLAN_NOISE",
    "MAX_TABLE_ROWS",
]

#: Elements of the largest array one call may allocate (160 MB of float64).
MAX_ELEMENTS = 20_000_000
#: Simulated or audited runs of a mechanism in one call.
MAX_TRIALS = 10_000_000
#: Releases (k, steps, rounds) composed by an accountant: every accountant's work is bounded in k, this bounds
#: the numbers (k ε₀ and k ρ stay far from overflow).
MAX_COMPOSITIONS = 10_000_000
#: Points of one curve (ks of an accountant's curve, ε's of a frontier, iteration counts of a sweep).
MAX_CURVE_POINTS = 10_000
#: Points of a curve composed by privacy-loss distributions (one inverse FFT each, up to 2²² points).
MAX_PLD_CURVE_POINTS = 200
#: RDP orders in one call, and the largest order (an integer order α sums α + 1 terms).
MAX_ORDERS = 1_000
MAX_ORDER = 10_000.0
#: Categories of a frequency oracle, bins of a histogram, categories counted at once.
MAX_CATEGORIES = 100_000
#: Candidates of the exponential mechanism or of a clipping-bound walk, queries of the sparse vector technique.
MAX_CANDIDATES = 1_000_000
#: Steps (iterations, rounds × local steps) of one training run.
MAX_TRAINING_STEPS = 100_000
#: Noise draws trained at once (an array axis; an audit of one DP-SGD step trains one per run). The work bound
#: below is what keeps a run small.
MAX_DRAWS = 10_000_000
#: Steps × draws × rows × features of one training run: the multiply-adds of its gradients (a few seconds).
MAX_TRAINING_WORK = 5_000_000_000
#: The noise multiplier σ of the subsampled Gaussian (see the module notes).
MIN_NOISE_MULTIPLIER = 0.1
MAX_NOISE_MULTIPLIER = 10_000.0
#: The smallest sampling rate q of the subsampled Gaussian.
MIN_SAMPLING_RATE = 1e-7
#: Points of one discretised privacy-loss distribution (a grid finer than this is refused, not allocated).
MAX_PLD_POINTS = 1 << 22
#: A planner (the ε of k releases for an accuracy) answers for noise between these multiples of the sensitivity:
#: one release then costs at most ε = 10⁴ (below, ρ = ε²/2 leaves floating point) and at least 10⁻⁸.
MIN_PLAN_NOISE = 1e-4
MAX_PLAN_NOISE = 1e8
#: Rows of a table whose contributions are bounded per person (:mod:`dpcore.contributions`, a user-level query or a
#: group-by): the sampling sorts the rows and holds about ten integer arrays of this length at once (400 MB).
MAX_TABLE_ROWS = 5_000_000
