"""User-level DP-SGD: the unit is a person with all of their rows (McMahan et al. 2018).

When a table holds many rows per person, record-level DP-SGD (:mod:`dpcore.learning.dp_sgd`) protects one row: a
person with a hundred rows is protected a hundred times less. McMahan, Ramage, Talwar & Zhang (2018) train with
**user-level** privacy instead: neighbouring data sets differ in *all* the data of one user, each user's update is
clipped to a norm C, and the noise is calibrated to C (their Section 2 and Algorithm 1, DP-FedSGD / DP-FedAvg).
Here each person is a user, and the training is DP-SGD over persons:

0. once, before training, each person keeps a uniformly random ``min(rows, m)`` of their rows
   (:func:`dpcore.contributions.bound_contributions`; at most m rows used per person, a bound on work and on the
   weight a heavy person's rows have inside their own gradient);
1. at each step t = 1..T, each person joins the batch independently with probability q (Poisson sampling of
   persons, the sampling the accountant assumes);
2. each sampled person's gradient is the **mean** of the per-row logistic gradients over their kept rows,
   ``ḡ_u = (1/|R_u|) Σ_{i ∈ R_u} ∇ℓ(w; x_i, y_i)`` (McMahan et al.'s user update with one local step on the user's
   whole data, their DP-FedSGD), clipped to ``ḡ_u · min(1, C/‖ḡ_u‖)``;
3. ``g = Σ_{u ∈ B_t} clip_C(ḡ_u) + N(0, σ² C² I)``, and ``w ← w − η (g / (q N) + λ w_coef)`` with N persons
   (the divisor fixed before training, as in :mod:`dpcore.learning.dp_sgd`).

Why it is private for one person
--------------------------------
Adding or removing one person adds or removes one term ``clip_C(ḡ_u)`` of the sum and nothing else: the other
persons' kept rows depend only on their own rows and on randomness drawn for them (the coupling argument of
:mod:`dpcore.contributions`), and each person's term is computed from their own rows only. The noisy sum therefore
has ℓ2 sensitivity C under **add/remove one person**, and the T sums are exactly the Poisson-subsampled Gaussian
mechanism of record-level DP-SGD with persons in place of rows: the same accountant
(:func:`dpcore.accounting.dpsgd_epsilon`, :class:`~dpcore.accounting.PoissonSampledGaussian`) at the persons'
sampling rate q gives (ε, δ) for one person (unit :data:`~dpcore.neighbours.UNIT_PERSON`). The mean, not the sum,
of a person's row gradients: clipping bounds either, and the mean keeps a person's update on the scale of one row's
gradient, so C means the same as in record-level DP-SGD and a person with many rows is not clipped harder than one
with few.

References
----------
- McMahan, Ramage, Talwar & Zhang (2018), "Learning Differentially Private Recurrent Language Models", ICLR,
  Section 2 and Algorithm 1 (user-level neighbours; Poisson sampling of users at rate q; each user's update clipped
  to norm S; Gaussian noise σS on the sum; the moments accountant over the users' sampling rate).
  https://arxiv.org/abs/1710.06963
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang (2016), "Deep Learning with Differential Privacy", CCS,
  Algorithm 1 (the record-level algorithm this one lifts to persons). https://arxiv.org/abs/1607.00133
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy.sparse as sp

from dpcore.accounting import DPSGD_METHODS, PoissonSampledGaussian
from dpcore.contributions import ContributionBounds, bound_contributions, person_codes
from dpcore.learning._arrays import check_training_set, check_weights
from dpcore.learning._training import Recorder, check_steps, check_training_work, resolve_draws
from dpcore.learning.dp_sgd import accounted_result, dpsgd_privacy, draw_poisson_batches, noisy_update
from dpcore.learning.logistic import LogisticDesign, csr_pair, sigmoid, worth_sparse
from dpcore.learning.result import TrainingResult
from dpcore.neighbours import ADD_REMOVE, UNIT_PERSON
from dpcore.validation import (
    as_generator,
    check_choice,
    check_delta,
    check_int,
    check_noise_multiplier,
    check_nonnegative,
    check_positive,
    check_sampling_rate,
)

__all__ = [
    "UserLevelSGD",
    "PersonRows",
    "person_rows",
    "person_gradients",
    "user_level_dp_sgd",
    "expected_rows_per_step",
]

#: The method name a :class:`~dpcore.learning.TrainingResult` of this module carries.
METHOD = "user-level DP-SGD"


@dataclass(frozen=True)
class UserLevelSGD:
    """The parameters of a user-level DP-SGD run, checked, and the privacy they give to one person.

    Parameters
    ----------
    noise_multiplier : float
        σ, in [0.1, 10⁴] (:mod:`dpcore.limits`): the noise on the sum of clipped person gradients has standard
        deviation σC.
    sampling_rate : float
        q, the probability that a person joins a batch, in [1e-7, 1]: expected persons per batch / persons.
    steps : int
        T, in [1, MAX_TRAINING_STEPS].
    clip : float
        C, in (0, inf): each person's mean gradient is clipped to ℓ2 norm C.
    max_rows : int
        m, in [1, inf): rows used at most per person (a uniformly random subset of a person with more).
    delta : float, default 1e-5
        δ at which ε is reported, in (0, 1); keep it well below 1 / persons.
    learning_rate : float, default 1.0
        η, in (0, inf).
    l2 : float, default 0.0
        L2 penalty λ, in [0, inf) (not on the intercept; added after the noise).
    accountant : {"pld", "rdp"}, default "pld"

    Examples
    --------
    >>> run = UserLevelSGD(noise_multiplier=1.0, sampling_rate=0.01, steps=100, clip=1.0, max_rows=10)
    >>> run.unit, run.sensitivity, run.event.steps
    ('person', 1.0, 100)
    """

    noise_multiplier: float
    sampling_rate: float
    steps: int
    clip: float
    max_rows: int
    delta: float = 1e-5
    learning_rate: float = 1.0
    l2: float = 0.0
    accountant: str = "pld"

    def __post_init__(self):
        checked = {
            "noise_multiplier": check_noise_multiplier(self.noise_multiplier),
            "sampling_rate": check_sampling_rate(self.sampling_rate),
            "steps": check_steps(self.steps, "steps"),
            "clip": check_positive(self.clip, "clip"),
            "max_rows": check_int(self.max_rows, "max_rows", minimum=1),
            "delta": check_delta(self.delta),
            "learning_rate": check_positive(self.learning_rate, "learning_rate"),
            "l2": check_nonnegative(self.l2, "l2"),
            "accountant": check_choice(self.accountant, "accountant", DPSGD_METHODS),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def unit(self) -> str:
        """The unit of privacy: one person with all of their rows."""
        return UNIT_PERSON

    @property
    def relation(self):
        """Add/remove one person."""
        return ADD_REMOVE

    @property
    def sensitivity(self) -> float:
        """ℓ2 sensitivity of each step's sum under add/remove one person: one clipped mean gradient, C."""
        return self.clip

    @property
    def noise_std(self) -> float:
        """Standard deviation of the noise on each step's sum, σC."""
        return self.noise_multiplier * self.clip

    @property
    def event(self) -> PoissonSampledGaussian:
        """The privacy event: T Poisson-subsampled Gaussian steps at the persons' rate q (unit: a person)."""
        return PoissonSampledGaussian(self.noise_multiplier, self.sampling_rate, self.steps)

    def privacy(self) -> pd.DataFrame:
        """ε for one person at ``delta`` under the chosen accountant (and RDP alongside the PLD)."""
        return dpsgd_privacy(self.noise_multiplier, self.sampling_rate, self.steps, self.delta, self.accountant)

    def epsilon(self) -> float:
        """ε for one person at ``delta`` under :attr:`accountant`."""
        privacy = self.privacy()
        return float(privacy.loc[privacy["method"] == self.accountant, "epsilon"].iloc[0])


