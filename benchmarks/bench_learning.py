"""Benchmarks for dpcore.learning on Adult: is private training accurate, and fast enough for the Learning page?

Run as ``python -m benchmarks.bench_learning``; prints markdown tables and
writes them to ``benchmarks/results/learning.md``. Takes a few minutes.

Data: ``/work/shared/data/adult.csv`` (the UCI Adult extract: values with
leading spaces, ``?`` for missing, the ``capital-gain`` and ``capital-loss``
headers swapped), read with the repository's CSV loader and prepared by
``explorer/features.py`` (numeric columns standardized, categoricals one-hot,
target income > 50K, seeded 80/20 split). Without that file the synthetic
census demo ``data/census.csv`` is used instead, and the tables say so.

Accuracy targets (from the issue): noisy gradient descent at ε = 1,
δ = 1e-5 and DP-SGD (σ = 1.1, batch 256, 300 steps) each beat the majority
baseline by at least 4 points of test accuracy; accuracy falls as ε falls.
Speed targets: 300 DP-SGD steps in under 1 s; the Learning page's default
views each well under the 500 ms median rerun budget. No peer library for
private training (Opacus, TF Privacy, diffprivlib) is installed here, so the
baselines timed in the same run are the straightforward implementations:
a Python loop over the examples of each batch (DP-SGD), one call per noise
draw (noisy gradient descent), one run per iterations value or ε (sweep,
frontier).
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from benchmarks import readme_figures
from benchmarks.timing import median_of
from dpcore.accounting import OrderGridEdgeWarning, dpsgd_epsilon
from dpcore.learning import (
    adversarial_client_influence,
    client_influence,
    dp_fedavg,
    dp_sgd,
    epsilon_frontier,
    iterations_sweep,
    majority_baseline,
    noisy_gradient_descent,
    nonprivate_gradient_descent,
    split_at_random,
    split_by_group,
)
from explorer.dataset import load_csv
from explorer.features import prepare_features

RESULTS = Path(__file__).resolve().parent / "results" / "learning.md"
#: The UCI Adult extract beside the repository (../shared/data), or where DPX_ADULT points; never in the repository.
ADULT = Path(os.environ.get("DPX_ADULT", Path(__file__).resolve().parents[2] / "shared" / "data" / "adult.csv"))
CENSUS = Path(__file__).resolve().parents[1] / "data" / "census.csv"

# Settings the tables use (and the defaults suggested for the Learning page)
NGD = dict(clip=2.0, learning_rate=2.0)  # noisy gradient descent: gradient clipping at C = 2, step 2
NGD_ITERATIONS = 50
SGD = dict(noise_multiplier=1.1, steps=300, clip=1.0, learning_rate=2.0)  # Abadi et al.'s sigma, batch 256
DRAWS = 10  # noise draws for the accuracy tables
PAGE_DRAWS = 3  # noise draws for the page's default views


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def spread(acc: np.ndarray) -> str:
    return f"{pct(acc.mean())} ± {100 * acc.std(ddof=1):.1f} (min {pct(acc.min())})"


def load():
    """The prepared features, the frame's name and a note on where they come from."""
    if ADULT.exists():
        dataset = load_csv(ADULT.read_bytes(), ADULT.name)
        frame = dataset.frame.rename(columns={"capital-gain": "capital-loss", "capital-loss": "capital-gain"})
        source = "Adult (`/work/shared/data/adult.csv`, capital-gain/capital-loss headers swapped back)"
    else:
        frame = load_csv(CENSUS.read_bytes(), CENSUS.name).frame
        source = "the synthetic census demo (`data/census.csv`): Adult was not found"
    start = time.perf_counter()
    features = prepare_features(frame, "income", rng=0)
    return frame, features, source, time.perf_counter() - start


def per_example_dp_sgd(X, y, q, sigma, clip, steps, lr, rng):
    """Baseline: DP-SGD as a loop over the examples of each Poisson batch (plain numpy, one draw)."""
    n, d = X.shape
    rows = np.hstack([X, np.ones((n, 1))])
    w = np.zeros(d + 1)
    for _ in range(steps):
        batch = np.flatnonzero(rng.random(n) < q)
        total = np.zeros(d + 1)
        for i in batch:
            g = (1.0 / (1.0 + math.exp(-rows[i] @ w)) - y[i]) * rows[i]
            total += g * min(1.0, clip / max(np.linalg.norm(g), 1e-300))
        w -= lr * (total + sigma * clip * rng.standard_normal(d + 1)) / (q * n)
    return w


