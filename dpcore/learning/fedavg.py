"""Federated averaging with client-level differential privacy (DP-FedAvg), and the tutorial version that is not private.

DP-FedAvg (McMahan, Ramage, Talwar, Zhang 2018, Algorithm 1, with the
fixed-denominator estimator and every client weighted 1): for each round,

1. each of the m clients is sampled independently with probability q (``client_rate``);
2. each sampled client k starts from the global weights w, runs a few
   local full-batch gradient steps on its own rows, and returns its update
   ``Δ_k = w_k − w``, clipped to L2 norm S: ``Δ_k · min(1, S/‖Δ_k‖)``;
3. the server releases ``Σ_k clip_S(Δ_k) + N(0, σ² S² I)`` and moves
   ``w ← w + η_server · (that sum) / (q m)``.

Adding or removing one *client* (all of its rows) changes the sum by one
clipped update, of norm ≤ S: the rounds are the subsampled Gaussian
mechanism with noise multiplier σ and rate q, and the client-level
(ε, δ) comes from the same accountant as DP-SGD
(:func:`dpcore.accounting.dpsgd_epsilon` with ``q = client_rate``, T = rounds).
A client-level guarantee protects everything one client holds; when clients
are groups of people (one per value of a column), it protects the group. The
divisor q·m is fixed before training, for the reason given in
:mod:`dpcore.learning.dp_sgd`.

The tutorial version (:func:`naive_fedavg`)
-------------------------------------------
A recipe that circulates in tutorials: average the clients' locally trained
models, weighted by their sizes, and add Laplace noise of scale
``b = Δ_assumed / ε`` to each coordinate, with an *assumed* sensitivity.
Nothing bounds a client's model, so nothing bounds its influence on the
average: the Laplace mechanism is ε-DP only if ``‖A(D) − A(D')‖₁ ≤ Δ_assumed``
for all neighbours (Dwork & Roth 2014, Theorem 3.6), and for a pair of data
sets whose averages differ by v the privacy loss it actually bounds is
``‖v‖₁ / b = ε · ‖v‖₁ / Δ_assumed``. :func:`client_influence` computes
``‖v‖₁`` for removing each real client, and :func:`adversarial_client_influence`
shows one client who scales its model: its influence grows without bound,
while a clipped update can never move the DP-FedAvg sum by more than S.

References
----------
- McMahan, Ramage, Talwar, Zhang (2018), "Learning Differentially Private
  Recurrent Language Models", ICLR, Algorithm 1 and Section 3. https://arxiv.org/abs/1710.06963
- McMahan, Moore, Ramage, Hampson, Agüera y Arcas (2017), "Communication-Efficient
  Learning of Deep Networks from Decentralized Data", AISTATS (FedAvg). https://arxiv.org/abs/1602.05629
- Bagdasaryan, Veit, Hua, Estrin, Shmatikov (2020), "How To Backdoor
  Federated Learning", AISTATS: a single client scaling its model update
  replaces the global model. https://arxiv.org/abs/1807.00459
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpcore.accounting import DPSGD_METHODS
from dpcore.laplace import Laplace
from dpcore.learning._arrays import check_features, check_labels
from dpcore.learning._training import Recorder, check_steps, check_training_work, evaluation_design, resolve_draws
from dpcore.learning.dp_sgd import accounted_result, dpsgd_privacy
from dpcore.learning.logistic import LogisticDesign, clip_by_norm, csr_pair, sigmoid
from dpcore.learning.result import TrainingResult
from dpcore.validation import (
    as_generator,
    check_choice,
    check_delta,
    check_epsilon,
    check_int,
    check_noise_multiplier,
    check_nonnegative,
    check_positive,
    check_sampling_rate,
)

__all__ = [
    "split_by_group",
    "split_at_random",
    "Federation",
    "dp_fedavg",
    "naive_fedavg",
    "client_influence",
    "adversarial_client_influence",
]


# --------------------------------------------------------------------------- splitting rows into clients


def split_by_group(X, y, groups) -> list[tuple[np.ndarray, np.ndarray]]:
    """One client per distinct value of ``groups`` (a categorical column): the rows that share it.

    Parameters
    ----------
    X : array_like of float, shape (n, d)
    y : array_like of {0, 1}, shape (n,)
    groups : array_like, shape (n,)
        The group of each row (any hashable values, no missing values).

    Returns
    -------
    list of (X_k, y_k)
        In the order of ``numpy.unique(groups)`` (sorted values); rows keep
        their order within a client.

    Examples
    --------
    >>> clients = split_by_group([[0.0], [1.0], [2.0]], [0, 1, 1], ["b", "a", "b"])
    >>> [c[1].tolist() for c in clients]
    [[1.0], [0.0, 1.0]]
    """
    X = check_features(X)
    y = check_labels(y, X.shape[0])
    g = np.asarray(groups)
    if g.ndim != 1 or g.shape[0] != X.shape[0]:
        raise ValueError(f"groups must have one value per row of X ({X.shape[0]}), got shape {g.shape}")
    if g.dtype.kind in "fc" and np.isnan(g).any():
        raise ValueError(f"groups must not contain missing values, got {int(np.isnan(g).sum())} NaN value(s)")
    try:
        _, codes = np.unique(g, return_inverse=True)
    except TypeError:  # mixed types: group by their text
        _, codes = np.unique(g.astype(str), return_inverse=True)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return [(X[idx], y[idx]) for idx in np.split(order, bounds)]


def split_at_random(X, y, n_clients: int, rng) -> list[tuple[np.ndarray, np.ndarray]]:
    """Deal the rows at random into ``n_clients`` clients of near-equal size (sizes differ by at most 1).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
    y : array_like of {0, 1}, shape (n,)
    n_clients : int
        Number of clients m, in [1, n].
    rng : numpy.random.Generator or int

    Returns
    -------
    list of (X_k, y_k)
    """
    X = check_features(X)
    y = check_labels(y, X.shape[0])
    m = check_int(n_clients, "n_clients", minimum=1, maximum=X.shape[0])
    perm = as_generator(rng).permutation(X.shape[0])
    return [(X[idx], y[idx]) for idx in np.array_split(perm, m)]


# --------------------------------------------------------------------------- clients as one array


class Federation:
    """The clients' rows stacked in one design, with local training vectorised over (draw, client) pairs.

    Parameters
    ----------
    clients : list of (X_k, y_k)
        At least one client, each with at least one row and the same number
        of feature columns; together they must hold both labels.
    fit_intercept : bool, default True
    """

    def __init__(self, clients, *, fit_intercept: bool = True):
        if isinstance(clients, (str, bytes)) or not hasattr(clients, "__len__"):
            raise TypeError(f"clients must be a list of (X, y) pairs, got {type(clients).__name__}")
        if len(clients) == 0:
            raise ValueError("clients must hold at least one (X, y) pair, got none")
        xs, ys = [], []
        for i, pair in enumerate(clients):
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2):
                raise TypeError(f"clients[{i}] must be an (X, y) pair, got {type(pair).__name__}")
            Xk = check_features(pair[0], f"clients[{i}] X", n_columns=xs[0].shape[1] if xs else None)
            xs.append(Xk)
            ys.append(check_labels(pair[1], Xk.shape[0], f"clients[{i}] y"))
        self.sizes = np.array([x.shape[0] for x in xs], dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
        y = np.concatenate(ys)
        if y.min() == y.max():
            raise ValueError(f"the clients' labels must contain both classes 0 and 1, got only class {int(y[0])}")
        self.design = LogisticDesign(np.vstack(xs), y, fit_intercept=fit_intercept)
        self.m = len(xs)
        self._rows_csr = None

    def local_updates(self, W_start: np.ndarray, client: np.ndarray, steps: int, lr: float, l2: float) -> np.ndarray:
        """Updates ``Δ = w_k − w`` after ``steps`` local full-batch gradient steps of each (start, client) pair.

        Pair j starts from ``W_start[j]`` on the rows of client ``client[j]``:
        ``w ← w − lr [ (1/n_k) Σ_{i ∈ k} ∇ℓ(w; x_i, y_i) + λ w_coef ]``. All pairs
        step together, over the non-zero entries of their stacked rows (one-hot
        data is mostly zeros): each score ``z_i = Σ_j x_ij w_pair(i), j`` and
        each pair's gradient are sums of those entries (``numpy.bincount``).
        """
        design = self.design
        P, p = client.size, design.p
        sizes = self.sizes[client]
        pair_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        pair_of_row = np.repeat(np.arange(P), sizes)
        rows_index = np.arange(int(sizes.sum())) - pair_starts[pair_of_row] + self.starts[client][pair_of_row]
        block = self._csr()[rows_index]  # the pairs' rows, stacked (scipy gathers CSR rows in C)
        entry_row = np.repeat(np.arange(rows_index.size), np.diff(block.indptr))
        flat = pair_of_row[entry_row] * p + block.indices  # position of each entry's weight in W.ravel()
        values, yr = block.data, design.y[rows_index]
        W = np.array(W_start, dtype=np.float64)
        inv_sizes = (1.0 / sizes).reshape(-1, 1)
        for _ in range(steps):
            z = np.bincount(entry_row, weights=values * W.ravel()[flat], minlength=rows_index.size)
            r = sigmoid(z)
            r -= yr
            grad = np.bincount(flat, weights=values * r[entry_row], minlength=P * p).reshape(P, p)
            grad *= inv_sizes
            if l2:
                grad += l2 * W * design.penalised
            W -= lr * grad
        return W - W_start

    def _csr(self):
        if self._rows_csr is None:
            pair = self.design._sparse_pair()
            self._rows_csr = pair[0] if pair is not None else csr_pair(self.design.rows)[0]
        return self._rows_csr


def _check_local(local_steps, local_lr, l2):
    return (
        check_steps(local_steps, "local_steps"),
        check_positive(local_lr, "local_lr"),
        check_nonnegative(l2, "l2"),
    )


def dp_fedavg(
    clients,
    *,
    rounds: int,
    client_rate: float,
    local_steps: int,
    clip: float,
    noise_multiplier: float,
    rng,
    delta: float = 1e-5,
    local_lr: float = 1.0,
    server_lr: float = 1.0,
    l2: float = 0.0,
    accountant: str = "pld",
    fit_intercept: bool = True,
    draws: int | None = None,
    X_test=None,
    y_test=None,
    history_every: int | None = None,
) -> TrainingResult:
    """Train a logistic regression by DP-FedAvg, client-level (ε, δ)-DP; module notes for the algorithm.

    Parameters
    ----------
    clients : list of (X_k, y_k)
        The clients' features and 0/1 labels (:func:`split_by_group`,
        :func:`split_at_random`).
    rounds : int
        Number of rounds T, in [1, inf).
    client_rate : float
        q, the probability that a client takes part in a round, in (0, 1].
    local_steps : int
        Local full-batch gradient steps per sampled client, in [1, inf).
    clip : float
        S, the L2 bound on each client's update, in (0, inf).
    noise_multiplier : float
        σ, in (0, inf): the noise on the sum of updates has standard deviation σS.
    rng : numpy.random.Generator or int
    delta : float, default 1e-5
        δ at which the client-level ε is reported, in (0, 1); keep it well below 1/m.
    local_lr : float, default 1.0
        Clients' step size, in (0, inf).
    server_lr : float, default 1.0
        Server's step size on the noisy average update, in (0, inf).
    l2 : float, default 0.0
        L2 penalty λ of the local objective, in [0, inf).
    accountant : {"pld", "rdp"}, default "pld"
    fit_intercept : bool, default True
    draws : int, optional
        Noise draws trained at once (each with its own client samples and
        noise), in [1, inf); None for one run.
    X_test, y_test : array_like, optional
        Evaluation set for the history.
    history_every : int or None, default None
        Record every this many rounds (0: never; None: about 50 points);
        ``loss`` and ``train_accuracy`` are on all clients' rows pooled,
        ``clipped_fraction`` is the share of sampled clients whose update was clipped.

    Returns
    -------
    TrainingResult
        ``epsilon`` is client-level, at ``delta``.
    """
    federation = Federation(clients, fit_intercept=fit_intercept)
    rounds = check_steps(rounds, "rounds")
    q = check_sampling_rate(client_rate, "client_rate")
    local_steps, local_lr, l2 = _check_local(local_steps, local_lr, l2)
    clip = check_positive(clip, "clip")
    sigma = check_noise_multiplier(noise_multiplier)
    delta = check_delta(delta)
    server_lr = check_positive(server_lr, "server_lr")
    accountant = check_choice(accountant, "accountant", DPSGD_METHODS)
    k, single = resolve_draws(draws)
    rng = as_generator(rng)
    design, m = federation.design, federation.m
    check_training_work(rounds * local_steps, k, q * design.n, design.p)
    recorder = Recorder(design, rounds, history_every, l2, X_test, y_test)
    W = np.zeros((k, design.p))
    for t in range(rounds + 1):
        if t == rounds:
            if recorder.wants(t):
                recorder.record(t, W)
            break
        draw, client = np.nonzero(rng.random((k, m)) < q)
        sums = np.zeros((k, design.p))
        clipped = np.full(k, math.nan)
        if client.size:
            updates = federation.local_updates(W[draw], client, local_steps, local_lr, l2)
            norms = np.linalg.norm(updates, axis=1)
            np.add.at(sums, draw, clip_by_norm(updates, clip))
            sampled = np.bincount(draw, minlength=k)
            clipped = np.where(
                sampled > 0,
                np.bincount(draw, weights=(norms > clip).astype(float), minlength=k) / np.maximum(sampled, 1),
                math.nan,
            )
        if recorder.wants(t):
            recorder.record(t, W, clipped=clipped)
        sums += (sigma * clip) * rng.standard_normal((k, design.p))
        W += (server_lr / (q * m)) * sums
    privacy = dpsgd_privacy(sigma, q, rounds, delta, accountant)
    details = {
        "noise_multiplier": sigma,
        "noise_std": sigma * clip,
        "sensitivity": clip,
        "neighbours": "add/remove one client",
        "client_rate": q,
        "clients": m,
        "expected_clients_per_round": q * m,
        "rounds": rounds,
        "local_steps": local_steps,
        "local_lr": local_lr,
        "server_lr": server_lr,
        "l2": l2,
        "accountant": accountant,
    }
    return accounted_result(
        "DP-FedAvg", W, single, design, recorder, privacy, accountant, delta, details, clip, "client update"
    )


# --------------------------------------------------------------------------- the tutorial version


def _size_weighted_average(models: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``Σ n_k θ_k / Σ n_k`` over the client axis (second to last)."""
    return np.tensordot(sizes / sizes.sum(), models, axes=([0], [-2]))