@dataclass(frozen=True, eq=False)
class PersonRows:
    """Each person's kept rows, grouped: ``order[start[u] : start[u] + count[u]]`` are person u's row indices.

    Attributes
    ----------
    order : numpy.ndarray of int
        The kept rows' indices, grouped by person.
    start, count : numpy.ndarray of int, shape (persons,)
        Where each person's rows start in ``order``, and how many (1 to m).
    labels : numpy.ndarray
        The persons' identifiers, in code order.
    rows, rows_kept : int
        Rows given, and rows kept by the bound m.
    """

    order: np.ndarray
    start: np.ndarray
    count: np.ndarray
    labels: np.ndarray
    rows: int
    rows_kept: int

    @property
    def persons(self) -> int:
        return int(self.count.size)


def person_rows(persons, max_rows: int, rng) -> PersonRows:
    """Group the rows by person, each person keeping a uniformly random ``min(rows, m)`` of theirs.

    Parameters
    ----------
    persons : array_like, shape (n,)
        Each row's person identifier; no missing value.
    max_rows : int
        m, in [1, inf).
    rng : numpy.random.Generator, int or SecureGenerator
        Which rows a heavy person keeps (:func:`dpcore.contributions.bound_contributions`).

    Examples
    --------
    >>> g = person_rows(["a", "b", "a", "a"], 2, rng=0)
    >>> g.count.tolist(), g.rows_kept
    ([2, 1], 3)
    """
    max_rows = check_int(max_rows, "max_rows", minimum=1)
    codes, labels = person_codes(persons)
    kept = bound_contributions(codes, rng, bounds=ContributionBounds(max_rows=max_rows)).kept
    rows = np.flatnonzero(kept)
    order = rows[np.argsort(codes[rows], kind="stable")]
    count = np.bincount(codes[rows], minlength=labels.size)
    start = np.zeros(labels.size, dtype=np.int64)
    np.cumsum(count[:-1], out=start[1:])
    return PersonRows(order, start, count, labels, int(codes.size), int(rows.size))


