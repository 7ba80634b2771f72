"""Private training of a logistic regression: noisy gradient descent, DP-SGD, DP federated averaging.

Modules, each findable by name:

* :mod:`~dpcore.learning.logistic`: the loss, per-example gradients, the two ways to bound them
  (gradient clipping, example clipping) and the sensitivity of a clipped sum.
* :mod:`~dpcore.learning.noisy_gd`: full-batch noisy gradient descent calibrated to a total (ε, δ) under
  any accounting of :mod:`dpcore.accounting`, the sweep over iterations and the ε frontier.
* :mod:`~dpcore.learning.dp_sgd`: DP-SGD with Poisson sampling (Abadi et al. 2016).
* :mod:`~dpcore.learning.user_level`: user-level DP-SGD, a person with all of their rows as the unit (McMahan et
  al. 2018): Poisson-sampled persons, each person's mean row gradient clipped.
* :mod:`~dpcore.learning.fedavg`: DP-FedAvg with client-level privacy (McMahan et al. 2018), the clients
  splitters, and the tutorial recipe that is not private with the demonstration of why.
* :mod:`~dpcore.learning.result`: :class:`TrainingResult` and the majority baseline.

Conventions: features are a finite float matrix (standardise them first), labels are 0/1, an intercept is
added here (``fit_intercept``). Every trainer can train several noise draws at once (``draws``): the
weights then have shape (draws, p), computed in the same matrix products, with no loop over draws.
"""

from dpcore.learning.dp_sgd import dp_sgd, poisson_batches
from dpcore.learning.fedavg import (
    Federation,
    adversarial_client_influence,
    client_influence,
    dp_fedavg,
    naive_fedavg,
    split_at_random,
    split_by_group,
)
from dpcore.learning.logistic import (
    CLIPPING_MODES,
    NEIGHBOURS,
    LogisticDesign,
    add_intercept,
    clip_by_norm,
    clipped_sum_sensitivity,
    logistic_gradient,
    logistic_loss,
    per_example_gradients,
    sigmoid,
)
from dpcore.learning.noisy_gd import (
    ACCOUNTINGS,
    IterationSweep,
    NoisyGDNoise,
    epsilon_frontier,
    iterations_sweep,
    noisy_gd_noise,
    noisy_gradient_descent,
    nonprivate_gradient_descent,
)
from dpcore.learning.result import Baseline, TrainingResult, majority_baseline
from dpcore.learning.user_level import UserLevelSGD, person_gradients, person_rows, user_level_dp_sgd

__all__ = [
    # logistic regression and clipping
    "CLIPPING_MODES",
    "NEIGHBOURS",
    "LogisticDesign",
    "sigmoid",
    "add_intercept",
    "clip_by_norm",
    "clipped_sum_sensitivity",
    "logistic_loss",
    "logistic_gradient",
    "per_example_gradients",
    # noisy gradient descent
    "ACCOUNTINGS",
    "NoisyGDNoise",
    "noisy_gd_noise",
    "noisy_gradient_descent",
    "nonprivate_gradient_descent",
    "IterationSweep",
    "iterations_sweep",
    "epsilon_frontier",
    # DP-SGD
    "poisson_batches",
    "dp_sgd",
    # user-level DP-SGD
    "UserLevelSGD",
    "person_rows",
    "person_gradients",
    "user_level_dp_sgd",
    # federated averaging
    "split_by_group",
    "split_at_random",
    "Federation",
    "dp_fedavg",
    "naive_fedavg",
    "client_influence",
    "adversarial_client_influence",
    # results and baselines
    "TrainingResult",
    "Baseline",
    "majority_baseline",
]
