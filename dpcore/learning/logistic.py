"""Logistic regression for private training: the loss, per-example gradients and the two ways to bound them.

The model
---------
``P(y = 1 | x) = expit(w · x̃)`` with ``x̃ = (x, 1)`` when an intercept is
fitted (the intercept is the last weight) and ``x̃ = x`` otherwise. Labels are
0/1. The loss of one example is the negative log-likelihood

``ℓ(w; x, y) = ln(1 + e^z) − y z``,  ``z = w · x̃``,

and the objective is ``F(w) = (1/n) Σ ℓ(w; x_i, y_i) + (λ/2) ‖w_coef‖²`` (the
intercept is not penalised). The gradient of one example is

``∇ℓ = (expit(z) − y) x̃``, and since ``expit(z) − y ∈ (−1, 1)``, ``‖∇ℓ‖₂ < ‖x̃‖₂``:

the loss is ``‖x̃‖``-Lipschitz in ``w`` (the reason Chaudhuri, Monteleoni,
Sarwate 2011 assume ``‖x‖ ≤ 1`` for private logistic regression).

Bounding one example's contribution to a sum of gradients
---------------------------------------------------------
* **Gradient clipping** (Abadi et al. 2016, Algorithm 1; Near & Abuah,
  *Programming Differential Privacy*, ch. 12): each
  per-example gradient is scaled to ``g · min(1, C/‖g‖)``. Works for any loss;
  biases the gradient when many examples are clipped.
* **Example clipping** (Near & Abuah, ch. 12; Chaudhuri et al. 2011): each row ``x̃`` is scaled once to
  ``x̃ · min(1, C/‖x̃‖)`` before training. By the Lipschitz bound above every
  gradient then has norm below C with no clipping at all. *Mind the
  intercept*: the bound is on ``x̃ = (x, 1)``, so the intercept's constant 1 is
  part of the row that is scaled (clipping ``x`` alone to C leaves gradients
  of norm up to ``sqrt(C² + 1)``). The scaling is part of the model's feature
  map: :class:`LogisticDesign` and the trained models apply it to new rows too
  (0/1 predictions would not change without it, since scaling ``x̃`` by a
  positive factor keeps the sign of ``w · x̃``).

Either way each example adds a vector of L2 norm at most C to the sum, so the
sum has L2 sensitivity C under add/remove neighbours and 2C under replace-one
(:func:`clipped_sum_sensitivity`).

References
----------
- Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar, Zhang (2016), "Deep
  Learning with Differential Privacy", CCS, Algorithm 1. https://arxiv.org/abs/1607.00133
- Chaudhuri, Monteleoni, Sarwate (2011), "Differentially Private Empirical
  Risk Minimization", JMLR 12. https://jmlr.org/papers/v12/chaudhuri11a.html
- Near & Abuah (2021), *Programming Differential Privacy*, chapter 12 "Machine
  Learning". https://programming-dp.com/ch12.html
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpcore.learning._arrays import check_features, check_labels, check_weights
from dpcore.validation import check_choice, check_nonnegative, check_positive

__all__ = [
    "CLIPPING_MODES",
    "NEIGHBOURS",
    "sigmoid",
    "add_intercept",
    "clip_by_norm",
    "clipped_sum_sensitivity",
    "logistic_loss",
    "logistic_gradient",
    "per_example_gradients",
    "LogisticDesign",
]

#: How one example's gradient is bounded: clip the gradient, or clip the example (its row).
CLIPPING_MODES = ("gradient", "example")
#: Neighbouring relations: add or remove one example (unbounded DP), or replace one (bounded DP, n public).
NEIGHBOURS = ("add/remove", "replace-one")

# A design matrix this sparse (fraction of non-zeros) and this large is multiplied as CSR:
# one-hot encoded tables are mostly zeros (Adult: 15 non-zeros in 107 columns).
_SPARSE_DENSITY = 0.3
_SPARSE_MIN_CELLS = 200_000


def worth_sparse(rows: np.ndarray) -> bool:
    """Whether a design matrix is sparse and large enough to gain from CSR products (one-hot data)."""
    return rows.size >= _SPARSE_MIN_CELLS and np.count_nonzero(rows) <= _SPARSE_DENSITY * rows.size


def sigmoid(z) -> np.ndarray:
    """``expit(z) = 1 / (1 + e^{−z})``, elementwise, as a new float64 array.

    The same values as ``scipy.special.expit`` to a few ulp (``e^{−z}``
    overflows to inf for z < −709, giving exactly 0), several times faster on
    large arrays because numpy's ``exp`` is vectorised.
    """
    out = np.negative(np.asarray(z, dtype=np.float64))
    with np.errstate(over="ignore"):
        np.exp(out, out=out)
    out += 1.0
    return np.reciprocal(out, out=out)


def add_intercept(X) -> np.ndarray:
    """``X`` with a last column of ones: the rows ``x̃ = (x, 1)``."""
    X = check_features(X)
    return np.hstack([X, np.ones((X.shape[0], 1))])


def clip_by_norm(vectors, bound: float) -> np.ndarray:
    """Scale each vector (last axis) to L2 norm at most ``bound``: ``v · min(1, bound/‖v‖)``.

    Written as ``v · bound / max(‖v‖, bound)``, which is exact for the zero
    vector and never divides by zero. The norm of the result is at most
    ``bound`` up to one rounding error.

    Parameters
    ----------
    vectors : array_like of float, shape (..., p)
        Finite vectors.
    bound : float
        The clipping norm C, in (0, inf).

    Examples
    --------
    >>> clip_by_norm([[3.0, 4.0], [0.3, 0.4]], 1.0).tolist()
    [[0.6000000000000001, 0.8], [0.3, 0.4]]
    """
    bound = check_positive(bound, "bound")
    v = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v * (bound / np.maximum(norms, bound))


def clipped_sum_sensitivity(bound: float, neighbours: str = "add/remove") -> float:
    """L2 sensitivity of a sum of vectors each of norm at most ``bound``: C or 2C.

    Add/remove one example changes the sum by one vector, of norm ≤ C;
    replace-one changes one vector for another, by at most ``‖a − b‖ ≤ 2C``
    (Abadi et al. 2016, Section 3.1; Near & Abuah ch. 12).

    Parameters
    ----------
    bound : float
        The clipping norm C of each vector, in (0, inf).
    neighbours : {"add/remove", "replace-one"}

    Examples
    --------
    >>> clipped_sum_sensitivity(1.5), clipped_sum_sensitivity(1.5, "replace-one")
    (1.5, 3.0)
    """
    bound = check_positive(bound, "bound")
    neighbours = check_choice(neighbours, "neighbours", NEIGHBOURS)
    return bound if neighbours == "add/remove" else 2.0 * bound


class LogisticDesign:
    """The training rows ``x̃`` of a logistic regression, ready for vectorised gradient sums.

    Holds the rows (with the intercept column, and scaled to norm ≤ C under
    example clipping), their norms and the labels, and computes for many
    weight vectors at once (one per noise draw) the scores ``z = W x̃ᵀ`` and
    the clipped gradient sums, without forming the (draws, n, p) array of
    per-example gradients: each per-example gradient is a residual times its
    row, so clipping is a per-example factor on the residual,
    ``min(1, C / (|r| ‖x̃‖))``. Sparse (one-hot) data is multiplied as CSR.

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features, finite.
    y : array_like of {0, 1}, shape (n,)
        Labels.
    fit_intercept : bool, default True
        Append the constant 1 to every row (the last weight is the intercept).
    clip : float, optional
        The clipping norm C, in (0, inf); None for no clipping (non-private).
    clipping : {"gradient", "example"}, default "gradient"
        Which clipping bounds each example's gradient (module notes).
    """

    def __init__(self, X, y, *, fit_intercept: bool = True, clip: float | None = None, clipping: str = "gradient"):
        X = check_features(X)
        self.y = check_labels(y, X.shape[0])
        self.fit_intercept = bool(fit_intercept)
        self.d = X.shape[1]
        self.clipping = check_choice(clipping, "clipping", CLIPPING_MODES)
        self.clip = None if clip is None else check_positive(clip, "clip")
        self.rows = self.transform(X)
        self.n, self.p = self.rows.shape
        self.norms = np.linalg.norm(self.rows, axis=1)
        #: 1 for the weights the L2 penalty applies to, 0 for the intercept
        self.penalised = np.ones(self.p)
        if self.fit_intercept:
            self.penalised[-1] = 0.0
        self._csr = None  # (CSR of the rows, CSR of their transpose), built on the first full-batch product

    def _sparse_pair(self):
        """The rows as CSR matrices when they are sparse and large enough to gain from it, else None."""
        if self._csr is None:
            rows = self.rows
            self._csr = csr_pair(rows) if worth_sparse(rows) else False
        return self._csr or None

    def transform(self, X) -> np.ndarray:
        """The model's rows for features ``X``: intercept column appended, example clipping applied."""
        X = check_features(X, n_columns=self.d)
        rows = np.hstack([X, np.ones((X.shape[0], 1))]) if self.fit_intercept else X
        if self.clipping == "example" and self.clip is not None:
            rows = clip_by_norm(rows, self.clip)
        return np.ascontiguousarray(rows)

    def scores(self, W: np.ndarray) -> np.ndarray:
        """``z = W x̃ᵀ``, shape (k, n), for weights ``W`` of shape (k, p)."""
        pair = self._sparse_pair()
        if pair is not None:
            return np.ascontiguousarray((pair[0] @ W.T).T)
        return W @ self.rows.T

    def weighted_sum(self, R: np.ndarray) -> np.ndarray:
        """``Σ_i R[:, i] x̃_i``, shape (k, p), for per-example weights ``R`` of shape (k, n)."""
        pair = self._sparse_pair()
        if pair is not None:
            return np.ascontiguousarray((pair[1] @ R.T).T)
        return R @ self.rows

    def clip_factors(self, residuals: np.ndarray) -> np.ndarray:
        """Per-example factors ``min(1, C / ‖g_i‖)`` with ``‖g_i‖ = |r_i| ‖x̃_i‖`` (gradient clipping).

        All ones without clipping or under example clipping (the rows are
        already bounded).
        """
        if self.clip is None or self.clipping == "example":
            return np.ones_like(residuals)
        return self.clip / np.maximum(np.abs(residuals) * self.norms, self.clip)

    def gradient_sum(self, W: np.ndarray, Z: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The sum of (clipped) per-example gradients at each row of ``W``, and the fraction clipped.

        Parameters
        ----------
        W : numpy.ndarray, shape (k, p)
        Z : numpy.ndarray, shape (k, n), optional
            The scores at ``W``, when already computed.

        Returns
        -------
        (sums, clipped) : shapes (k, p) and (k,)
            ``clipped`` is the fraction of examples whose gradient was scaled
            down (0 under example clipping or without clipping).
        """
        if Z is None:
            Z = self.scores(W)
        R = sigmoid(Z)
        R -= self.y
        factors = self.clip_factors(R)
        clipped = np.mean(factors < 1.0, axis=1)
        R *= factors
        return self.weighted_sum(R), clipped

    def loss(self, W: np.ndarray, Z: np.ndarray | None = None, l2: float = 0.0) -> np.ndarray:
        """The objective ``F`` (mean loss plus penalty) at each row of ``W``, shape (k,)."""
        if Z is None:
            Z = self.scores(W)
        # ln(1 + e^z) − y z, with ln(1 + e^z) = max(z, 0) + log1p(e^{−|z|}) (no overflow; faster than logaddexp)
        terms = np.abs(Z)
        np.negative(terms, out=terms)
        np.exp(terms, out=terms)
        np.log1p(terms, out=terms)
        terms += np.maximum(Z, 0.0)
        terms -= self.y * Z
        mean_loss = np.mean(terms, axis=1)
        return mean_loss + 0.5 * l2 * np.sum((W * self.penalised) ** 2, axis=1)

    def accuracy(self, W: np.ndarray, Z: np.ndarray | None = None) -> np.ndarray:
        """Share of rows whose label is ``z > 0``, for each row of ``W``: shape (k,)."""
        if Z is None:
            Z = self.scores(W)
        return np.mean((Z > 0) == (self.y > 0.5), axis=1)

    def per_example(self, W: np.ndarray) -> np.ndarray:
        """The (clipped) per-example gradient contributions, shape (k, n, p): for tests and teaching."""
        R = sigmoid(self.scores(W)) - self.y
        R = R * self.clip_factors(R)
        return R[:, :, None] * self.rows[None, :, :]


def csr_pair(rows: np.ndarray):
    """``rows`` as CSR, and its transpose as CSR: one scan of the dense array (3× faster than ``csr_matrix``)."""
    n, p = rows.shape
    flat = np.flatnonzero(rows)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(flat // p, minlength=n), out=indptr[1:])
    csr = sp.csr_matrix((rows.ravel()[flat], flat % p, indptr), shape=(n, p))
    return csr, csr.T.tocsr()


def _as_2d(weights, p: int) -> tuple[np.ndarray, bool]:
    W = check_weights(weights, p)
    return np.atleast_2d(W), W.ndim == 1


def logistic_loss(weights, X, y, *, l2: float = 0.0, fit_intercept: bool = True):
    """The objective ``F(w) = (1/n) Σ [ln(1 + e^{z_i}) − y_i z_i] + (λ/2) ‖w_coef‖²``.

    Parameters
    ----------
    weights : array_like, shape (p,) or (k, p)
        ``p = d + 1`` with an intercept (last), ``d`` without.
    X : array_like of float, shape (n, d)
    y : array_like of {0, 1}, shape (n,)
    l2 : float, default 0.0
        Penalty λ, in [0, inf); the intercept is not penalised.
    fit_intercept : bool, default True

    Returns
    -------
    float or numpy.ndarray of shape (k,)
    """
    design = LogisticDesign(X, y, fit_intercept=fit_intercept)
    l2 = check_nonnegative(l2, "l2")
    W, single = _as_2d(weights, design.p)
    out = design.loss(W, l2=l2)
    return float(out[0]) if single else out


def logistic_gradient(weights, X, y, *, l2: float = 0.0, fit_intercept: bool = True):
    """The gradient of :func:`logistic_loss`: ``(1/n) Σ (expit(z_i) − y_i) x̃_i + λ w_coef``.

    Same parameters as :func:`logistic_loss`; returns shape (p,) or (k, p).
    """
    design = LogisticDesign(X, y, fit_intercept=fit_intercept)
    l2 = check_nonnegative(l2, "l2")
    W, single = _as_2d(weights, design.p)
    sums, _ = design.gradient_sum(W)
    out = sums / design.n + l2 * W * design.penalised
    return out[0] if single else out


def per_example_gradients(
    weights, X, y, *, clip: float | None = None, clipping: str = "gradient", fit_intercept: bool = True
):
    """Each example's contribution to the gradient sum: ``(expit(z_i) − y_i) x̃_i``, clipped as asked.

    With ``clip=None`` these are the plain per-example gradients of the loss
    (no penalty). With a clip C, gradient clipping scales each to norm ≤ C;
    example clipping computes them on rows scaled to norm ≤ C (module notes).
    Materialises an (n, p) or (k, n, p) array: for checks and teaching; the
    trainers use :meth:`LogisticDesign.gradient_sum`.

    Parameters
    ----------
    weights : array_like, shape (p,) or (k, p)
    X : array_like of float, shape (n, d)
    y : array_like of {0, 1}, shape (n,)
    clip : float, optional
        Clipping norm C, in (0, inf).
    clipping : {"gradient", "example"}, default "gradient"
    fit_intercept : bool, default True

    Returns
    -------
    numpy.ndarray
        Shape (n, p) for one weight vector, (k, n, p) for k.
    """
    design = LogisticDesign(X, y, fit_intercept=fit_intercept, clip=clip, clipping=clipping)
    W, single = _as_2d(weights, design.p)
    out = design.per_example(W)
    return out[0] if single else out