def _design_rows(design: LogisticDesign):
    """The design's rows as CSR when they are sparse (one-hot data: a step then reads each row's non-zeros only)."""
    rows = design.rows
    if worth_sparse(rows):
        return csr_pair(rows)[0]
    return rows


def _person_means(design: LogisticDesign, table, groups: PersonRows, who, W: np.ndarray, draw_of) -> np.ndarray:
    """The mean per-row gradient of each person ``who[j]`` at the weights ``W[draw_of[j]]``: shape (len(who), p).

    ``table`` is the design's rows, dense or CSR (:func:`_design_rows`). The mean is one sparse product: a matrix
    with ``r_i / |R_u|`` at (person u, row i), r_i the row's residual, times the persons' rows.
    """
    count = groups.count[who]
    first = np.zeros(who.size, dtype=np.int64)
    np.cumsum(count[:-1], out=first[1:])
    total = int(count.sum())
    owner = np.repeat(np.arange(who.size), count)
    rows = groups.order[np.repeat(groups.start[who] - first, count) + np.arange(total)]
    X = table[rows]
    scores = np.asarray(X @ W.T)  # (rows, draws): every draw's score of each row, one product
    residual = sigmoid(scores[np.arange(total), draw_of[owner]])
    residual -= design.y[rows]
    residual /= count[owner]
    indptr = np.append(first, total)  # person j's rows are the consecutive columns first[j] .. first[j + 1] − 1
    weights = sp.csr_matrix((residual, np.arange(total), indptr), shape=(who.size, total))
    means = weights @ X
    return means.toarray() if sp.issparse(means) else np.asarray(means)


def _clip(gradients: np.ndarray, clip: float) -> tuple[np.ndarray, np.ndarray]:
    """Each row scaled to ℓ2 norm at most C, and whether it was scaled down."""
    norms = np.linalg.norm(gradients, axis=1)
    factors = clip / np.maximum(norms, clip)
    return gradients * factors[:, None], factors < 1.0


def person_gradients(X, y, persons, weights, *, clip: float, fit_intercept: bool = True):
    """Each person's mean per-row logistic gradient at ``weights``, clipped to ℓ2 norm C (all rows used).

    What one person adds to a step's sum in :func:`user_level_dp_sgd` (module notes), for tests and teaching.

    Parameters
    ----------
    X : array_like of float, shape (n, d)
    y : array_like of {0, 1}, shape (n,)
    persons : array_like, shape (n,)
        Each row's person; no missing value.
    weights : array_like, shape (p,)
        p = d + 1 with an intercept.
    clip : float
        C, in (0, inf).
    fit_intercept : bool, default True

    Returns
    -------
    (gradients, labels) : numpy.ndarray of shape (persons, p), and the persons' identifiers in the same order.
    """
    X, y = check_training_set(X, y)
    clip = check_positive(clip, "clip")
    design = LogisticDesign(X, y, fit_intercept=fit_intercept)
    w = check_weights(weights, design.p)
    if w.ndim != 1:
        raise ValueError(f"weights must be one vector of {design.p} weights, got shape {w.shape}")
    _check_persons(persons, design.n)
    groups = person_rows(persons, design.n, rng=0)  # m = n: every row kept, nothing random
    who = np.arange(groups.persons)
    gradients, _ = _clip(_person_means(design, design.rows, groups, who, w[None, :], np.zeros(who.size, int)), clip)
    return gradients, groups.labels


def _check_persons(persons, n: int) -> None:
    if np.ndim(persons) != 1 or np.size(persons) != n:
        raise ValueError(f"persons must give one identifier per row ({n:,} rows), got shape {np.shape(persons)}")


