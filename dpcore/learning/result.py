"""What a training run returns: the model (one per noise draw), its history and the privacy it spent.

:class:`TrainingResult` is shared by every trainer of :mod:`dpcore.learning`;
:func:`majority_baseline` is the floor every model must beat.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
from scipy.special import expit

from dpcore.learning._arrays import check_features, check_labels
from dpcore.learning.logistic import clip_by_norm

__all__ = ["TrainingResult", "Baseline", "majority_baseline", "HISTORY_COLUMNS"]

#: Columns of every training history, in order.
HISTORY_COLUMNS = ("step", "draw", "loss", "train_accuracy", "test_accuracy", "clipped_fraction")


@dataclass(frozen=True, eq=False)
class TrainingResult:
    """A trained logistic regression, for one or several noise draws, and what it cost.

    Attributes
    ----------
    method : str
        ``"noisy gradient descent"``, ``"DP-SGD"``, ``"DP-FedAvg"``,
        ``"naive FedAvg (tutorial)"`` or ``"non-private gradient descent"``.
    weights : numpy.ndarray
        Shape (p,) for one run, (draws, p) for several noise draws trained at
        once; the intercept is the last weight when ``fit_intercept``.
    fit_intercept : bool
    history : pandas.DataFrame
        Tidy, one row per recorded step and draw: ``step`` (0 = the initial
        weights), ``draw``, ``loss`` (the regularised objective on the
        training rows), ``train_accuracy``, ``test_accuracy`` (NaN without a
        test set), ``clipped_fraction`` (share of examples, or of sampled
        clients, whose contribution was clipped at that step; NaN where not
        applicable). The history reads the training data at every recorded
        step: it is a diagnostic for the person who trains, **not** a
        private release, and is not covered by ``epsilon``.
    epsilon, delta : float
        The (ε, δ) spent by the released weights. ``epsilon = inf`` means no
        guarantee (the non-private baseline and the tutorial FedAvg).
    privacy : pandas.DataFrame
        The ε of the same run under each accounting computed: columns
        ``method`` and ``epsilon`` (``epsilon`` above is the row of
        ``details["accounting"]``).
    details : Mapping
        Noise and clipping parameters (σ, sensitivity, neighbouring relation,
        number of Gaussian releases, ...), read-only.
    clip : float or None
        The clipping norm C (or S for client updates); None without clipping.
    clipping : str or None
        ``"gradient"``, ``"example"``, ``"client update"`` or None.
    """

    method: str
    weights: np.ndarray
    fit_intercept: bool
    history: pd.DataFrame
    epsilon: float
    delta: float
    privacy: pd.DataFrame
    details: Mapping = field(default_factory=dict)
    clip: float | None = None
    clipping: str | None = None

    def __post_init__(self):
        weights = np.array(self.weights, dtype=np.float64)
        weights.setflags(write=False)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "details", MappingProxyType(dict(self.details)))

    @property
    def draws(self) -> int | None:
        """Number of noise draws trained at once, or None for a single run."""
        return None if self.weights.ndim == 1 else int(self.weights.shape[0])

    @property
    def coef(self) -> np.ndarray:
        """The feature weights, shape (d,) or (draws, d)."""
        return self.weights[..., :-1] if self.fit_intercept else self.weights

    @property
    def intercept(self):
        """The intercept, a float or shape (draws,); 0 when none was fitted."""
        if not self.fit_intercept:
            return 0.0 if self.weights.ndim == 1 else np.zeros(self.weights.shape[0])
        out = self.weights[..., -1]
        return float(out) if out.ndim == 0 else out

    def _rows(self, X) -> np.ndarray:
        d = self.weights.shape[-1] - (1 if self.fit_intercept else 0)
        X = check_features(X, "X", n_columns=d)
        rows = np.hstack([X, np.ones((X.shape[0], 1))]) if self.fit_intercept else X
        if self.clipping == "example" and self.clip is not None:
            rows = clip_by_norm(rows, self.clip)  # the row scaling is part of the model's feature map
        return rows

    def decision_function(self, X) -> np.ndarray:
        """``z = w · x̃`` for each row of ``X``: shape (n,), or (draws, n)."""
        return self._rows(X) @ self.weights.T if self.weights.ndim == 1 else self.weights @ self._rows(X).T

    def predict_proba(self, X) -> np.ndarray:
        """``P(y = 1 | x) = expit(w · x̃)``: shape (n,), or (draws, n)."""
        return expit(self.decision_function(X))

    def predict(self, X) -> np.ndarray:
        """0/1 labels (1 where ``w · x̃ > 0``): shape (n,), or (draws, n)."""
        return (self.decision_function(X) > 0).astype(np.int64)

    def accuracy(self, X, y):
        """Share of rows of ``X`` labelled ``y``: a float, or shape (draws,)."""
        pred = self.predict(X)
        y = check_labels(y, pred.shape[-1])
        out = np.mean(pred == y, axis=-1)
        return float(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True)
class Baseline:
    """The majority-class baseline: always predict the most frequent training label.

    Attributes
    ----------
    label : int
        The majority label of the training set (0 on a tie).
    accuracy : float
        Its accuracy on the evaluation labels.
    """

    label: int
    accuracy: float


def majority_baseline(y_train, y_test=None) -> Baseline:
    """The majority-class baseline: the accuracy of predicting the most frequent training label.

    A classifier that does not beat it has learnt nothing from the features.
    (Choosing the majority label reads the training labels; it is a
    reference point, not a private release.)

    Parameters
    ----------
    y_train : array_like of {0, 1}
        Training labels.
    y_test : array_like of {0, 1}, optional
        Evaluation labels (default: the training labels).

    Examples
    --------
    >>> majority_baseline([0, 0, 1], [1, 0, 0, 0])
    Baseline(label=0, accuracy=0.75)
    """
    y_train = check_labels(y_train, int(np.size(y_train)), "y_train")
    if y_train.size == 0:
        raise ValueError("y_train must contain at least one label, got none")
    label = int(y_train.mean() > 0.5)
    y_eval = y_train if y_test is None else check_labels(y_test, int(np.size(y_test)), "y_test")
    if y_eval.size == 0:
        raise ValueError("y_test must contain at least one label, got none")
    return Baseline(label=label, accuracy=float(np.mean(y_eval == label)))


def history_frame(records: list[dict]) -> pd.DataFrame:
    """A tidy history from per-step records of arrays over draws (private helper of the trainers)."""
    frames = []
    for rec in records:
        k = np.size(rec["loss"])
        frames.append(
            pd.DataFrame(
                {
                    "step": np.full(k, rec["step"], dtype=np.int64),
                    "draw": np.arange(k, dtype=np.int64),
                    "loss": rec["loss"],
                    "train_accuracy": rec["train_accuracy"],
                    "test_accuracy": rec.get("test_accuracy", np.full(k, math.nan)),
                    "clipped_fraction": rec.get("clipped_fraction", np.full(k, math.nan)),
                }
            )
        )
    if not frames:
        return pd.DataFrame({c: pd.Series(dtype="float64") for c in HISTORY_COLUMNS})
    return pd.concat(frames, ignore_index=True)
