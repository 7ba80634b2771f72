"""Each page's one simulated release, as plain functions of prepared inputs and a seed.

Seeded noise: anyone with the seed can recompute it, so nothing drawn here is private
or published (a view's Publish section draws with secure noise, :mod:`explorer.publishing`).
The page calls these functions to draw what it shows, and :mod:`explorer.snippets`
offers their source (``inspect.getsource``) as the downloadable snippet, so the
file a user runs is the code that drew the screen, not a copy of it. Each
function is written to read well on its own in a snippet: it uses only its
arguments and the names imported at the top of this module, which the snippet
imports too. No Streamlit here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dpcore import (
    LADDER_CANDIDATES,
    LDPMean,
    auto_mean,
    choose_clipping_bound,
    dp_category_counts,
    dp_count,
    dp_count_matching,
    dp_histogram,
    dp_mean,
    dp_quantile,
    dp_sum,
    evenly_spaced_candidates,
    exponential_mechanism,
    families,
    learning,
    naive_range_query,
    project_to_histogram,
    range_query_svt,
)
from dpcore.contributions import ContributionBounds, bound_contributions
from dpcore.groupby import dp_person_count, dp_person_mean, dp_person_sum
from dpcore.histogram_quantile import dp_histogram_quantile
from dpcore.neighbours import ADD_REMOVE, NeighbouringRelation
from dpcore.postprocess import release_step, round_release
from dpcore.quantiles import ExponentialQuantile
from dpcore.queries import QueryResult, dp_count_matching_all, dp_two_way_table, noise_mechanism
from dpcore.validation import as_generator

__all__ = [
    "local_counts",
    "whole_counts",
    "local_mean",
    "one_row_each",
    "central_query",
    "central_person_query",
    "person_query",
    "person_histogram",
    "person_histogram_sensitivity",
    "most_common",
    "range_queries",
    "random_ranges",
    "count_matching",
    "count_matching_all",
    "category_counts",
    "two_way_table",
    "quantile",
    "clipping_bound",
    "automatic_mean",
    "compare_counts",
    "compare_means",
    "compare_quantiles",
    "split_clients",
    "private_model",
    "COUNT_MECHANISMS",
    "MEAN_MECHANISMS",
]

#: The mechanisms the Compare page offers for the counts of a category (every registered family), and for a mean.
COUNT_MECHANISMS = tuple(families.labelled())
MEAN_MECHANISMS = ("LDP mean (local)", *families.labelled(" mean", "central"), "SVT automatic mean (central)")


def local_counts(codes, labels, oracle, epsilon, seed, valid_histogram=False):
    """One local-DP release of a categorical column's counts: every person randomizes their own value."""
    oracle = families.family(oracle).counts(epsilon, len(labels))
    estimate = oracle.release(codes, np.random.default_rng(seed))  # each device randomizes; unbiased, may be < 0
    if valid_histogram:  # post-processing: free in privacy, biased
        estimate = project_to_histogram(estimate, codes.size)
    return pd.DataFrame({"value": labels, "noisy count": estimate})


def local_mean(values, lower, upper, epsilon, seed):
    """One local-DP release of a numeric column's mean: every person rounds their value to a bound, then randomizes it."""
    mechanism = LDPMean(epsilon, lower, upper)
    reports = mechanism.perturb(values, np.random.default_rng(seed))  # one bit leaves each device
    return mechanism.estimate(reports)


def one_row_each(persons, seed):
    """Which rows report under a person unit in the local model: one row per person, sampled uniformly from the seed.

    Each person's device sends one randomized report of one of their rows, so a person's guarantee is the report's ε
    (their other rows never leave the device). Returns a mask over the rows.
    """
    return bound_contributions(persons, np.random.default_rng(seed), bounds=ContributionBounds(max_rows=1)).kept


def central_query(
    values, query, epsilon, seed, noise="laplace", delta=None, lower=None, upper=None, bins=None, split=0.5
):
    """One central release of a count, clipped sum, mean or histogram of a numeric column.

    The answer is drawn on a lattice with exact noise (``.on_lattice``), as a publication's is; the
    result keeps its noise law for the page's simulations.
    """
    rng = np.random.default_rng(seed)
    delta = families.family(noise).delta(delta)
    if query == "count":
        result = dp_count(values, epsilon, rng, mechanism=noise, delta=delta)
    elif query == "sum":
        result = dp_sum(values, lower, upper, epsilon, rng, mechanism=noise, delta=delta)
    elif query == "mean":
        result = dp_mean(values, lower, upper, epsilon, rng, split=split, mechanism=noise, delta=delta)
    else:
        result = dp_histogram(values, bins, epsilon, rng, lower=lower, upper=upper, mechanism=noise, delta=delta)
    return result.on_lattice(rng)