def main() -> None:
    warnings.simplefilter("ignore", OrderGridEdgeWarning)
    frame, f, source, t_features = load()
    X, y, Xt, yt = f.X_train, f.y_train, f.X_test, f.y_test
    n = len(y)
    q = 256 / n
    base = majority_baseline(y, yt).accuracy
    lines = [
        "# dpcore.learning benchmarks",
        "",
        f"Python {sys.version.split()[0]}, numpy {np.__version__}. Data: {source}; {f.description}",
        "",
        "## Accuracy on the test rows",
        "",
        f"{DRAWS} noise draws trained at once per row (mean ± standard deviation over the draws, and the worst draw).",
        "",
        "| model | privacy | test accuracy | vs majority |",
        "| --- | --- | --- | --- |",
        f"| majority class | none | {pct(base)} | |",
    ]
    checks = {}

    r = nonprivate_gradient_descent(X, y, iterations=300, learning_rate=2.0, history_every=0)
    lines.append(f"| gradient descent, 300 iterations, no clipping or noise | none | {pct(r.accuracy(Xt, yt))} | "
                 f"+{100 * (r.accuracy(Xt, yt) - base):.1f} |")  # fmt: skip

    for clipping, clip in (("gradient", 2.0), ("example", 4.0)):
        r = noisy_gradient_descent(
            X, y, epsilon=1.0, delta=1e-5, iterations=NGD_ITERATIONS, clip=clip, learning_rate=NGD["learning_rate"],
            clipping=clipping, rng=1, draws=DRAWS, history_every=0,
        )  # fmt: skip
        acc = r.accuracy(Xt, yt)
        lines.append(
            f"| noisy gradient descent, {clipping} clipping C = {clip:g}, T = {NGD_ITERATIONS} "
            f"(σ = {r.details['sigma']:.1f}, exact accounting) | ε = {r.epsilon:.3f}, δ = 1e-5 | {spread(acc)} | "
            f"+{100 * (acc.mean() - base):.1f} |"
        )
        if clipping == "gradient":
            checks["noisy GD at ε = 1 beats the majority by 4 points (every draw)"] = acc.min() > base + 0.04
            privacy = r.privacy

    r = dp_sgd(X, y, sampling_rate=q, rng=2, draws=DRAWS, history_every=0, **SGD)
    acc = r.accuracy(Xt, yt)
    lines.append(
        f"| DP-SGD, σ = 1.1, batch 256 (q = {q:.4f}), 300 steps, C = 1 | ε = {r.epsilon:.3f} (PLD), δ = 1e-5 | "
        f"{spread(acc)} | +{100 * (acc.mean() - base):.1f} |"
    )
    checks["DP-SGD (σ = 1.1, batch 256, 300 steps) beats the majority by 4 points (every draw)"] = (
        acc.min() > base + 0.04
    )

    random_clients = split_at_random(X, y, 500, rng=3)
    r = dp_fedavg(
        random_clients, rounds=40, client_rate=0.1, local_steps=5, clip=1.0, noise_multiplier=1.0, rng=4,
        local_lr=2.0, draws=DRAWS, history_every=0,
    )  # fmt: skip
    acc = r.accuracy(Xt, yt)
    lines.append(
        f"| DP-FedAvg, 500 random clients (~{n // 500} rows), q = 0.1, 40 rounds, 5 local steps, S = 1, σ = 1 | "
        f"client-level ε = {r.epsilon:.2f}, δ = 1e-5 | {spread(acc)} | +{100 * (acc.mean() - base):.1f} |"
    )

    lines += [
        "",
        "Noisy gradient descent at ε = 1 (gradient clipping, T = 50): the same σ under each accounting "
        "(the run was calibrated with the exact one).",
        "",
        "| accounting | ε |",
        "| --- | --- |",
    ]
    lines += [f"| {m} | {e:.3f} |" for m, e in zip(privacy["method"], privacy["epsilon"])]

    # ------------------------------------------------------------------ the two clippings side by side
    lines += [
        "",
        f"## Gradient clipping and example clipping side by side (noisy GD, ε = 1, δ = 1e-5, T = {NGD_ITERATIONS}, "
        f"step 2, {DRAWS} draws)",
        "",
        "Example clipping scales each row (x, 1) to norm ≤ C once; gradient clipping clips each per-example "
        "gradient at every step. Same sensitivity C either way, so the same σ.",
        "",
        "| C | σ | gradient clipping | share of gradients clipped | example clipping | share of rows scaled down |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    row_norms = np.linalg.norm(np.hstack([X, np.ones((n, 1))]), axis=1)
    for clip in (0.5, 1.0, 2.0, 4.0):
        res = {
            mode: noisy_gradient_descent(
                X, y, epsilon=1.0, delta=1e-5, iterations=NGD_ITERATIONS, clip=clip, learning_rate=2.0,
                clipping=mode, rng=12, draws=DRAWS, history_every=NGD_ITERATIONS - 1,
            )
            for mode in ("gradient", "example")
        }  # fmt: skip
        hist = res["gradient"].history
        clipped_first = hist.loc[hist["step"] == 0, "clipped_fraction"].mean()
        clipped_last = hist.loc[hist["step"] == NGD_ITERATIONS - 1, "clipped_fraction"].mean()
        lines.append(
            f"| {clip:g} | {res['gradient'].details['sigma']:.1f} | {spread(res['gradient'].accuracy(Xt, yt))} | "
            f"{pct(clipped_first)} at step 0, {pct(clipped_last)} at the last | "
            f"{spread(res['example'].accuracy(Xt, yt))} | "
            f"{pct(np.mean(row_norms > clip))} |"
        )

    # ------------------------------------------------------------------ accuracy against ε
    epsilons = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]
    table = epsilon_frontier(
        X, y, epsilons=epsilons, delta=1e-5, iterations=NGD_ITERATIONS, rng=5, draws=DRAWS, X_test=Xt, y_test=yt, **NGD
    )
    s = table.attrs["summary"]
    lines += [
        "",
        f"## Accuracy against ε (noisy gradient descent, T = {NGD_ITERATIONS}, C = 2, {DRAWS} draws)",
        "",
        "| ε | σ | mean accuracy | standard deviation |",
        "| --- | --- | --- | --- |",
    ]
    lines += [
        f"| {e:g} | {sg:.1f} | {pct(m)} | {100 * sd:.2f} |"
        for e, sg, m, sd in zip(s["epsilon"], s["sigma"], s["mean_accuracy"], s["std_accuracy"])
    ]
    means = s["mean_accuracy"].to_numpy()
    se = s["std_accuracy"].to_numpy() / math.sqrt(DRAWS)
    gap_se = np.hypot(se[:-1], se[1:])
    # never significantly higher at a smaller ε (5 standard errors), and clearly lower at the smallest than at ε = 1
    never_up = bool(np.all(np.diff(means) > -5 * gap_se))
    falls = means[epsilons.index(1.0)] - means[0] > 5 * math.hypot(se[0], se[epsilons.index(1.0)])
    checks["accuracy falls as ε falls (ε = 0.01 vs 1 by > 5 SE; no rise beyond 5 SE along the grid)"] = (
        never_up and falls
    )

    # ------------------------------------------------------------------ the interior optimum
    grid = [5, 10, 20, 50, 100, 200, 400]
    lines += [
        "",
        f"## Accuracy against iterations at a fixed total ε (C = 2, step 2, {DRAWS} draws; σ recalibrated per T)",
        "",
        "| T | σ at ε = 0.1 | accuracy at ε = 0.1 | σ at ε = 1 | accuracy at ε = 1 |",
        "| --- | --- | --- | --- | --- |",
    ]
    sweeps = {
        eps: iterations_sweep(
            X, y, epsilon=eps, delta=1e-5, iterations=grid, rng=6, draws=DRAWS, X_test=Xt, y_test=yt, **NGD
        )
        for eps in (0.1, 1.0)
    }
    a, b = sweeps[0.1].summary, sweeps[1.0].summary
    for i, T in enumerate(grid):
        lines.append(
            f"| {T} | {a['sigma'][i]:.1f} | {pct(a['mean_accuracy'][i])} ± {100 * a['std_accuracy'][i]:.2f} | "
            f"{b['sigma'][i]:.1f} | {pct(b['mean_accuracy'][i])} ± {100 * b['std_accuracy'][i]:.2f} |"
        )
    best = sweeps[0.1].best_iterations
    m01, se01 = a["mean_accuracy"].to_numpy(), a["std_accuracy"].to_numpy() / math.sqrt(DRAWS)
    ib = grid.index(best)
    interior = 0 < ib < len(grid) - 1 and all(m01[ib] - m01[j] > 5 * math.hypot(se01[ib], se01[j]) for j in (0, -1))
    lines.append("")
    lines.append(
        f"Best T at ε = 0.1: {best}; at ε = 1: {sweeps[1.0].best_iterations}. (Choosing T on the test rows is "
        "itself not private; see `iterations_sweep`.)"
    )
    checks["interior optimum of accuracy against T at ε = 0.1 (best above both ends by > 5 SE)"] = interior

    # ------------------------------------------------------------------ the tutorial FedAvg
    group_col = "occupation" if "occupation" in frame.columns else frame.columns[1]
    lines += [
        "",
        "## The tutorial FedAvg: Laplace noise on the size-weighted average of unclipped client models",
        "",
        f"Clients are the {group_col} groups of the training rows; one round of 5 local steps from zero weights. "
        "Assumed L1 sensitivity 0.01 and a claimed ε = 1 per round; `epsilon_actual` is what the Laplace noise "
        "gives for removing that client.",
        "",
    ]
    train_groups = _train_groups(frame, f, group_col)
    group_clients = split_by_group(X, y, train_groups)
    infl = client_influence(group_clients, local_steps=5, assumed_sensitivity=0.01, epsilon=1.0, clip=1.0)
    infl["group"] = np.unique(train_groups)
    top = infl.sort_values("epsilon_actual", ascending=False).head(5)
    lines += ["| client | rows | L1 influence | ratio to assumed | ε actually given | clipped update norm |"]
    lines += ["| --- | --- | --- | --- | --- | --- |"]
    lines += [
        f"| {g} | {sz:,} | {i1:.3f} | {ra:.0f}× | {ea:.1f} | {cu:.2f} |"
        for g, sz, i1, ra, ea, cu in zip(
            top["group"],
            top["size"],
            top["influence_l1"],
            top["ratio"],
            top["epsilon_actual"],
            top["clipped_update_norm"],
        )
    ]
    adv = adversarial_client_influence(
        random_clients, scales=[0, 1, 10, 100, 1000], local_steps=5, assumed_sensitivity=0.01, epsilon=1.0, clip=1.0,
        X_test=Xt, y_test=yt,
    )  # fmt: skip
    lines += [
        "",
        "One more client among the 500 random clients, sending a model of norm s opposite to the honest update:",
        "",
        "| s | naive L1 influence | ε actually given | naive model accuracy | clipped influence (≤ S = 1) | "
        "clipped model accuracy |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {sc:g} | {ni:.3g} | {ea:.3g} | {pct(na)} | {ci:.3g} | {pct(ca)} |"
        for sc, ni, ea, na, ci, ca in zip(
            adv["scale"], adv["naive_influence_l1"], adv["epsilon_actual"], adv["naive_accuracy"],
            adv["clipped_influence_l2"], adv["clipped_accuracy"],
        )
    ]  # fmt: skip

    # ------------------------------------------------------------------ speed
    rows = []
    t_sgd = median_of(lambda: dp_sgd(X, y, sampling_rate=q, rng=7, history_every=0, **SGD), 7, warm_up=True)
    t_acc = median_of(lambda: dpsgd_epsilon(1.1, q, 300, 1e-5), 5, warm_up=True)
    loop_steps = 30
    t_loop = median_of(
        lambda: per_example_dp_sgd(X, y, q, 1.1, 1.0, loop_steps, 2.0, np.random.default_rng(0)), 3, warm_up=True
    ) * (300 / loop_steps)
    rows.append(
        ("DP-SGD, 300 steps, batch 256, 1 draw (training only)", t_sgd, "< 1 s",
         f"{t_loop / t_sgd:.0f}× faster than a loop over each batch's examples ({fmt(t_loop)}, from {loop_steps} steps)")
    )  # fmt: skip
    rows.append(("PLD accountant for those 300 steps (`dpsgd_epsilon`)", t_acc, "", ""))
    checks["300 DP-SGD steps under 1 s (training + PLD accountant)"] = t_sgd + t_acc < 1.0
    t = median_of(lambda: dp_sgd(X, y, sampling_rate=q, rng=7, draws=5, X_test=Xt, y_test=yt, **SGD), 5, warm_up=True)
    rows.append(("DP-SGD, 300 steps, 5 draws, 50-point history with test accuracy, PLD ε", t, "", ""))

    def ngd(draws, history):
        return noisy_gradient_descent(
            X, y, epsilon=1.0, delta=1e-5, iterations=NGD_ITERATIONS, rng=8, draws=draws, X_test=Xt, y_test=yt,
            history_every=1 if history else 0, **NGD,
        )  # fmt: skip

    t_vec = median_of(lambda: ngd(PAGE_DRAWS, True), 5, warm_up=True)
    t_one = median_of(lambda: ngd(None, True), 5, warm_up=True)
    rows.append(
        (f"page: noisy GD, T = {NGD_ITERATIONS}, {PAGE_DRAWS} draws, full history with test accuracy", t_vec,
         "< 500 ms", f"{PAGE_DRAWS * t_one / t_vec:.1f}× faster than one call per draw ({fmt(PAGE_DRAWS * t_one)})")
    )  # fmt: skip
    for page_grid, target in (([5, 10, 20, 50], "< 500 ms"), ([5, 10, 20, 50, 100], "")):
        t_sweep = median_of(
            lambda g=page_grid: iterations_sweep(
                X, y, epsilon=1.0, delta=1e-5, iterations=g, rng=9, draws=PAGE_DRAWS, X_test=Xt, y_test=yt, **NGD
            ),
            5,
            warm_up=True,
        )
        t_sep = median_of(
            lambda g=page_grid: [
                noisy_gradient_descent(
                    X, y, epsilon=1.0, delta=1e-5, iterations=T, rng=9, draws=PAGE_DRAWS, history_every=0, **NGD
                )
                for T in g
            ],
            3,
            warm_up=True,
        )
        rows.append(
            (f"page: iterations sweep T ∈ {page_grid}, {PAGE_DRAWS} draws", t_sweep, target,
             f"{t_sep / t_sweep:.1f}× faster than one run per T ({fmt(t_sep)})")
        )  # fmt: skip
    page_eps = [0.03, 0.1, 0.3, 1.0, 3.0]
    page_T = 20
    t_front = median_of(
        lambda: epsilon_frontier(
            X, y, epsilons=page_eps, delta=1e-5, iterations=page_T, rng=10, draws=PAGE_DRAWS, X_test=Xt, y_test=yt,
            **NGD,
        ),
        5,
        warm_up=True,
    )  # fmt: skip
    t_sep = median_of(
        lambda: [
            noisy_gradient_descent(
                X, y, epsilon=e, delta=1e-5, iterations=page_T, rng=10, draws=PAGE_DRAWS, history_every=0, **NGD
            )
            for e in page_eps
        ],
        3,
        warm_up=True,
    )
    rows.append(
        (f"page: ε frontier, {len(page_eps)} values of ε, T = {page_T}, {PAGE_DRAWS} draws", t_front, "< 500 ms",
         f"{t_sep / t_front:.1f}× faster than one run per ε ({fmt(t_sep)})")
    )  # fmt: skip
    t_fed = median_of(
        lambda: dp_fedavg(
            random_clients, rounds=20, client_rate=0.05, local_steps=3, clip=1.0, noise_multiplier=1.0, rng=11,
            local_lr=2.0, draws=PAGE_DRAWS, X_test=Xt, y_test=yt,
        ),
        5,
        warm_up=True,
    )  # fmt: skip
    rows.append(
        (f"page: DP-FedAvg, 500 clients, q = 0.05, 20 rounds, 3 local steps, {PAGE_DRAWS} draws", t_fed, "< 500 ms", "")
    )
    t_inf = median_of(
        lambda: adversarial_client_influence(
            random_clients, scales=[0, 1, 10, 100, 1000], local_steps=5, assumed_sensitivity=0.01, epsilon=1.0,
            clip=1.0, X_test=Xt, y_test=yt,
        ),
        5,
        warm_up=True,
    )  # fmt: skip
    rows.append(("page: adversarial-client table (500 clients, 5 scales)", t_inf, "< 500 ms", ""))
    rows.append(("feature preparation of the table (`prepare_features`)", t_features, "", "once per dataset"))
    for name, t, target, _ in rows:
        if target == "< 500 ms":
            checks[f"{name.removeprefix('page: ')} under 500 ms"] = t < 0.5

    lines += [
        "",
        "## Speed",
        "",
        "Median wall time on a 2-core machine shared with other jobs; baselines timed in the same run.",
        "",
        "| case | time | target | baseline |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| {case} | {fmt(t)} | {target} | {baseline} |" for case, t, target, baseline in rows]
    lines += page_on_adult(checks)
    lines += ["", "## Targets", ""]
    lines += [f"- {name}: {'yes' if ok else 'NO'}" for name, ok in checks.items()]
    text = "\n".join(lines) + "\n"
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text, encoding="utf-8")


