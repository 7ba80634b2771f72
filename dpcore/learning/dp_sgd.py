"""DP-SGD: Poisson-sampled batches, per-example clipping, Gaussian noise on the sum (Abadi et al. 2016).

For t = 1..T (Abadi et al. 2016, Algorithm 1 and Section 3.1; each example
is sampled independently with probability q, the sampling their privacy
analysis assumes):

1. each example joins the batch B_t independently with probability q;
2. ``g = Σ_{i ∈ B_t} clip_C(∇ℓ(w; x_i, y_i)) + N(0, σ² C² I)``;
3. ``w ← w − η (g / (q n) + λ w_coef)``.

The privacy of the T noisy sums is that of the subsampled Gaussian
mechanism with noise multiplier σ and sampling rate q, composed T times,
under add/remove neighbours; :func:`dpcore.accounting.dpsgd_epsilon`
computes it (PLD or RDP).

Why divide by the expected batch size q·n and not by |B_t|
-----------------------------------------------------------
The accountant covers the release of the noisy sum only. Dividing it by a
number fixed before training is post-processing; dividing by the sampled
size |B_t| is not: |B_t| counts whether the person at stake was sampled, it
is released without noise through the update's scale, and it can be 0. The
noise on the average is then ``σC/(qn)`` at every step, as the accountant
assumes. (The divisor's dependence on n is one number fixed before training,
the convention of Opacus and TF Privacy; pass ``expected_batch_size`` to fix it
as a public constant instead.)

References
----------
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang (2016), "Deep
  Learning with Differential Privacy", CCS, Algorithm 1 and Section 3.1.
  https://arxiv.org/abs/1607.00133
- Mironov, Talwar, Zhang (2019), "Rényi Differential Privacy of the Sampled
  Gaussian Mechanism" (Poisson sampling, add/remove). https://arxiv.org/abs/1908.10530
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpcore.accounting import DPSGD_METHODS, dpsgd_epsilon
from dpcore.learning._arrays import check_training_set
from dpcore.learning._training import Recorder, check_steps, check_training_work, resolve_draws
from dpcore.learning.logistic import LogisticDesign, sigmoid
from dpcore.learning.result import TrainingResult
from dpcore.limits import MAX_DRAWS, MAX_ELEMENTS
from dpcore.validation import (
    as_generator,
    check_choice,
    check_delta,
    check_elements,
    check_int,
    check_noise_multiplier,
    check_nonnegative,
    check_positive,
    check_probability,
    check_sampling_rate,
)

__all__ = ["poisson_batches", "dp_sgd"]


def poisson_batches(n: int, sampling_rate: float, draws: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Independent Poisson-sampled batches of ``range(n)``: each index is kept with probability q.

    The kept positions of a Bernoulli(q) sequence are separated by i.i.d.
    Geometric(q) gaps (on 1, 2, ...), so the batch is the partial sums of
    geometric draws that stay below n: an exact Poisson sample in O(qn)
    work instead of n uniform draws (a standard equivalence; e.g. Devroye
    1986, *Non-Uniform Random Variate Generation*, ch. X).

    Parameters
    ----------
    n : int
        Population size, in [1, inf).
    sampling_rate : float
        q, in (0, 1].
    draws : int
        Number of independent batches, in [1, inf).
    rng : numpy.random.Generator or int

    Returns
    -------
    (index, kept) : numpy.ndarray, shapes (draws, m)
        ``index[j, :]`` are batch j's indices in increasing order, padded
        past the batch with n − 1; ``kept[j, :]`` marks the real entries.
        ``kept[j].sum()`` is Binomial(n, q).

    Examples
    --------
    >>> index, kept = poisson_batches(10, 1.0, 2, rng=0)
    >>> index[kept].reshape(2, -1).tolist()[0]
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    """
    n = check_int(n, "n", minimum=1)
    q = check_probability(sampling_rate, "sampling_rate", high_open=False)
    draws = check_int(draws, "draws", minimum=1, maximum=MAX_DRAWS)
    check_elements(draws * math.ceil(q * n), "draws × expected batch size", MAX_ELEMENTS)
    return draw_poisson_batches(n, q, draws, as_generator(rng))