def central_person_query(
    values,
    query,
    epsilon,
    seed,
    noise="laplace",
    delta=None,
    lower=None,
    upper=None,
    bins=None,
    split=0.5,
    *,
    persons,
    max_rows,
):
    """:func:`central_query` under add/remove one person: ``persons`` names each value's person, and each person's
    rows are bounded to ``max_rows`` (m), sampled uniformly from the seed, before the query (:func:`person_query`).
    """
    rng = np.random.default_rng(seed)
    delta = families.family(noise).delta(delta)
    result = person_query(values, persons, max_rows, query, epsilon, rng, noise, delta, lower, upper, bins, split)
    return result.on_lattice(rng)


def person_query(values, persons, max_rows, query, epsilon, rng, noise="laplace", delta=None, lower=None, upper=None,
                 bins=None, split=0.5):  # fmt: skip
    """A count, clipped sum, mean or histogram under add/remove one person, each person's rows bounded first.

    Count, sum and mean keep at most m = ``max_rows`` rows per person (dpcore.groupby). A histogram keeps at most m of
    each person's rows, in any bins (:func:`person_histogram`): one person moves the bins by at most m in all, so the
    counts get the noise of sensitivity m (ℓ1 and ℓ2).
    """
    rng = as_generator(rng)
    kw = {"mechanism": noise, "delta": delta}
    if query == "count":
        return dp_person_count(persons, epsilon, rng, bounds=ContributionBounds(max_rows=max_rows), **kw)
    if query == "sum":
        return dp_person_sum(values, persons, lower, upper, epsilon, rng, bounds=ContributionBounds(max_rows=max_rows),
                             **kw)  # fmt: skip
    if query == "mean":
        bounds = ContributionBounds(max_rows=max_rows)
        return dp_person_mean(values, persons, lower, upper, epsilon, rng, bounds=bounds, split=split, **kw)
    edges = np.linspace(lower, upper, bins + 1)
    bin_of = np.clip(np.searchsorted(edges[1:-1], values, side="right"), 0, bins - 1)  # the end bins take the clipped
    table, counts = person_histogram(persons, bin_of, bins, max_rows, rng)
    true = counts.astype(np.float64)
    sensitivity = person_histogram_sensitivity(max_rows).norm(families.family(noise).norm)  # m, ℓ1 and ℓ2 alike
    mechanism = noise_mechanism(epsilon, sensitivity, noise, delta)
    kept = values[table.kept]
    return QueryResult(
        "histogram",
        true,
        mechanism.simulate(true, rng),
        mechanism,
        table.rows_kept,
        bin_edges=edges,
        clipped_below=int(np.count_nonzero(kept < lower)),
        clipped_above=int(np.count_nonzero(kept > upper)),
    )


def _person_histogram_bounds(max_rows):
    # at most m rows per person in total, whatever their bins: the one rule of a histogram under a person unit
    return ContributionBounds(max_rows=max_rows)


def person_histogram_sensitivity(max_rows):
    """The sensitivity of a histogram under add/remove one person, each person's rows bounded by
    :func:`person_histogram`: m = ``max_rows`` in ℓ1, ℓ2 and per bin (a person's at most m rows move the bins by at
    most m in all; :meth:`dpcore.contributions.ContributionBounds.rows_histogram_sensitivity`)."""
    return _person_histogram_bounds(max_rows).rows_histogram_sensitivity()


def person_histogram(persons, codes, k, max_rows, rng):
    """The counts per bin (``codes`` in [0, k)) of at most m = ``max_rows`` of each person's rows, in any bins.

    A person with more rows keeps m of them sampled uniformly from ``rng`` (dpcore's bounding without groups), so
    ``sum(min(rows, m))`` rows are kept, never fewer than keeping one bin of at most m rows per person, with the same
    sensitivity (:func:`person_histogram_sensitivity`). Returns the bounded table and its counts per bin.
    """
    table = bound_contributions(persons, rng, bounds=_person_histogram_bounds(max_rows))
    return table, np.bincount(codes[table.kept], minlength=k)


def count_matching(mask, epsilon, seed, noise="laplace", delta=None):
    """One central release of how many rows satisfy a condition (sensitivity 1: add/remove one record)."""
    rng = np.random.default_rng(seed)
    delta = families.family(noise).delta(delta)
    return dp_count_matching(mask, epsilon, rng, mechanism=noise, delta=delta).on_lattice(rng)


def count_matching_all(masks, epsilon, seed, noise="laplace", delta=None):
    """One central release of how many rows satisfy every one of several conditions (one count: sensitivity 1)."""
    rng = np.random.default_rng(seed)
    delta = families.family(noise).delta(delta)
    return dp_count_matching_all(masks, epsilon, rng, mechanism=noise, delta=delta).on_lattice(rng)