def user_level_dp_sgd(
    X,
    y,
    persons,
    *,
    noise_multiplier: float,
    sampling_rate: float,
    steps: int,
    clip: float,
    max_rows: int,
    rng,
    delta: float = 1e-5,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    accountant: str = "pld",
    expected_batch_size: float | None = None,
    fit_intercept: bool = True,
    draws: int | None = None,
    X_test=None,
    y_test=None,
    history_every: int | None = None,
) -> TrainingResult:
    """Train a logistic regression by user-level DP-SGD (McMahan et al. 2018): module notes for the algorithm.

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features, finite; standardise them first.
    y : array_like of {0, 1}, shape (n,)
        Labels; both classes must be present.
    persons : array_like, shape (n,)
        Each row's person identifier; no missing value.
    noise_multiplier, sampling_rate, steps, clip, max_rows, delta, learning_rate, l2, accountant
        As in :class:`UserLevelSGD`; q samples persons, not rows.
    rng : numpy.random.Generator or int
        Which rows a heavy person keeps, the batches and the noise (seeded: a simulation).
    expected_batch_size : float, optional
        The divisor of the noisy sum, in (0, inf); default ``q·N`` for N persons.
    fit_intercept : bool, default True
    draws : int, optional
        Noise draws trained at once (each its own batches and noise, the same kept rows), in [1, inf); None for
        one run.
    X_test, y_test : array_like, optional
        Evaluation set for the history.
    history_every : int or None, default None
        Record every this many steps (0: never; None: about 50 points).

    Returns
    -------
    TrainingResult
        ``epsilon`` at ``delta`` for adding or removing one person (``details["unit"] == "person"``);
        ``details["clipped_fraction"]`` in the history is the share of sampled persons whose gradient was clipped.
    """
    X, y = check_training_set(X, y)
    params = UserLevelSGD(noise_multiplier, sampling_rate, steps, clip, max_rows, delta, learning_rate, l2, accountant)
    design = LogisticDesign(X, y, fit_intercept=fit_intercept, clip=params.clip)
    _check_persons(persons, design.n)
    rng = as_generator(rng)
    groups = person_rows(persons, params.max_rows, rng)
    q, N = params.sampling_rate, groups.persons
    batch = q * N if expected_batch_size is None else check_positive(expected_batch_size, "expected_batch_size")
    k, single = resolve_draws(draws)
    rows_per_step = q * groups.rows_kept  # expected rows read per step
    check_training_work(params.steps, k, rows_per_step, design.p)
    recorder = Recorder(design, params.steps, history_every, params.l2, X_test, y_test)
    W = _user_steps(design, groups, k, params, batch, rng, recorder)
    privacy = params.privacy()
    details = {
        "noise_multiplier": params.noise_multiplier,
        "noise_std": params.noise_std,
        "sensitivity": params.sensitivity,
        "neighbours": "add/remove one person",
        "unit": params.unit,
        "persons": N,
        "max_rows": params.max_rows,
        "rows": groups.rows,
        "rows_used": groups.rows_kept,
        "person_gradient": "mean of the row gradients, clipped",
        "sampling_rate": q,
        "expected_batch_size": batch,
        "steps": params.steps,
        "epochs": params.steps * q,
        "accountant": params.accountant,
        "learning_rate": params.learning_rate,
        "l2": params.l2,
    }
    return accounted_result(
        METHOD,
        W,
        single,
        design,
        recorder,
        privacy,
        params.accountant,
        params.delta,
        details,
        params.clip,
        "person gradient",
    )


def _user_steps(design, groups: PersonRows, k: int, params: UserLevelSGD, batch: float, rng, recorder) -> np.ndarray:
    """The T noisy steps for k models; each model draws its own batches of persons and noise."""
    W = np.zeros((k, design.p))
    table = _design_rows(design)
    sigma_c = params.noise_std
    for t in range(params.steps + 1):
        if t == params.steps:
            if recorder.wants(t):
                recorder.record(t, W)
            break
        index, kept = draw_poisson_batches(groups.persons, params.sampling_rate, k, rng)
        draw_of, slot = np.nonzero(kept)
        who = index[draw_of, slot]
        sums = np.zeros((k, design.p))
        clipped_share = np.zeros(k)
        if who.size:
            clipped, was_clipped = _clip(_person_means(design, table, groups, who, W, draw_of), params.clip)
            sampled = np.bincount(draw_of, minlength=k)
            present = np.flatnonzero(sampled)  # each draw's persons are consecutive in ``who``
            starts = (np.cumsum(sampled) - sampled)[present]
            sums[present] = np.add.reduceat(clipped, starts, axis=0)
            clipped_share = np.bincount(draw_of, weights=was_clipped, minlength=k) / np.maximum(sampled, 1)
        if recorder.wants(t):
            recorder.record(t, W, clipped=clipped_share)
        noisy_update(W, sums, sigma_c, batch, params.learning_rate, params.l2, design.penalised, rng)
    return W


def expected_rows_per_step(counts, max_rows: int, sampling_rate: float) -> float:
    """Rows a step reads on average: q · Σ_u min(rows_u, m) (for estimating the work before training)."""
    counts = np.asarray(counts, dtype=np.int64)
    return float(sampling_rate * np.minimum(counts, int(max_rows)).sum())