def naive_fedavg(
    clients,
    *,
    rounds: int,
    local_steps: int,
    epsilon: float,
    assumed_sensitivity: float,
    rng,
    local_lr: float = 1.0,
    l2: float = 0.0,
    fit_intercept: bool = True,
    draws: int | None = None,
    X_test=None,
    y_test=None,
    history_every: int | None = None,
) -> TrainingResult:
    """The tutorial recipe: Laplace noise on the size-weighted average of unclipped client models. **Not private.**

    Every round, every client trains locally from the global model; the
    server sets the global model to ``Σ n_k θ_k / Σ n_k + Lap(Δ_assumed/ε)``
    per coordinate. The recipe claims ε per round (``rounds · ε`` in total by
    sequential composition), but the average's sensitivity is not bounded by
    anything (module notes; :func:`client_influence`), so the claim does not
    hold: the result reports ``epsilon = inf`` and keeps the claim in
    ``details["claimed_epsilon"]``.

    Parameters
    ----------
    clients, rounds, local_steps, rng, local_lr, l2, fit_intercept, draws, X_test, y_test, history_every
        As in :func:`dp_fedavg` (every client takes part in every round).
    epsilon : float
        The ε claimed per round, in (0, inf).
    assumed_sensitivity : float
        The L1 sensitivity the recipe assumes for the average, in (0, inf).

    Returns
    -------
    TrainingResult
    """
    federation = Federation(clients, fit_intercept=fit_intercept)
    rounds = check_steps(rounds, "rounds")
    local_steps, local_lr, l2 = _check_local(local_steps, local_lr, l2)
    epsilon = check_epsilon(epsilon)
    noise = Laplace.from_epsilon(epsilon, check_positive(assumed_sensitivity, "assumed_sensitivity"))
    k, single = resolve_draws(draws)
    rng = as_generator(rng)
    design, m = federation.design, federation.m
    check_training_work(rounds * local_steps, k, design.n, design.p)
    recorder = Recorder(design, rounds, history_every, l2, X_test, y_test)
    draw = np.repeat(np.arange(k), m)
    client = np.tile(np.arange(m), k)
    W = np.zeros((k, design.p))
    for t in range(rounds + 1):
        if recorder.wants(t):
            recorder.record(t, W)
        if t == rounds:
            break
        models = W[draw] + federation.local_updates(W[draw], client, local_steps, local_lr, l2)
        W = _size_weighted_average(models.reshape(k, m, design.p), federation.sizes.astype(float))
        W = W + noise.sample(rng, size=W.shape)
    details = {
        "claimed_epsilon": rounds * epsilon,
        "claimed_epsilon_per_round": epsilon,
        "assumed_sensitivity": noise.sensitivity,
        "laplace_scale": noise.scale,
        "clients": m,
        "rounds": rounds,
        "local_steps": local_steps,
        "local_lr": local_lr,
        "l2": l2,
        "note": "the assumed sensitivity bounds nothing: client models are not clipped, so no epsilon holds",
    }
    return TrainingResult(
        method="naive FedAvg (tutorial)",
        weights=W[0] if single else W,
        fit_intercept=design.fit_intercept,
        history=recorder.frame(),
        epsilon=math.inf,
        delta=0.0,
        privacy=pd.DataFrame({"method": ["claimed (sequential)"], "epsilon": [rounds * epsilon]}),
        details=details,
    )