#: Each view of the Learning page at its defaults, by link, and the metric that shows the view opened.
PAGE_VIEWS = (
    ("noisy gradient descent", {}, "Noise σ on each gradient sum"),
    ("DP-SGD", {"lrn_view": "DP-SGD", "lrn_sgd_part": "Training run"}, "ε spent (PLD)"),
    ("DP-FedAvg", {"lrn_view": "Federated averaging"}, "Client-level ε (PLD)"),
)


def page_on_adult(checks: dict) -> list[str]:
    """The Learning page itself on Adult (AppTest, its defaults): each view's private accuracy against the baseline.

    Issue 12 asks that the page, on Adult, beat the majority class; Adult is never in the tests (they must pass on
    a fresh clone), so the page is measured here, with the numbers the page shows.
    """
    from tests.apptest import PAGES, open_page

    title = "## The Learning page on Adult (AppTest: the file uploaded, each view at its defaults)"
    if not ADULT.exists():
        return ["", title, "", "Not measured: the UCI Adult extract was not found beside the repository."]
    raw = ADULT.read_bytes()
    lines = [
        "",
        title,
        "",
        "| view | privacy shown | private model, mean of the draws | worst draw | majority baseline | worst over it |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name, link, shown in PAGE_VIEWS:
        at = open_page("data", timeout=300, **link)
        at.file_uploader(key="data_upload").upload(ADULT.name, raw, "text/csv").run()
        at.switch_page(PAGES["learning"]).run()
        assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
        metrics = {m.label: m for m in at.metric}
        private = float(metrics["Private model, test accuracy"].value.rstrip("%")) / 100
        worst = float(metrics["Private model, test accuracy"].delta.split(" to ")[0].rstrip("%")) / 100
        baseline = float(metrics["Majority baseline"].value.rstrip("%")) / 100
        lines.append(
            f"| {name} | {shown}: {metrics[shown].value} | {pct(private)} | {pct(worst)} | {pct(baseline)} | "
            f"{100 * (worst - baseline):+.1f} points |"
        )
        checks[f"the page's {name} beats the majority baseline by 4 points on Adult"] = worst > baseline + 0.04
    return lines


def _train_groups(frame, features, column):
    """The value of ``column`` for each training row, recovered from its one-hot block (or the frame)."""
    names = features.feature_names
    block = [i for i, name in enumerate(names) if name.startswith(column + "=")]
    labels = np.array([names[i].split("=", 1)[1] for i in block])
    return labels[np.argmax(features.X_train[:, block], axis=1)]


if __name__ == "__main__":
    main()
    readme_figures.update()