def draw_poisson_batches(n: int, q: float, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """:func:`poisson_batches` on checked arguments (the trainers' loops draw a batch per step with it)."""
    # enough gaps that the last partial sum passes n with overwhelming probability; extended if not
    m = int(q * n + 8.0 * math.sqrt(q * n) + 16)
    positions = np.cumsum(rng.geometric(q, size=(draws, m)), axis=1) - 1
    while np.any(positions[:, -1] < n):
        more = positions[:, -1:] + np.cumsum(rng.geometric(q, size=(draws, m)), axis=1)
        positions = np.concatenate([positions, more], axis=1)
    kept = positions < n
    width = max(1, int(kept.sum(axis=1).max()))
    return np.minimum(positions[:, :width], n - 1), kept[:, :width]


def _check_dpsgd(noise_multiplier, sampling_rate, steps, delta, accountant):
    return (
        check_noise_multiplier(noise_multiplier),
        check_sampling_rate(sampling_rate),
        check_steps(steps, "steps"),
        check_delta(delta),
        check_choice(accountant, "accountant", DPSGD_METHODS),
    )


def dp_sgd(
    X,
    y,
    *,
    noise_multiplier: float,
    sampling_rate: float,
    steps: int,
    clip: float,
    rng,
    delta: float = 1e-5,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    clipping: str = "gradient",
    accountant: str = "pld",
    expected_batch_size: float | None = None,
    fit_intercept: bool = True,
    draws: int | None = None,
    X_test=None,
    y_test=None,
    history_every: int | None = None,
) -> TrainingResult:
    """Train a logistic regression by DP-SGD (Abadi et al. 2016); module notes for the algorithm.

    Each noise draw has its own batches and noise, all vectorised: a step
    gathers the (draws, m, p) rows of the batches and updates the (draws, p)
    weights at once.

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features, finite; standardise them first.
    y : array_like of {0, 1}, shape (n,)
        Labels; both classes must be present.
    noise_multiplier : float
        σ, in (0, inf): the noise on the sum has standard deviation σC.
    sampling_rate : float
        q, in (0, 1]: the expected batch size is q·n.
    steps : int
        T, in [1, inf).
    clip : float
        Clipping norm C, in (0, inf).
    rng : numpy.random.Generator or int
    delta : float, default 1e-5
        δ at which ε is reported, in (0, 1); keep it well below 1/n.
    learning_rate : float, default 1.0
        η, in (0, inf).
    l2 : float, default 0.0
        L2 penalty λ, in [0, inf) (not on the intercept; added after the noise).
    clipping : {"gradient", "example"}, default "gradient"
    accountant : {"pld", "rdp"}, default "pld"
        How :func:`dpcore.accounting.dpsgd_epsilon` composes the T steps.
    expected_batch_size : float, optional
        The divisor of the noisy sum, in (0, inf); default ``q·n``.
    fit_intercept : bool, default True
    draws : int, optional
        Noise draws trained at once, in [1, inf); None for one run.
    X_test, y_test : array_like, optional
        Evaluation set for the history.
    history_every : int or None, default None
        Record every this many steps (0: never; None: about 50 points). Each
        record reads the whole training set.

    Returns
    -------
    TrainingResult
        ``epsilon`` at ``delta`` from the subsampled-Gaussian accountant.
    """
    X, y = check_training_set(X, y)
    sigma, q, steps, delta, accountant = _check_dpsgd(noise_multiplier, sampling_rate, steps, delta, accountant)
    clip = check_positive(clip, "clip")
    learning_rate = check_positive(learning_rate, "learning_rate")
    l2 = check_nonnegative(l2, "l2")
    design = LogisticDesign(X, y, fit_intercept=fit_intercept, clip=clip, clipping=clipping)
    batch = q * design.n if expected_batch_size is None else check_positive(expected_batch_size, "expected_batch_size")
    k, single = resolve_draws(draws)
    check_training_work(steps, k, batch, design.p)
    rng = as_generator(rng)
    recorder = Recorder(design, steps, history_every, l2, X_test, y_test)
    W = _sgd_steps(design, k, steps, q, sigma, batch, learning_rate, l2, rng, recorder)
    privacy = dpsgd_privacy(sigma, q, steps, delta, accountant)
    details = {
        "noise_multiplier": sigma,
        "noise_std": sigma * design.clip,
        "sensitivity": design.clip,
        "neighbours": "add/remove",
        "sampling_rate": q,
        "expected_batch_size": batch,
        "steps": steps,
        "epochs": steps * q,
        "accountant": accountant,
        "learning_rate": learning_rate,
        "l2": l2,
    }
    return accounted_result(
        "DP-SGD", W, single, design, recorder, privacy, accountant, delta, details, design.clip, design.clipping
    )


def dpsgd_privacy(sigma: float, q: float, steps: int, delta: float, accountant: str) -> pd.DataFrame:
    """ε of T subsampled Gaussian steps under the chosen accountant (and RDP, cheap, alongside PLD)."""
    methods = [accountant] if accountant == "rdp" else [accountant, "rdp"]
    eps = [float(dpsgd_epsilon(sigma, q, steps, delta, method=m)) for m in methods]
    return pd.DataFrame({"method": methods, "epsilon": eps})


def noisy_update(W: np.ndarray, sums: np.ndarray, noise_std, divisor, learning_rate, l2, penalised, rng) -> None:
    """One minibatch step on k models, in place: ``W ← W − η [ (sums + N(0, s² I)) / divisor + λ W_coef ]``.

    ``sums`` (k, p) is the clipped gradient sum of each model's batch and is overwritten; ``s = noise_std``.
    The penalty gradient ``λ W`` does not read the data and is added after the noise (as in full-batch descent).
    """
    sums += noise_std * rng.standard_normal(W.shape)
    sums /= divisor
    if l2:
        sums += l2 * W * penalised
    sums *= learning_rate
    W -= sums


def accounted_result(
    method: str,
    W: np.ndarray,
    single: bool,
    design: LogisticDesign,
    recorder: Recorder,
    privacy,
    accountant: str,
    delta: float,
    details: dict,
    clip: float,
    clipping: str,
) -> TrainingResult:
    """The :class:`TrainingResult` of a trainer whose ``privacy`` table has one ε row per accountant.

    ``W`` holds the k models' weights (the first alone when ``single``); ε is the row of ``accountant``, at ``delta``;
    ``clip`` and ``clipping`` say what was bounded.
    """
    return TrainingResult(
        method=method,
        weights=W[0] if single else W,
        fit_intercept=design.fit_intercept,
        history=recorder.frame(),
        epsilon=float(privacy.loc[privacy["method"] == accountant, "epsilon"].iloc[0]),
        delta=delta,
        privacy=privacy,
        details=details,
        clip=clip,
        clipping=clipping,
    )


def _sgd_steps(design, k, steps, q, sigma, batch, learning_rate, l2, rng, recorder) -> np.ndarray:
    """The T noisy steps for k models; each model draws its own batches and noise."""
    W = np.zeros((k, design.p))
    rows, norms, labels = design.rows, design.norms, design.y
    clip = design.clip
    gradient_clipping = design.clipping == "gradient"
    for t in range(steps + 1):
        if t == steps:
            if recorder.wants(t):
                recorder.record(t, W)
            break
        index, kept = draw_poisson_batches(design.n, q, k, rng)
        Xb = rows[index]  # (k, m, p)
        z = np.matmul(Xb, W[:, :, None])[:, :, 0]
        r = sigmoid(z)
        r -= labels[index]
        r *= kept
        clipped = None
        if gradient_clipping:
            factors = clip / np.maximum(np.abs(r) * norms[index], clip)  # min(1, C/‖g_i‖), ‖g_i‖ = |r_i| ‖x̃_i‖
            r *= factors
            if recorder.wants(t):
                clipped = np.sum((factors < 1.0) & kept, axis=1) / np.maximum(kept.sum(axis=1), 1)
        if recorder.wants(t):
            recorder.record(t, W, clipped=clipped)
        sums = np.matmul(r[:, None, :], Xb)[:, 0, :]
        noisy_update(W, sums, sigma * clip, batch, learning_rate, l2, design.penalised, rng)
    return W