def _start_weights(federation: Federation, weights) -> np.ndarray:
    if weights is None:
        return np.zeros(federation.design.p)
    W = np.asarray(weights, dtype=np.float64)
    if W.shape != (federation.design.p,) or not np.all(np.isfinite(W)):
        raise ValueError(f"weights must be {federation.design.p} finite numbers, got shape {W.shape}")
    return W


def client_influence(
    clients,
    *,
    local_steps: int,
    assumed_sensitivity: float,
    epsilon: float,
    clip: float | None = None,
    local_lr: float = 1.0,
    l2: float = 0.0,
    fit_intercept: bool = True,
    weights=None,
) -> pd.DataFrame:
    """How far removing each client moves one round of the tutorial's size-weighted average, against the assumption.

    From the global weights ``w`` (default zeros), every client trains
    locally to ``θ_k``; the average is ``A = Σ n_k θ_k / N``. Removing client
    j gives ``A_{−j} = (N A − n_j θ_j) / (N − n_j)``, and its true influence is
    ``‖A − A_{−j}‖``. Laplace noise of scale ``Δ_assumed/ε`` is then
    ``ε_j``-DP for that pair with ``ε_j = ε · ‖A − A_{−j}‖₁ / Δ_assumed``
    (module notes): above ε wherever the assumption fails. With ``clip`` = S,
    the column ``clipped_update_norm`` is ``‖clip_S(θ_j − w)‖₂``, client j's
    whole influence on the DP-FedAvg sum: never above S.

    Parameters
    ----------
    clients : list of (X_k, y_k)
        At least two clients.
    local_steps, local_lr, l2, fit_intercept
        Local training, as in :func:`dp_fedavg`.
    assumed_sensitivity : float
        The recipe's L1 sensitivity, in (0, inf).
    epsilon : float
        The recipe's claimed ε per round, in (0, inf).
    clip : float, optional
        S, in (0, inf), for the comparison with DP-FedAvg.
    weights : array_like, optional
        Global weights at the start of the round (p numbers); default zeros.

    Returns
    -------
    pandas.DataFrame
        One row per client: ``client``, ``size``, ``influence_l1``,
        ``influence_l2``, ``assumed_sensitivity``, ``ratio`` (L1 influence
        over the assumption), ``epsilon_claimed``, ``epsilon_actual``,
        ``update_norm`` and, with ``clip``, ``clipped_update_norm``.
    """
    federation = Federation(clients, fit_intercept=fit_intercept)
    if federation.m < 2:
        raise ValueError(f"clients must hold at least 2 clients to remove one, got {federation.m}")
    local_steps, local_lr, l2 = _check_local(local_steps, local_lr, l2)
    assumed = check_positive(assumed_sensitivity, "assumed_sensitivity")
    epsilon = check_epsilon(epsilon)
    clip = None if clip is None else check_positive(clip, "clip")
    w = _start_weights(federation, weights)
    m = federation.m
    updates = federation.local_updates(np.tile(w, (m, 1)), np.arange(m), local_steps, local_lr, l2)
    models = w + updates
    sizes = federation.sizes.astype(float)
    total = sizes.sum()
    average = _size_weighted_average(models, sizes)
    without = (total * average - sizes[:, None] * models) / (total - sizes)[:, None]
    shift = average - without
    influence_l1 = np.abs(shift).sum(axis=1)
    table = pd.DataFrame(
        {
            "client": np.arange(m),
            "size": federation.sizes,
            "influence_l1": influence_l1,
            "influence_l2": np.linalg.norm(shift, axis=1),
            "assumed_sensitivity": assumed,
            "ratio": influence_l1 / assumed,
            "epsilon_claimed": epsilon,
            "epsilon_actual": epsilon * influence_l1 / assumed,
            "update_norm": np.linalg.norm(updates, axis=1),
        }
    )
    if clip is not None:
        table["clipped_update_norm"] = np.linalg.norm(clip_by_norm(updates, clip), axis=1)
    return table


