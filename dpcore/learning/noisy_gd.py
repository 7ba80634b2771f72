"""Noisy gradient descent: full-batch logistic regression with a Gaussian release per iteration.

The algorithm (Near & Abuah, *Programming Differential Privacy*, ch. 12; the
full-batch case of the noisy gradient methods of Bassily, Smith, Thakurta
2014): for t = 1..T,

``w ← w − η [ (Σ_i clip_C(∇ℓ(w; x_i, y_i)) + N(0, σ² I)) / n̂ + λ w_coef ]``.

What is released, and the neighbouring relation
-----------------------------------------------
Each iteration releases the noisy sum of clipped gradients, a Gaussian
mechanism on a vector of L2 sensitivity Δ (:func:`~dpcore.learning.logistic.clipped_sum_sensitivity`).
Turning the sum into an average needs n, and whether n is public depends on
the neighbouring relation:

* ``neighbours="add/remove"`` (default): neighbouring data sets differ by one
  example, so n itself is private. Δ = C, and n̂ is a **noisy count**
  released once, a Gaussian of sensitivity 1 with noise ``σ/C``: the same
  ``μ = Δ/σ`` as one gradient release, so the run is exactly T + 1
  identical Gaussian releases and every accountant of
  :mod:`dpcore.accounting` applies to it unchanged. The count takes
  ``1/(T+1)`` of the budget (in μ² terms); at T = 20 and n = 26,000 its noise
  is about 0.1 % of n.
* ``neighbours="replace-one"``: neighbouring data sets have the same size n,
  which is then public; one example's gradient is replaced by another, so
  Δ = 2C, and there are T releases.

Why add/remove is the default: it is the relation of DP-SGD's accounting
(Abadi et al. 2016; the subsampled Gaussian of :mod:`dpcore.accounting`), so
the ε of noisy gradient descent, DP-SGD and DP-FedAvg compare on one scale;
the noisy count costs ~1/(T+1) of the budget, where replace-one would double
the sensitivity of every release (4× the μ² cost per iteration for the same
noise). Replace-one ε is not the same promise: add/remove (ε, δ)-DP implies
replace-one (2ε, (1 + e^ε) δ)-DP (a replacement is a removal and an addition:
group privacy for two), and replace-one DP says nothing about n.

Accounting and calibration
--------------------------
For a total (ε, δ), σ is calibrated exactly for the chosen accounting by
:func:`dpcore.accounting.plan_noise` (k = T + 1 or T releases of sensitivity
Δ): ``"exact"`` (μ-GDP, Dong, Roth, Su 2019; the tightest possible),
``"pld"``, ``"rdp"``, ``"zcdp"``, ``"advanced"`` or ``"basic"`` (sequential).
:meth:`NoisyGDNoise.privacy` reports the ε of the same σ under every
accounting (:func:`dpcore.accounting.epsilon_curve`): the looser the
accounting, the more noise it would have asked for.

The trade-off
-------------
At a fixed total ε, more iterations split the budget thinner: σ grows like
sqrt(T) (μ² = (T+1) Δ²/σ² is fixed), while each step's progress does not
shrink. Accuracy against T therefore has an interior optimum; :func:`iterations_sweep`
finds it, and :func:`epsilon_frontier` draws accuracy against ε.

References
----------
- Near & Abuah (2021), *Programming Differential Privacy*, chapter 12 "Machine Learning".
  https://programming-dp.com/ch12.html
- Bassily, Smith, Thakurta (2014), "Private Empirical Risk Minimization:
  Efficient Algorithms and Tight Error Bounds", FOCS. https://arxiv.org/abs/1405.7085
- Dong, Roth, Su (2019), "Gaussian Differential Privacy", Corollary 3.3. https://arxiv.org/abs/1905.02383
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from dpcore.accounting import METHODS, epsilon_curve, methods_for, plan_noise
from dpcore.gaussian import Gaussian
from dpcore.learning._arrays import check_training_set
from dpcore.learning._training import (
    Recorder,
    check_steps,
    check_training_work,
    descend,
    evaluation_design,
    resolve_draws,
)
from dpcore.learning.logistic import NEIGHBOURS, LogisticDesign, clipped_sum_sensitivity
from dpcore.learning.result import TrainingResult
from dpcore.limits import MAX_CURVE_POINTS
from dpcore.validation import (
    as_generator,
    check_choice,
    check_delta,
    check_elements,
    check_epsilon,
    check_nonnegative,
    check_positive,
)

__all__ = [
    "ACCOUNTINGS",
    "NoisyGDNoise",
    "noisy_gd_noise",
    "noisy_gradient_descent",
    "nonprivate_gradient_descent",
    "IterationSweep",
    "iterations_sweep",
    "epsilon_frontier",
]

#: Accountings that calibrate σ: those of :data:`dpcore.accounting.METHODS` ("basic" is sequential composition).
ACCOUNTINGS = METHODS


@dataclass(frozen=True)
class NoisyGDNoise:
    """The noise of noisy gradient descent for a total (ε, δ): what is released, and how loud.

    Attributes
    ----------
    sigma : float
        Standard deviation of the Gaussian noise on each coordinate of each
        gradient sum.
    count_sigma : float or None
        Standard deviation of the noise on the count (add/remove), ``σ/C``;
        None under replace-one (n public).
    sensitivity : float
        L2 sensitivity Δ of each gradient sum: C (add/remove) or 2C (replace-one).
    releases : int
        Gaussian releases accounted: T + 1 (add/remove, the count included) or T.
    iterations, clip, neighbours, accounting, epsilon, delta
        The request.
    """

    sigma: float
    count_sigma: float | None
    sensitivity: float
    releases: int
    iterations: int
    clip: float
    neighbours: str
    accounting: str
    epsilon: float
    delta: float

    @property
    def mechanism(self) -> Gaussian:
        """One release: ``Gaussian(σ, Δ)`` (the count, with sensitivity 1 and noise σ/C, has the same μ = Δ/σ)."""
        return Gaussian(sigma=self.sigma, sensitivity=self.sensitivity)

    @property
    def noise_multiplier(self) -> float:
        """``σ / C``: the noise in units of the clipping norm (DP-SGD's z)."""
        return self.sigma / self.clip

    @property
    def mu(self) -> float:
        """``μ = sqrt(releases) Δ / σ``: the run is exactly μ-GDP (Dong, Roth, Su 2019, Cor. 3.3)."""
        return float(np.sqrt(self.releases) * self.sensitivity / self.sigma)

    def privacy(self, methods=None) -> pd.DataFrame:
        """ε of this noise, at the requested δ, under several accountings: columns ``method``, ``epsilon``.

        Parameters
        ----------
        methods : sequence of str, optional
            Among :data:`ACCOUNTINGS`; default basic, advanced, rdp, zcdp and
            exact, plus pld when it was the calibrating accounting.
        """
        if methods is None:
            methods = [m for m in ("basic", "advanced", "rdp", "zcdp", "exact") if m in methods_for(self.mechanism)]
            if self.accounting == "pld":
                methods.append("pld")
        table = epsilon_curve(self.mechanism, [self.releases], self.delta, methods)
        return table[["method", "epsilon"]].reset_index(drop=True)


def noisy_gd_noise(
    epsilon: float,
    delta: float,
    iterations: int,
    clip: float,
    *,
    neighbours: str = "add/remove",
    accounting: str = "exact",
) -> NoisyGDNoise:
    """Calibrate the noise of noisy gradient descent to a total (ε, δ), exactly for one accounting.

    σ is the smallest noise whose ``releases`` Gaussian releases of
    sensitivity Δ fit (ε, δ) under ``accounting``
    (:func:`dpcore.accounting.plan_noise`); module notes for the releases.

    Parameters
    ----------
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1).
    iterations : int
        Number of iterations T, in [1, inf).
    clip : float
        Clipping norm C, in (0, inf).
    neighbours : {"add/remove", "replace-one"}, default "add/remove"
    accounting : {"exact", "pld", "rdp", "zcdp", "advanced", "basic"}, default "exact"

    Examples
    --------
    >>> noise = noisy_gd_noise(1.0, 1e-5, 9, 1.0)
    >>> noise.releases, round(noise.sigma, 4), round(noise.mu, 6)
    (10, 11.7973, 0.268051)
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    iterations = check_steps(iterations, "iterations")
    clip = check_positive(clip, "clip")
    neighbours = check_choice(neighbours, "neighbours", NEIGHBOURS)
    accounting = check_choice(accounting, "accounting", ACCOUNTINGS)
    sensitivity = clipped_sum_sensitivity(clip, neighbours)
    releases = iterations + 1 if neighbours == "add/remove" else iterations
    sigma = plan_noise("gaussian", epsilon, delta, releases, method=accounting, sensitivity=sensitivity).sigma
    count_sigma = sigma / clip if neighbours == "add/remove" else None  # sensitivity 1: same μ = C/σ
    return NoisyGDNoise(
        sigma=sigma,
        count_sigma=count_sigma,
        sensitivity=sensitivity,
        releases=releases,
        iterations=iterations,
        clip=clip,
        neighbours=neighbours,
        accounting=accounting,
        epsilon=epsilon,
        delta=delta,
    )


def _divisors(noise: NoisyGDNoise, n: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """n̂ for each of k models: the noisy count (add/remove), floored at 1 (post-processing), or n."""
    if noise.count_sigma is None:
        return np.full(k, float(n))
    return np.maximum(n + noise.count_sigma * rng.standard_normal(k), 1.0)


def _check_common(learning_rate, l2) -> tuple[float, float]:
    return check_positive(learning_rate, "learning_rate"), check_nonnegative(l2, "l2")


def noisy_gradient_descent(
    X,
    y,
    *,
    epsilon: float,
    delta: float,
    iterations: int,
    clip: float,
    rng,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    clipping: str = "gradient",
    neighbours: str = "add/remove",
    accounting: str = "exact",
    fit_intercept: bool = True,
    draws: int | None = None,
    X_test=None,
    y_test=None,
    history_every: int | None = 1,
) -> TrainingResult:
    """Train a logistic regression by noisy (full-batch) gradient descent, (ε, δ)-DP in total.

    Module notes: the releases, the neighbouring relation, the calibration.
    Several noise draws train at once (``draws``): the weights then have
    shape (draws, p) and every draw is a separate (ε, δ)-DP run (releasing
    them all would compose).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features, finite; standardise them first (an intercept is added here).
    y : array_like of {0, 1}, shape (n,)
        Labels; both classes must be present.
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1).
    iterations : int
        T, in [1, inf).
    clip : float
        Clipping norm C, in (0, inf).
    rng : numpy.random.Generator or int
    learning_rate : float, default 1.0
        Step size η, in (0, inf).
    l2 : float, default 0.0
        L2 penalty λ, in [0, inf) (not on the intercept).
    clipping : {"gradient", "example"}, default "gradient"
        Clip each per-example gradient, or each example's row (module notes
        of :mod:`dpcore.learning.logistic`).
    neighbours : {"add/remove", "replace-one"}, default "add/remove"
    accounting : str, default "exact"
        One of :data:`ACCOUNTINGS`; σ is calibrated to (ε, δ) under it.
    fit_intercept : bool, default True
    draws : int, optional
        Number of independent noise draws trained at once, in [1, inf);
        None for one run (weights of shape (p,)).
    X_test, y_test : array_like, optional
        Evaluation set for the history's ``test_accuracy``.
    history_every : int or None, default 1
        Record the history every this many iterations (0: never; None: about
        50 points).

    Returns
    -------
    TrainingResult
        ``details`` holds σ, the count's σ, Δ, the releases, μ and the noisy
        count(s) used.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(2000, 3))
    >>> y = (X @ [1.0, -1.0, 0.5] + rng.logistic(size=2000) > 0).astype(int)
    >>> result = noisy_gradient_descent(X, y, epsilon=1.0, delta=1e-5, iterations=10, clip=1.0, rng=1)
    >>> result.weights.shape, round(result.epsilon, 6), result.predict(X[:3]).tolist()
    ((4,), 1.0, [1, 1, 1])
    """
    X, y = check_training_set(X, y)
    noise = noisy_gd_noise(epsilon, delta, iterations, clip, neighbours=neighbours, accounting=accounting)
    learning_rate, l2 = _check_common(learning_rate, l2)
    design = LogisticDesign(X, y, fit_intercept=fit_intercept, clip=noise.clip, clipping=clipping)
    k, single = resolve_draws(draws)
    check_training_work(noise.iterations, k, design.n, design.p)
    rng = as_generator(rng)
    recorder = Recorder(design, noise.iterations, history_every, l2, X_test, y_test)
    divisor = _divisors(noise, design.n, k, rng)
    W = descend(
        design,
        np.zeros((k, design.p)),
        steps=noise.iterations,
        learning_rate=learning_rate,
        l2=l2,
        divisor=divisor,
        noise_std=np.full(k, noise.sigma),
        rng=rng,
        recorder=recorder,
    )
    privacy = noise.privacy()
    eps = float(privacy.loc[privacy["method"] == noise.accounting, "epsilon"].iloc[0])
    details = {
        "sigma": noise.sigma,
        "noise_multiplier": noise.noise_multiplier,
        "count_sigma": noise.count_sigma,
        "sensitivity": noise.sensitivity,
        "releases": noise.releases,
        "mu": noise.mu,
        "iterations": noise.iterations,
        "neighbours": noise.neighbours,
        "accounting": noise.accounting,
        "learning_rate": learning_rate,
        "l2": l2,
        "noisy_count": divisor[0] if single else divisor,
    }
    return TrainingResult(
        method="noisy gradient descent",
        weights=W[0] if single else W,
        fit_intercept=design.fit_intercept,
        history=recorder.frame(),
        epsilon=eps,
        delta=noise.delta,
        privacy=privacy,
        details=details,
        clip=noise.clip,
        clipping=design.clipping,
    )


def nonprivate_gradient_descent(
    X,
    y,
    *,
    iterations: int,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    fit_intercept: bool = True,
    X_test=None,
    y_test=None,
    history_every: int | None = 1,
) -> TrainingResult:
    """The non-private baseline: the same descent with no clipping, no noise and the true n.

    ``w ← w − η [ (1/n) Σ ∇ℓ(w; x_i, y_i) + λ w_coef ]``: plain gradient
    descent on the objective of :func:`~dpcore.learning.logistic.logistic_loss`;
    with ``η ≤ 1/L`` (L the smoothness, at most ``λ_max(X̃ᵀX̃)/(4n) + λ``) it
    converges to the objective's minimum (Nesterov 2004, *Introductory Lectures
    on Convex Optimization*, Section 2.1).

    Parameters
    ----------
    X, y, iterations, learning_rate, l2, fit_intercept, X_test, y_test, history_every
        As in :func:`noisy_gradient_descent`.

    Returns
    -------
    TrainingResult
        ``epsilon = inf``, ``delta = 0``: no guarantee.
    """
    X, y = check_training_set(X, y)
    iterations = check_steps(iterations, "iterations")
    learning_rate, l2 = _check_common(learning_rate, l2)
    design = LogisticDesign(X, y, fit_intercept=fit_intercept)
    check_training_work(iterations, 1, design.n, design.p)
    recorder = Recorder(design, iterations, history_every, l2, X_test, y_test)
    W = descend(
        design,
        np.zeros((1, design.p)),
        steps=iterations,
        learning_rate=learning_rate,
        l2=l2,
        divisor=np.array([float(design.n)]),
        noise_std=None,
        rng=None,
        recorder=recorder,
    )
    return TrainingResult(
        method="non-private gradient descent",
        weights=W[0],
        fit_intercept=design.fit_intercept,
        history=recorder.frame(),
        epsilon=float("inf"),
        delta=0.0,
        privacy=pd.DataFrame({"method": ["none"], "epsilon": [float("inf")]}),
        details={"iterations": iterations, "learning_rate": learning_rate, "l2": l2},
    )


@dataclass(frozen=True, eq=False)
class IterationSweep:
    """Accuracy of noisy gradient descent against the number of iterations, at a fixed total (ε, δ).

    Attributes
    ----------
    table : pandas.DataFrame
        One row per iterations value and draw: ``iterations``, ``draw``,
        ``sigma``, ``accuracy`` and ``loss`` (the regularised objective on the
        training rows: a diagnostic, not a private release).
    summary : pandas.DataFrame
        One row per iterations value: ``iterations``, ``sigma``,
        ``mean_accuracy``, ``std_accuracy`` (across draws, ddof=1; NaN for one
        draw), ``min_accuracy``, ``max_accuracy``, ``mean_loss``, ``std_loss``.
    best_iterations : int
        The iterations value with the highest mean accuracy (the smallest on a tie).
    evaluated_on : str
        ``"test"`` or ``"train"``.
    """

    table: pd.DataFrame
    summary: pd.DataFrame
    best_iterations: int
    evaluated_on: str


def _check_grid(values, name: str, check) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(values, dtype=object))
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
    check_elements(arr.size, f"the number of {name}", MAX_CURVE_POINTS)
    return np.array([check(v, name) for v in arr.tolist()])


def _summarise(table: pd.DataFrame, by: str) -> pd.DataFrame:
    grouped = table.groupby(by, sort=True)
    return pd.DataFrame(
        {
            "sigma": grouped["sigma"].first(),
            "mean_accuracy": grouped["accuracy"].mean(),
            "std_accuracy": grouped["accuracy"].std(ddof=1),
            "min_accuracy": grouped["accuracy"].min(),
            "max_accuracy": grouped["accuracy"].max(),
            **(
                {"mean_loss": grouped["loss"].mean(), "std_loss": grouped["loss"].std(ddof=1)}
                if "loss" in table
                else {}
            ),
        }
    ).reset_index()


def iterations_sweep(
    X,
    y,
    *,
    epsilon: float,
    delta: float,
    iterations,
    clip: float,
    rng,
    draws: int = 5,
    X_test=None,
    y_test=None,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    clipping: str = "gradient",
    neighbours: str = "add/remove",
    accounting: str = "exact",
    fit_intercept: bool = True,
) -> IterationSweep:
    """Accuracy against the number of iterations T at a fixed total (ε, δ): the interior optimum.

    For each T, σ is recalibrated so that the whole run costs (ε, δ)
    (:func:`noisy_gd_noise`), and ``draws`` noise draws train at once. The
    accuracy is measured on the test set when given, else on the training
    set. Few iterations underfit; many drown each step in noise.

    Picking T by this sweep reads the evaluation data, and picking it among
    private runs is itself a release: the chosen run's guarantee does not
    cover the choice (Papernot & Steinke 2022, "Hyperparameter Tuning with
    Renyi Differential Privacy", ICLR). Use public or held-out data, or pay
    for the selection.

    Parameters
    ----------
    X, y, epsilon, delta, clip, rng, learning_rate, l2, clipping, neighbours, accounting, fit_intercept
        As in :func:`noisy_gradient_descent`.
    iterations : sequence of int
        The values of T, each in [1, inf).
    draws : int, default 5
        Noise draws per value of T, in [1, inf).
    X_test, y_test : array_like, optional
        Evaluation set.

    Returns
    -------
    IterationSweep
    """
    X, y = check_training_set(X, y)
    grid = np.unique(_check_grid(iterations, "iterations", check_steps))
    k, _ = resolve_draws(draws)
    learning_rate, l2 = _check_common(learning_rate, l2)
    rng = as_generator(rng)
    noises = [noisy_gd_noise(epsilon, delta, int(t), clip, neighbours=neighbours, accounting=accounting) for t in grid]
    design = LogisticDesign(X, y, fit_intercept=fit_intercept, clip=noises[0].clip, clipping=clipping)
    check_training_work(int(grid.sum()), k, design.n, design.p)
    evaluation = evaluation_design(design, X_test, y_test) or design
    # every (T, draw) pair is one model; sorted by decreasing T, the models still training are a prefix
    order = np.argsort(-grid, kind="stable")
    steps = np.repeat(grid[order], k)
    sigma = np.repeat([noises[i].sigma for i in order], k)
    divisor = np.concatenate([_divisors(noises[i], design.n, k, rng) for i in order])
    W = descend(
        design,
        np.zeros((steps.size, design.p)),
        steps=steps,
        learning_rate=learning_rate,
        l2=l2,
        divisor=divisor,
        noise_std=sigma,
        rng=rng,
    )
    table = pd.DataFrame(
        {
            "iterations": steps,
            "draw": np.tile(np.arange(k), grid.size),
            "sigma": sigma,
            "accuracy": evaluation.accuracy(W),
            "loss": design.loss(W, l2=l2),
        }
    )
    table = table.sort_values(["iterations", "draw"], ignore_index=True)
    summary = _summarise(table, "iterations")
    best = int(summary.loc[summary["mean_accuracy"].idxmax(), "iterations"])
    return IterationSweep(table, summary, best, "train" if evaluation is design else "test")


def epsilon_frontier(
    X,
    y,
    *,
    epsilons,
    delta: float,
    iterations: int,
    clip: float,
    rng,
    draws: int = 5,
    X_test=None,
    y_test=None,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    clipping: str = "gradient",
    neighbours: str = "add/remove",
    accounting: str = "exact",
    fit_intercept: bool = True,
) -> pd.DataFrame:
    """Accuracy of noisy gradient descent against the total ε, at a fixed number of iterations.

    Every (ε, draw) pair is one model, all trained in the same matrix
    products: ``len(epsilons) × draws`` models for T iterations, each with
    its own σ and noisy count.

    Parameters
    ----------
    X, y, delta, iterations, clip, rng, learning_rate, l2, clipping, neighbours, accounting, fit_intercept
        As in :func:`noisy_gradient_descent`.
    epsilons : sequence of float
        Total ε values, each in (0, inf).
    draws : int, default 5
        Noise draws per ε, in [1, inf).
    X_test, y_test : array_like, optional
        Evaluation set (default: the training set).

    Returns
    -------
    pandas.DataFrame
        One row per ε and draw: ``epsilon``, ``draw``, ``sigma``, ``accuracy``;
        ``attrs["summary"]`` has one row per ε (mean, std, min, max accuracy)
        and ``attrs["evaluated_on"]`` says ``"test"`` or ``"train"``.
    """
    X, y = check_training_set(X, y)
    eps_grid = _check_grid(epsilons, "epsilons", check_epsilon)
    k, _ = resolve_draws(draws)
    check_training_work(check_steps(iterations, "iterations"), k * eps_grid.size, np.shape(X)[0], np.shape(X)[1])
    learning_rate, l2 = _check_common(learning_rate, l2)
    rng = as_generator(rng)
    noises = [
        noisy_gd_noise(e, delta, iterations, clip, neighbours=neighbours, accounting=accounting) for e in eps_grid
    ]
    design = LogisticDesign(X, y, fit_intercept=fit_intercept, clip=noises[0].clip, clipping=clipping)
    evaluation = evaluation_design(design, X_test, y_test) or design
    sigma = np.repeat([nz.sigma for nz in noises], k)
    divisor = np.concatenate([_divisors(nz, design.n, k, rng) for nz in noises])
    W = descend(
        design,
        np.zeros((sigma.size, design.p)),
        steps=noises[0].iterations,
        learning_rate=learning_rate,
        l2=l2,
        divisor=divisor,
        noise_std=sigma,
        rng=rng,
    )
    table = pd.DataFrame(
        {
            "epsilon": np.repeat(eps_grid.astype(float), k),
            "draw": np.tile(np.arange(k), eps_grid.size),
            "sigma": sigma,
            "accuracy": evaluation.accuracy(W),
        }
    )
    table.attrs["summary"] = _summarise(table, "epsilon")
    table.attrs["evaluated_on"] = "train" if evaluation is design else "test"
    return table
