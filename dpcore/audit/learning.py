"""Audits of one DP-SGD step and one DP-FedAvg round, through dpcore.learning's own trainers.

The canary approach of Jagielski, Ullman & Oprea (2020, Section 4) and Nasr et
al. (2021, Section 4, the "gradient canary" adversary): two training sets that
differ in one canary whose clipped contribution points along a direction no
other record touches; the released model's weight along that direction is the
noisy sum's coordinate, shifted by the clipping norm when the canary is
sampled. Thresholds on that weight are the most powerful events (the
likelihood ratio of ``(1 − q)·N(0, σ²) + q·N(C, σ²)`` against ``N(0, σ²)`` is
monotone in it).

The pair. ``x`` holds a record at the origin (features 0, so its gradient and
its local update are exactly 0) where ``x'`` holds the canary (features
``(10, 0)``, label 1: at the zero start its gradient ``(σ(0) − 1)·(10, 0)`` has
norm 5, clipped to ``C``). To the noisy sum this is adding the canary, the
add/remove neighbouring relation of the accountant; keeping the number of
records (clients) equal keeps the trainers' divisor ``q·n`` (``q·m``) the same
on both sides, so that only the noisy sum differs.

References
----------
- Jagielski, Ullman & Oprea (2020), "Auditing Differentially Private Machine Learning: How Private is
  Private SGD?", NeurIPS, Section 3 and Algorithm 2. https://arxiv.org/abs/2006.07709
- Nasr, Song, Thakurta, Papernot & Carlini (2021), "Adversary Instantiation: Lower Bounds for
  Differentially Private Machine Learning", IEEE S&P, Section 4. https://arxiv.org/abs/2101.04535
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

from dpcore import accounting
from dpcore.audit.catalogue import THRESHOLD_EVENTS, AuditSpec, register
from dpcore.audit.engine import Sampler

__all__ = ["CANARY", "learning_pair", "fedavg_pair"]

#: The canary's features (its clipped gradient and update point along the first axis).
CANARY = (10.0, 0.0)


def learning_pair() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """``(X, y)`` of x (two records at the origin, labels 0 and 1) and of x′ (the canary in place of the second)."""
    X0 = np.array([[0.0, 0.0], [0.0, 0.0]])
    X1 = np.array([[0.0, 0.0], list(CANARY)])
    y = np.array([0.0, 1.0])
    return (X0, y), (X1, y)


def _noise_multiplier(epsilon: float, p: dict, q: float) -> float:
    return accounting.dpsgd_noise_multiplier(epsilon, p["delta"], q, 1)


def _dp_sgd_build(epsilon: float, p: dict) -> Sampler:
    from dpcore.learning import dp_sgd

    sigma = _noise_multiplier(epsilon, p, p["sampling_rate"])
    (X0, y0), (X1, y1) = learning_pair()

    def draw(X, y):
        def run(rng, m):
            r = dp_sgd(
                X,
                y,
                noise_multiplier=sigma,
                sampling_rate=p["sampling_rate"],
                steps=1,
                clip=p["clip"],
                rng=rng,
                delta=p["delta"],
                fit_intercept=False,
                draws=m,
                history_every=0,
            )
            return np.asarray(r.weights)[:, 0]

        return run

    return Sampler(draw(X0, y0), draw(X1, y1), "real", p["delta"], "weight on the canary's feature", width=4)


def fedavg_pair() -> tuple[list, list]:
    """Clients of x (one ordinary client, one whose update is exactly 0) and of x′ (the canary client in its place).

    The zero-update client holds ``(0, 1)`` with labels 0 and 1: at the zero
    start their gradients ``±(0, ½)`` cancel, so its local step moves nothing
    (a client with all-zero rows would do the same, but dp_fedavg cannot take
    one: see the report of this module's author).
    """
    ordinary = (np.array([[0.0, 1.0]]), np.array([0.0]))
    zero = (np.array([[0.0, 1.0], [0.0, 1.0]]), np.array([0.0, 1.0]))
    canary = (np.array([list(CANARY)]), np.array([1.0]))
    return [ordinary, zero], [ordinary, canary]


def _dp_fedavg_build(epsilon: float, p: dict) -> Sampler:
    from dpcore.learning import dp_fedavg

    sigma = _noise_multiplier(epsilon, p, p["client_rate"])
    clients0, clients1 = fedavg_pair()

    def draw(clients):
        def run(rng, m):
            r = dp_fedavg(
                clients,
                rounds=1,
                client_rate=p["client_rate"],
                local_steps=1,
                clip=p["clip"],
                noise_multiplier=sigma,
                rng=rng,
                delta=p["delta"],
                fit_intercept=False,
                draws=m,
                history_every=0,
            )
            return np.asarray(r.weights)[:, 0]

        return run

    return Sampler(draw(clients0), draw(clients1), "real", p["delta"], "weight on the canary's feature", width=8)


# The entries need dpcore.accounting.dpsgd_noise_multiplier (the subsampled-Gaussian accountant).
if hasattr(accounting, "dpsgd_noise_multiplier"):
    register(
        AuditSpec(
            "dp_sgd_step",
            "One DP-SGD step (dpcore.learning.dp_sgd, steps=1)",
            "(ε, δ)-DP",
            "x: two records at the origin (labels 0 and 1, gradients 0); x′: the canary (features (10, 0), label 1) "
            "in place of the second (to the noisy sum, adding the canary); clip C = {clip}, "
            "sampling rate q = {sampling_rate}",
            THRESHOLD_EVENTS + " (on the model's weight along the canary)",
            MappingProxyType({"sampling_rate": 0.5, "clip": 1.0, "delta": 1e-5}),
            _dp_sgd_build,
        )
    )
    register(
        AuditSpec(
            "dp_fedavg_round",
            "One DP-FedAvg round (dpcore.learning.dp_fedavg, rounds=1), client-level",
            "(ε, δ)-DP",
            "x: an ordinary client and a client whose update is exactly 0; x′: the canary client (features "
            "(10, 0), label 1) in place of the second; update clip S = {clip}, client rate q = {client_rate}",
            THRESHOLD_EVENTS + " (on the model's weight along the canary)",
            MappingProxyType({"client_rate": 0.5, "clip": 1.0, "delta": 1e-5}),
            _dp_fedavg_build,
        )
    )
