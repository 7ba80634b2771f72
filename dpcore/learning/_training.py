"""The loops shared by the trainers (private): full-batch descent, history recording, draws.

Every loop runs over steps only; noise draws are a leading axis of the
weights, shape (k, p), so that k models train in the same matrix products.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.learning._arrays import check_eval_set
from dpcore.learning.logistic import LogisticDesign
from dpcore.learning.result import history_frame
from dpcore.limits import MAX_DRAWS, MAX_TRAINING_STEPS, MAX_TRAINING_WORK
from dpcore.validation import check_elements, check_int

__all__ = [
    "check_steps",
    "check_training_work",
    "resolve_draws",
    "record_schedule",
    "evaluation_design",
    "Recorder",
    "descend",
]

#: Recorded steps when ``history_every`` is left to the trainer: about this many points per run.
HISTORY_POINTS = 50


def resolve_draws(draws) -> tuple[int, bool]:
    """``(k, single)``: the number of models to train and whether the caller asked for one run (None)."""
    if draws is None:
        return 1, True
    return check_int(draws, "draws", minimum=1, maximum=MAX_DRAWS), False


def check_steps(steps, name: str) -> int:
    """A number of training steps (iterations, rounds, local steps), in [1, MAX_TRAINING_STEPS] (:mod:`dpcore.limits`)."""
    return check_int(steps, name, minimum=1, maximum=MAX_TRAINING_STEPS)


def check_training_work(steps: int, draws: int, rows: float, features: int) -> None:
    """Refuse a run whose gradients would take more than MAX_TRAINING_WORK multiply-adds (:mod:`dpcore.limits`).

    ``rows`` is the rows one step reads (n for a full batch, q n expected for a Poisson batch).
    """
    work = int(steps) * int(draws) * max(1, math.ceil(rows)) * int(features)
    check_elements(work, "steps × draws × rows × features", MAX_TRAINING_WORK)


def record_schedule(steps: int, every) -> np.ndarray:
    """Steps at which the history is recorded: 0, e, 2e, ... and always the last; empty for ``every=0``."""
    if every is None:
        every = max(1, math.ceil(steps / HISTORY_POINTS))
    every = check_int(every, "history_every", minimum=0)
    if every == 0:
        return np.array([], dtype=np.int64)
    return np.unique(np.append(np.arange(0, steps + 1, every), steps))


def evaluation_design(design: LogisticDesign, X_test, y_test) -> LogisticDesign | None:
    """The evaluation rows as a design with the training design's feature map (intercept, example clipping)."""
    evaluation = check_eval_set(X_test, y_test, design.d)
    if evaluation is None:
        return None
    return LogisticDesign(
        evaluation[0], evaluation[1], fit_intercept=design.fit_intercept, clip=design.clip, clipping=design.clipping
    )


class Recorder:
    """Collects the tidy history of a run: loss and accuracies at the scheduled steps."""

    def __init__(self, design: LogisticDesign, steps: int, every, l2: float, X_test=None, y_test=None):
        self.design = design
        self.l2 = l2
        self.steps = record_schedule(steps, every)
        self._wanted = set(self.steps.tolist())
        self.test = evaluation_design(design, X_test, y_test)
        self.records: list[dict] = []

    def wants(self, step: int) -> bool:
        return step in self._wanted

    def record(self, step: int, W: np.ndarray, Z: np.ndarray | None = None, clipped=None) -> None:
        design = self.design
        if Z is None:
            Z = design.scores(W)
        k = W.shape[0]
        rec = {
            "step": step,
            "loss": design.loss(W, Z, self.l2),
            "train_accuracy": design.accuracy(W, Z),
            "test_accuracy": np.full(k, math.nan) if self.test is None else self.test.accuracy(W),
            "clipped_fraction": np.full(k, math.nan) if clipped is None else np.asarray(clipped, dtype=float),
        }
        self.records.append(rec)

    def frame(self):
        return history_frame(self.records)


def descend(
    design: LogisticDesign,
    W: np.ndarray,
    *,
    steps,
    learning_rate: float,
    l2: float,
    divisor: np.ndarray,
    noise_std: np.ndarray | None,
    rng: np.random.Generator | None,
    recorder: Recorder | None = None,
) -> np.ndarray:
    """Full-batch (noisy) gradient descent on k models at once; returns the final weights (k, p).

    Each step: ``W ← W − η [ (Σ_i clip(g_i(W)) + N(0, s² I)) / m + λ W_coef ]``
    with ``s = noise_std`` per model (no noise when None) and ``m = divisor``
    per model (a noisy count, or n). The penalty gradient ``λ W`` does not
    read the data and is added after the noise.

    ``steps`` is one number of steps for all models, or one per model in
    non-increasing order: the models still training at step t are then a
    prefix of the rows of ``W``, so runs of different lengths share each
    matrix product without computing anything for the finished ones. The
    history (``recorder``) needs one number of steps.
    """
    W = np.array(W, dtype=np.float64)
    k = W.shape[0]
    steps = np.broadcast_to(np.asarray(steps, dtype=np.int64), (k,))
    if np.any(np.diff(steps) > 0):
        raise ValueError("steps must be in non-increasing order over the models")
    if recorder is not None and steps[0] != steps[-1]:
        raise ValueError("a history needs the same number of steps for every model")
    inv_divisor = (1.0 / np.asarray(divisor, dtype=np.float64)).reshape(k, 1)
    noise_std = None if noise_std is None else np.asarray(noise_std, dtype=np.float64).reshape(k, 1)
    last = int(steps[0])
    gradient_clipping = design.clip is not None and design.clipping == "gradient"
    for t in range(last + 1):
        need_record = recorder is not None and recorder.wants(t)
        if t == last:
            if need_record:
                recorder.record(t, W)
            break
        a = int(np.count_nonzero(steps > t))  # models still training: a prefix
        Wa = W[:a]
        Z = design.scores(Wa)
        sums, clipped = design.gradient_sum(Wa, Z)
        if need_record:
            recorder.record(t, Wa, Z, clipped if gradient_clipping else None)
        if noise_std is not None:
            sums += noise_std[:a] * rng.standard_normal((a, design.p))
        sums *= inv_divisor[:a]
        if l2:
            sums += l2 * Wa * design.penalised
        sums *= learning_rate
        Wa -= sums
    return W