def two_way_table(row_codes, column_codes, shape, epsilon, seed, noise="laplace", delta=None):
    """One central release of a two-way table: every cell's count (one record is in one cell: each gets the noise
    of one count)."""
    rng = np.random.default_rng(seed)
    delta = families.family(noise).delta(delta)
    result = dp_two_way_table(row_codes, column_codes, shape, epsilon, rng, mechanism=noise, delta=delta)
    return result.on_lattice(rng)


def quantile(values, q, lower, upper, epsilon, seed):
    """One release of a quantile by the exponential mechanism over the range [lower, upper] (Smith 2011)."""
    return dp_quantile(values, q, lower, upper, epsilon, np.random.default_rng(seed))


def category_counts(codes, labels, epsilon, seed, noise="laplace", delta=None):
    """One central release of every category's count (each count gets the noise of one count)."""
    rng = np.random.default_rng(seed)
    delta = families.family(noise).delta(delta)
    return dp_category_counts(codes, len(labels), epsilon, rng, mechanism=noise, delta=delta).on_lattice(rng)


def most_common(codes, labels, epsilon, seed):
    """One release of the most common value with the exponential mechanism (score: the count, sensitivity 1)."""
    counts = np.bincount(codes, minlength=len(labels))
    sensitivity = ADD_REMOVE.counting_query_sensitivity  # one person moves one count by at most 1
    return labels[exponential_mechanism(counts, epsilon, sensitivity, np.random.default_rng(seed))]


def random_ranges(lower, upper, n_queries, seed):
    """``n_queries`` ranges [a, b] drawn uniformly between ``lower`` and ``upper`` from ``seed``, to about 3 significant
    digits of the span: public queries (a seeded choice of questions, not noise), as public as the bounds."""
    digits = int(2 - np.floor(np.log10(upper - lower)))
    ranges = np.random.default_rng(seed).uniform(lower, upper, size=(n_queries, 2))
    return np.sort(np.round(ranges, digits), axis=1)


def whole_counts(counts) -> list:
    """Counts in whole units, the one rounding rule of a released count (dpcore.postprocess.release_step)."""
    return round_release(counts, release_step(np.nan, whole=True))


def range_queries(values, lower, upper, n_queries, threshold_share, c, epsilon, seeds):
    """Random range counts answered by SVT (at most c, ε/2 to find, ε/2 to answer) and, for contrast, naively.

    ``seeds`` are three: the public ranges, the SVT release, the naive release.
    """
    ends = random_ranges(lower, upper, n_queries, seeds[0])
    xs = np.sort(values)
    true = np.searchsorted(xs, ends[:, 1], "right") - np.searchsorted(xs, ends[:, 0], "left")
    threshold = round(threshold_share / 100 * values.size)
    # the answers are released (simulated here): drawn on a lattice with exact noise, as a publication's are
    svt = dict(range_query_svt(true, threshold, c, epsilon, np.random.default_rng(seeds[1]), lattice=True))
    naive = dict(naive_range_query(true, threshold, epsilon, np.random.default_rng(seeds[2]), lattice=True))
    table = pd.DataFrame(
        {
            "range": [f"[{a:g}, {b:g}]" for a, b in ends],
            "true count": true,
            "passed SVT": [i in svt for i in range(n_queries)],
            "SVT answer": whole_counts([svt.get(i, np.nan) for i in range(n_queries)]),
            "passed naive": [i in naive for i in range(n_queries)],
            "naive answer": whole_counts([naive.get(i, np.nan) for i in range(n_queries)]),
        }
    )
    table.attrs["threshold"] = threshold  # public, as the ranges
    return table


def clipping_bound(values, largest, n_candidates, epsilon, seed):
    """One release of a clipping bound: AboveThreshold walks evenly spaced candidates up to ``largest`` (ε-DP)."""
    candidates = evenly_spaced_candidates(largest, n_candidates)  # fixed before looking at the data
    return choose_clipping_bound(values, candidates, epsilon, np.random.default_rng(seed))


def automatic_mean(values, largest, n_candidates, epsilon, seed):
    """One release of a mean with no bounds given: SVT picks the bound, then noisy sum over noisy count (ε/3 each)."""
    candidates = evenly_spaced_candidates(largest, n_candidates)
    return auto_mean(values, candidates, epsilon, np.random.default_rng(seed), lattice=True)