def adversarial_client_influence(
    clients,
    *,
    scales,
    local_steps: int,
    assumed_sensitivity: float,
    epsilon: float,
    clip: float,
    adversary_size: int | None = None,
    local_lr: float = 1.0,
    l2: float = 0.0,
    fit_intercept: bool = True,
    X_test=None,
    y_test=None,
) -> pd.DataFrame:
    """One more client, who sends a scaled update: its influence on the naive average against DP-FedAvg's clipped sum.

    The honest clients train locally from zero weights, as in
    :func:`client_influence`. The adversary (or a badly outlying client)
    claims ``adversary_size`` rows and sends the model ``s · u``, with ``u``
    the unit vector opposite to the honest average update (model
    replacement, Bagdasaryan et al. 2020). For each scale s:

    * naive recipe: its influence ``‖A_with − A_without‖₁`` on the
      size-weighted average grows linearly in s, so the ε the Laplace noise
      actually gives, ``ε · influence / Δ_assumed``, is unbounded;
    * DP-FedAvg: its clipped update has norm ``min(s, S)``: its influence on
      the noisy sum never exceeds S, whatever it sends.

    The accuracy columns evaluate the noise-free averaged model of each
    recipe after this one round (on the test set if given, else on the
    honest clients' rows): what one client can do to the model.

    Parameters
    ----------
    clients : list of (X_k, y_k)
        The honest clients.
    scales : sequence of float
        L2 norms s of the adversary's update, each in [0, inf).
    local_steps, local_lr, l2, fit_intercept
        Honest local training, as in :func:`dp_fedavg`.
    assumed_sensitivity : float
        The recipe's L1 sensitivity, in (0, inf).
    epsilon : float
        The recipe's claimed ε per round, in (0, inf).
    clip : float
        DP-FedAvg's S, in (0, inf).
    adversary_size : int, optional
        Rows the adversary claims, in [1, inf); default the median honest size.
    X_test, y_test : array_like, optional

    Returns
    -------
    pandas.DataFrame
        One row per scale: ``scale``, ``naive_influence_l1``,
        ``assumed_sensitivity``, ``epsilon_claimed``, ``epsilon_actual``,
        ``clipped_influence_l2``, ``clip``, ``naive_accuracy``,
        ``clipped_accuracy``.
    """
    federation = Federation(clients, fit_intercept=fit_intercept)
    local_steps, local_lr, l2 = _check_local(local_steps, local_lr, l2)
    assumed = check_positive(assumed_sensitivity, "assumed_sensitivity")
    epsilon = check_epsilon(epsilon)
    clip = check_positive(clip, "clip")
    scales = np.array(
        [check_nonnegative(s, "scales") for s in np.atleast_1d(np.asarray(scales, dtype=object)).tolist()]
    )
    if scales.size == 0:
        raise ValueError("scales must hold at least one value, got none")
    sizes = federation.sizes.astype(float)
    n_adv = (
        float(np.median(sizes))
        if adversary_size is None
        else float(check_int(adversary_size, "adversary_size", minimum=1))
    )
    m, p = federation.m, federation.design.p
    updates = federation.local_updates(np.zeros((m, p)), np.arange(m), local_steps, local_lr, l2)
    honest_average = _size_weighted_average(updates, sizes)  # models = updates, from zero weights
    direction = -honest_average
    norm = np.linalg.norm(direction)
    direction = direction / norm if norm > 0 else np.eye(p)[0]
    adversary = scales[:, None] * direction  # (s, p)
    total = sizes.sum()
    naive_with = (total * honest_average + n_adv * adversary) / (total + n_adv)
    naive_influence = np.abs(naive_with - honest_average).sum(axis=1)
    clipped_adv = clip_by_norm(adversary, clip)
    honest_clipped_sum = clip_by_norm(updates, clip).sum(axis=0)
    clipped_average = (honest_clipped_sum + clipped_adv) / (m + 1)  # every client sampled, no noise
    evaluation = evaluation_design(federation.design, X_test, y_test) or federation.design
    return pd.DataFrame(
        {
            "scale": scales,
            "naive_influence_l1": naive_influence,
            "assumed_sensitivity": assumed,
            "epsilon_claimed": epsilon,
            "epsilon_actual": epsilon * naive_influence / assumed,
            "clipped_influence_l2": np.linalg.norm(clipped_adv, axis=1),
            "clip": clip,
            "naive_accuracy": evaluation.accuracy(naive_with),
            "clipped_accuracy": evaluation.accuracy(clipped_average),
        }
    )