def compare_counts(codes, labels, mechanisms, epsilon, delta, seed, relation):
    """One release of a categorical column's counts by each mechanism, at the same ε, under ``relation`` (its words).

    Local oracles hold under replace one record; the central ones add noise to the true histogram, calibrated to its
    sensitivity under ``relation`` (dpcore.families). Each is drawn from its exact law given the true counts (for an
    oracle, the sum of every person's randomized report, drawn in aggregate): O(k) work however many rows.
    """
    rng = np.random.default_rng(seed)
    true = np.bincount(codes, minlength=len(labels))
    table = pd.DataFrame({"value": labels})
    for name in mechanisms:
        family = families.labelled()[name]
        answer = family.counts(epsilon, len(labels), delta=family.delta(delta), relation=NeighbouringRelation(relation))
        table[name] = answer.simulate(true, rng, 1)[0]
    return table


def compare_means(values, lower, upper, mechanisms, epsilon, delta, seed):
    """One release of a numeric column's mean by each mechanism, at the same ε (the SVT mean finds its own bound)."""
    rng = np.random.default_rng(seed)
    central = families.labelled(" mean", "central")
    noisy = []
    for name in mechanisms:
        if name == "LDP mean (local)":
            mechanism = LDPMean(epsilon, lower, upper)
            noisy.append(mechanism.estimate(mechanism.perturb(values, rng)))
        elif name == "SVT automatic mean (central)":
            noisy.append(auto_mean(values, LADDER_CANDIDATES, epsilon, rng).noisy_value)
        else:
            family = central[name]
            noisy.append(
                dp_mean(values, lower, upper, epsilon, rng, mechanism=family.key, delta=family.delta(delta)).noisy_value
            )
    return pd.DataFrame({"mechanism": list(mechanisms), "noisy mean": noisy})


def compare_quantiles(values, q, lower, upper, bins, mechanisms, epsilon, delta, seed):
    """One release of a quantile by each mechanism, at the same ε (add/remove one record): the exponential mechanism
    over the declared range [lower, upper] (Smith 2011), or read off a noisy histogram of ``bins`` declared bins with a
    central family's noise (the families' names, as the Compare page shows them)."""
    rng = np.random.default_rng(seed)
    histograms = {f"{f.name} histogram's CDF (central)": f for f in families.central()}
    noisy = []
    for name in mechanisms:
        if name in histograms:
            f = histograms[name]
            result = dp_histogram_quantile(
                values, q, lower, upper, bins, epsilon, rng, mechanism=f.key, delta=f.delta(delta)
            )
            noisy.append(result.noisy_value)
        else:  # the exponential mechanism
            noisy.append(ExponentialQuantile(epsilon, lower, upper, q).simulate(values, rng))
    return pd.DataFrame({"mechanism": list(mechanisms), "released": noisy})


def split_clients(X, y, feature_names, clients, seed):
    """The clients of federated learning: the rows sharing a value of a one-hot encoded column, or m random shares.

    ``clients`` is a column name (one client per category of that feature, read from its one-hot block) or a
    number m (the rows dealt at random into m clients, from a stream of its own derived from the run's seed).
    Returns the list of (X_k, y_k) and each client's name.
    """
    if isinstance(clients, str):
        block = [i for i, name in enumerate(feature_names) if name.startswith(clients + "=")]
        parts = learning.split_by_group(X, y, np.argmax(X[:, block], axis=1))  # each row has one 1 in its block
        names = [feature_names[i][len(clients) + 1 :] for i in block]
        present = np.unique(np.argmax(X[:, block], axis=1))  # categories seen only in the test rows have no client
        return parts, [names[i] for i in present]
    parts = learning.split_at_random(X, y, clients, np.random.default_rng([*seed, 1]))
    return parts, [f"client {k + 1}" for k in range(len(parts))]


def private_model(method, X, y, feature_names, settings, seed, draws=3, X_test=None, y_test=None):
    """Train a private logistic regression: noisy gradient descent, DP-SGD or DP-FedAvg (client-level).

    ``draws`` independent noise draws train at once, to show the spread; each is a separate (ε, δ)-DP run, and the
    release is draw 0 alone: its weights and the (ε, δ) they cost. The test rows only feed the history's accuracy
    (a teaching diagnostic, not a release). Returns the TrainingResult and the release table.
    """
    settings = dict(settings)
    rng = np.random.default_rng(seed)
    test = {"X_test": X_test, "y_test": y_test, "draws": draws}
    if method == "noisy gradient descent":
        result = learning.noisy_gradient_descent(X, y, rng=rng, **settings, **test)
    elif method == "DP-SGD":
        result = learning.dp_sgd(X, y, rng=rng, **settings, **test)
    else:
        clients, _ = split_clients(X, y, feature_names, settings.pop("clients"), seed)
        result = learning.dp_fedavg(clients, rng=rng, **settings, **test)
    weights = np.atleast_2d(result.weights)[0]
    names = [*feature_names, "(intercept)"] if result.fit_intercept else list(feature_names)
    release = pd.DataFrame(
        {"parameter": [*names, "epsilon", "delta"], "value": [*weights.tolist(), result.epsilon, result.delta]}
    )
    return result, release
