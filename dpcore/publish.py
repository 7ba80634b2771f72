"""Publication: the one path that draws noise to publish, from a secure generator, on a lattice.

Every function here takes no generator and no seed: each call draws fresh noise from
:class:`~dpcore.randomness.SecureGenerator` (the operating system's cryptographically secure
generator), on the power-of-two lattice of :mod:`dpcore.lattice` with exact discrete Laplace or
Gaussian noise (no floating-point holes, Mironov 2012), and returns a
:class:`~dpcore.release.Release` that holds the published numbers only, with the (ε, δ), the
neighbouring relation, the unit of privacy and the declared public facts they rely on.

Nothing published is chosen by the data. The caller declares what is public and says where it
came from: the clipping bounds of a sum or a mean, the bin edges of a histogram (whose labels are
built from the edges alone, the end bins always reading "below" and "and above" since values
outside the bounds are clipped into them), the category domain of counts or of the most common
value (a value outside the domain is counted in "(other)" when one is declared, dropped
otherwise: a rule fixed before the data is read). A count, the noisy count under a mean and
every histogram bin are released, never the number of rows itself.

Two publications with the same settings draw independent noise: each is charged in full
(sequential composition), and no difference of two of them cancels the noise.

References
----------
- Dwork & Roth (2014), "The Algorithmic Foundations of Differential Privacy", Foundations and
  Trends in Theoretical Computer Science 9(3–4), Theorem 3.16 (each release charged in full).
  https://www.cis.upenn.edu/~aaroth/Papers/privacybook.pdf
- Mironov (2012), "On Significance of the Least Significant Bits for Differential Privacy", CCS,
  Section 5 (the snapping mechanism; here an exact lattice). https://doi.org/10.1145/2382196.2382264
- Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy", NeurIPS,
  Section 5. https://arxiv.org/abs/2004.00010
- McSherry & Talwar (2007), "Mechanism Design via Differential Privacy", FOCS, Theorem 6 (the
  exponential mechanism over a domain fixed in advance). https://doi.org/10.1109/FOCS.2007.66
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpcore import families
from dpcore.clipping import auto_mean, choose_clipping_bound, evenly_spaced_candidates
from dpcore.exact_choice import exact_choice, nearest_grid_index, quantile_exponents
from dpcore.lattice import lattice_mechanism
from dpcore.ldp_mean import LDPMean
from dpcore.learning.published import lattice_gradient_descent
from dpcore.neighbours import ADD_REMOVE, REPLACE_ONE
from dpcore.postprocess import project_to_histogram
from dpcore.queries import (
    RELATION,
    MeanResult,
    QueryResult,
    dp_category_counts,
    dp_count,
    dp_count_matching,
    dp_histogram,
    dp_mean,
    dp_sum,
    dp_two_way_table,
    mean_epsilon_for_accuracy,
)
from dpcore.randomness import Randomness, SecureGenerator
from dpcore.release import UNIT_RECORD, PublicFact, Release, as_tuple
from dpcore.svt import range_query_svt
from dpcore.validation import check_bounds, check_category_values, check_epsilon, check_int

__all__ = [
    "OTHER",
    "bin_labels",
    "publish",
    "publish_count",
    "publish_sum",
    "publish_mean",
    "publish_histogram",
    "publish_count_matching",
    "publish_category_counts",
    "publish_two_way_table",
    "publish_most_common",
    "LOCAL_ORACLES",
    "publish_local_counts",
    "publish_local_mean",
    "publish_clipping_bound",
    "publish_automatic_mean",
    "publish_range_counts",
    "INTERCEPT",
    "publish_logistic_regression",
    "plan_mean_epsilon",
    "publish_quantile",
]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
#: The label of the declared catch-all category.
OTHER = "(other)"


def _unused_generator() -> np.random.Generator:
    """The queries of :mod:`dpcore.queries` also draw a float simulation; a publication discards it and draws again."""
    return np.random.default_rng()


def _published(
    *, query, value, labels, mechanism, epsilon, delta=0.0, noise_std=math.nan, relation=RELATION, public=()
) -> Release:
    """A release drawn with secure noise about one record (the constants every publication of this module shares)."""
    return Release(
        query=query,
        value=value,
        labels=tuple(labels),
        mechanism=mechanism,
        noise_std=noise_std,
        epsilon=epsilon,
        delta=delta,
        relation=relation,
        unit=UNIT_RECORD,
        randomness=Randomness.PUBLICATION,
        public=tuple(public),
    )


def _lattice_words(result: QueryResult):
    lattice = lattice_mechanism(result.mechanism)
    family = type(result.mechanism).__name__
    grid = "2" + str(int(math.log2(lattice.grid))).translate(_SUPERSCRIPT)
    words = f"{family} noise on a {grid} lattice (exact discrete {family} noise in grid steps)"
    epsilon = lattice.epsilon if lattice.epsilon is not None else result.mechanism.epsilon
    delta = 0.0 if lattice.delta is None else float(lattice.delta)
    return words, lattice.noise_std, float(epsilon), delta, lattice


def publish(result, *, labels=("value",), public=(), query: str | None = None) -> Release:
    """Publish the answer of a query: its true value and noise law are kept, the noise is drawn anew, securely.

    ``result`` is a :class:`~dpcore.queries.QueryResult` or :class:`~dpcore.queries.MeanResult` (its own,
    simulated noisy value is ignored); ``labels`` and ``public`` are declared by the caller.
    """
    rng = SecureGenerator()
    if isinstance(result, MeanResult):
        drawn = result.on_lattice(rng)
        sum_words, _, sum_eps, sum_delta, _ = _lattice_words(result.sum)
        _, _, count_eps, count_delta, _ = _lattice_words(result.count)
        return _published(
            query=query or "mean",
            value=as_tuple(drawn.noisy_value),
            labels=tuple(labels),
            mechanism=f"noisy clipped sum over noisy count; {sum_words}",
            epsilon=sum_eps + count_eps,
            delta=sum_delta + count_delta,
            public=tuple(public),
        )
    if not isinstance(result, QueryResult):
        raise TypeError(f"result must be a QueryResult or a MeanResult, got {type(result).__name__}")
    words, std, epsilon, delta, lattice = _lattice_words(result)
    value = lattice.draw(result.true_value, rng)
    return _published(
        query=query or result.query,
        value=as_tuple(value),
        labels=tuple(labels),
        mechanism=words,
        noise_std=std,
        epsilon=epsilon,
        delta=delta,
        public=tuple(public),
    )


def _bounds_facts(lower, upper, source) -> tuple[PublicFact, ...]:
    return (
        PublicFact("lower clipping bound", f"{lower:g}", source),
        PublicFact("upper clipping bound", f"{upper:g}", source),
    )


def publish_count(values, epsilon: float, *, mechanism: str = "laplace", delta: float | None = None) -> Release:
    """Publish how many rows ``values`` has (sensitivity 1 under add/remove one record)."""
    return publish(dp_count(values, epsilon, _unused_generator(), mechanism=mechanism, delta=delta, nan="drop"))


def publish_sum(values, lower, upper, epsilon, *, mechanism="laplace", delta=None, source="declared") -> Release:
    """Publish the sum of ``values`` clipped to the declared ``[lower, upper]``."""
    lower, upper = check_bounds(lower, upper)
    result = dp_sum(values, lower, upper, epsilon, _unused_generator(), mechanism=mechanism, delta=delta, nan="drop")
    return publish(result, public=_bounds_facts(lower, upper, source))


def publish_mean(values, lower, upper, epsilon, *, split=0.5, mechanism="laplace", delta=None, source="declared"):
    """Publish the mean of ``values`` clipped to the declared bounds: a noisy sum over a noisy count (n stays private)."""
    lower, upper = check_bounds(lower, upper)
    result = dp_mean(
        values, lower, upper, epsilon, _unused_generator(), split=split, mechanism=mechanism, delta=delta, nan="drop"
    )
    facts = (*_bounds_facts(lower, upper, source), PublicFact("share of ε for the sum", f"{split:g}", "declared"))
    return publish(result, public=facts)


def plan_mean_epsilon(
    accuracy, lower, upper, planned_n, confidence=0.95, *, split=0.5, mechanism="laplace", delta=None
) -> float:
    """The ε a published mean needs for ``±accuracy`` at ``confidence``, from declared facts alone.

    The error of a noisy sum over a noisy count depends on the data only through the number of records n
    and the clipped mean m (the delta method: ``Var ≈ (Var S + m² Var C)/n²``, :attr:`MeanResult.approx_std`).
    This plan reads neither: n is the declared ``planned_n`` (the size the study was designed for) and m is
    put at the declared bound of largest magnitude, where the count's noise costs most. It is
    :func:`~dpcore.queries.mean_epsilon_for_accuracy` on a column of ``planned_n`` records at that bound: a
    conservative ε for any data of that size within the bounds (Monte-Carlo, with its seed fixed, since it
    plans and publishes nothing). A data set smaller than planned gets a larger error than planned.

    Parameters
    ----------
    accuracy : float
        Target error of the mean, in (0, upper − lower).
    lower, upper : float
        The declared bounds.
    planned_n : int
        The declared number of records, in [1, 10⁷].
    confidence, split, mechanism, delta
        As in :func:`~dpcore.queries.mean_epsilon_for_accuracy`.
    """
    lower, upper = check_bounds(lower, upper)
    planned_n = check_int(planned_n, "planned_n", minimum=1, maximum=10_000_000)
    worst = upper if abs(upper) >= abs(lower) else lower
    column = np.full(planned_n, worst)
    return mean_epsilon_for_accuracy(
        accuracy, column, lower, upper, confidence, split=split, mechanism=mechanism, delta=delta, trials=4_000
    )


def bin_labels(edges) -> tuple[str, ...]:
    """Labels of histogram bins from their declared edges alone: the end bins hold what was clipped into them.

    >>> bin_labels([0, 10, 20, 30])
    ('below 10', '[10, 20)', '20 and above')
    """
    edges = np.asarray(edges, dtype=np.float64)
    if edges.size < 3:
        return ("all values",) if edges.size == 2 else ()
    inner = [f"[{a:g}, {b:g})" for a, b in zip(edges[1:-2], edges[2:-1])]
    return (f"below {edges[1]:g}", *inner, f"{edges[-2]:g} and above")


def publish_histogram(values, bins: int, lower, upper, epsilon, *, mechanism="laplace", delta=None, source="declared"):
    """Publish a histogram of ``bins`` equal bins over the declared ``[lower, upper]`` (values outside are clipped in)."""
    lower, upper = check_bounds(lower, upper)
    bins = check_int(bins, "bins", minimum=1)
    result = dp_histogram(
        values,
        bins,
        epsilon,
        _unused_generator(),
        lower=lower,
        upper=upper,
        mechanism=mechanism,
        delta=delta,
        nan="drop",
    )
    facts = (*_bounds_facts(lower, upper, source), PublicFact("bins", f"{bins} equal bins", source))
    return publish(result, labels=bin_labels(result.bin_edges), public=facts)


def publish_count_matching(mask, condition: str, epsilon, *, mechanism="laplace", delta=None) -> Release:
    """Publish how many rows satisfy a declared condition (``condition`` in words; sensitivity 1)."""
    result = dp_count_matching(mask, epsilon, _unused_generator(), mechanism=mechanism, delta=delta)
    return publish(
        result, labels=(condition,), public=(PublicFact("condition", condition, "declared"),), query="count where"
    )


def _domain_facts(domain, other: bool) -> tuple[PublicFact, ...]:
    listed = ", ".join(map(str, domain))
    rule = f"values outside it counted in {OTHER}" if other else "values outside it left out"
    return (PublicFact("category domain", listed, "declared"), PublicFact("outside the domain", rule, "fixed"))


def publish_category_counts(codes, domain, epsilon, *, other=False, mechanism="laplace", delta=None) -> Release:
    """Publish the count of every category of a declared ``domain`` (absent ones too).

    ``codes`` index into ``domain`` (and ``len(domain)`` means "(other)" when ``other`` is
    declared); each count gets the noise of one count (disjoint categories, add/remove one record).
    """
    domain = tuple(str(d) for d in domain)
    if not domain:
        raise ValueError("domain must list at least one category, got none")
    labels = (*domain, OTHER) if other else domain
    codes = check_category_values(codes, len(labels), "codes")
    result = dp_category_counts(codes, len(labels), epsilon, _unused_generator(), mechanism=mechanism, delta=delta)
    return publish(result, labels=labels, public=_domain_facts(domain, other))


def publish_two_way_table(
    row_codes, column_codes, row_domain, column_domain, epsilon, *, other=False, mechanism="laplace", delta=None
) -> Release:
    """Publish the count of every pair of two declared domains (a cross-tab; absent pairs as noisy zeros).

    A histogram over the product of the domains (:func:`~dpcore.queries.dp_two_way_table`: each cell the noise of
    one count, add/remove one record). ``row_codes`` and ``column_codes`` index their domains, aligned, with
    ``len(domain)`` meaning "(other)" when ``other`` is declared; the cells are labelled ``"row × column"``, row by
    row, from the declared lists alone.
    """
    rows, columns = tuple(str(d) for d in row_domain), tuple(str(d) for d in column_domain)
    if not rows or not columns:
        raise ValueError("both domains must list at least one category, got none")
    if other:
        rows, columns = (*rows, OTHER), (*columns, OTHER)
    shape = (len(rows), len(columns))
    result = dp_two_way_table(
        row_codes, column_codes, shape, epsilon, _unused_generator(), mechanism=mechanism, delta=delta
    )
    rule = f"values outside them counted in {OTHER}" if other else "rows with a value outside them left out"
    facts = (
        PublicFact("row categories", ", ".join(rows[: len(rows) - other]), "declared"),
        PublicFact("column categories", ", ".join(columns[: len(columns) - other]), "declared"),
        PublicFact("outside the domains", rule, "fixed"),
    )
    labels = tuple(f"{r} × {c}" for r in rows for c in columns)
    return publish(result, labels=labels, public=facts, query="two-way table")


def publish_most_common(codes, domain, epsilon) -> Release:
    """Publish the most common value of a declared ``domain`` by the exponential mechanism (score: the count).

    Under add/remove one record one count moves by 1: the score's sensitivity is 1, and value ``k`` is chosen with
    probability ∝ ``exp(−ε (max count − count_k)/2)`` (McSherry & Talwar 2007). The choice is drawn from that law
    exactly (:func:`~dpcore.exact_choice.exact_choice`: ε read as the exact rational it is, a lazily drawn secure
    uniform, a float pass with rigorous error bounds and :mod:`decimal` where they cannot decide): pure ε-DP with no
    floating-point caveat, no value of the domain left with probability 0. A selection, not a numeric answer: no
    lattice is needed for it.
    """
    domain = tuple(str(d) for d in domain)
    if not domain:
        raise ValueError("domain must list at least one category, got none")
    epsilon = check_epsilon(epsilon)
    codes = check_category_values(codes, len(domain), "codes")
    counts = np.bincount(codes, minlength=len(domain)).astype(np.int64)
    gaps = counts.max() - counts  # c_k = (ε/2)·(max count − count_k), exactly
    chosen = exact_choice(np.ones(len(domain), dtype=np.int64), gaps, (Fraction(epsilon) / 2,), SecureGenerator())
    return _published(
        query="most common",
        value=domain[chosen],
        labels=("most common value",),
        mechanism=(
            "exponential mechanism over the declared domain (score: the count, sensitivity 1), its law sampled "
            "exactly from secure bits"
        ),
        epsilon=epsilon,
        public=_domain_facts(domain, False),
    )


#: The frequency oracles a local publication may use, by name: the registry's local families.
LOCAL_ORACLES = tuple(f.name for f in families.local())


def _reports_fact(n: int) -> PublicFact:
    # under replace-one the number of people is the same in every neighbour: the aggregator receives n reports
    return PublicFact("number of reports n (every row reports)", f"{n:,}", "relation")


def publish_local_counts(codes, domain, oracle, epsilon, *, valid_histogram=False) -> Release:
    """Publish category counts estimated from local reports: each person's value randomized with secure bits.

    Every row reports, so that the number of reports is the number of rows, which is what replace-one leaves
    public: ``codes`` index the declared ``domain`` followed by "(other)", where a value outside the domain and a
    missing value report (a person who sent nothing would reveal, by the count of reports, how many hold values
    outside the list). The reports are what would leave each device (GRR, SUE or OUE at ε, Wang et al. 2017); the
    aggregator's unbiased estimate is published (optionally projected onto a valid histogram: post-processing,
    free). ε-LDP, hence ε-DP under replace one record. GRR keeps a report with a 53-bit uniform below p (its
    probability off by at most 2⁻⁵³); SUE and OUE draw each bit against an integer threshold rounded so that the
    privacy loss can only fall (see their ``perturb``). ``oracle`` is a local family of :mod:`dpcore.families`, by
    its key or its name (``"oue"``, ``"OUE"``, one of :data:`LOCAL_ORACLES`).
    """
    domain = tuple(str(d) for d in domain)
    if not domain:
        raise ValueError("domain must list at least one category, got none")
    labels = (*domain, OTHER)
    try:
        family = families.family(oracle)  # a local family of the registry, by its key or name
    except ValueError:
        family = None
    if family not in families.local():
        raise ValueError(f"oracle must be one of {', '.join(LOCAL_ORACLES)}, got {oracle!r}")
    codes = check_category_values(codes, len(labels), "codes")
    mechanism = family.counts(epsilon, len(labels)).mechanism
    reports = mechanism.perturb(codes, SecureGenerator())
    estimate = mechanism.estimate(mechanism.support(reports), codes.size)
    if valid_histogram:
        estimate = project_to_histogram(estimate, codes.size)
    facts = (
        PublicFact("category domain", ", ".join(domain), "declared"),
        PublicFact("outside the domain", f"values outside it, and missing ones, report {OTHER}", "fixed"),
        _reports_fact(codes.size),
    )
    projected = ", projected onto a valid histogram (Norm-Sub)" if valid_histogram else ""
    return _published(  # no single noise std: it depends on each category's count (the report's error bound)
        query="local counts",
        value=as_tuple(estimate),
        labels=labels,
        mechanism=f"{family.name} local randomizer on every report; the aggregator's unbiased estimate{projected}",
        epsilon=mechanism.epsilon,
        relation=REPLACE_ONE,
        public=facts,
    )


def publish_local_mean(values, lower, upper, epsilon, *, source="declared") -> Release:
    """Publish a mean estimated from local reports: each value clipped to the declared bounds, rounded and randomized.

    Ding, Kulkarni and Yekhanin (2017)'s one-bit mean (:class:`~dpcore.ldp_mean.LDPMean`) with secure bits; ε-DP
    under replace one record. Every row reports, so the number of reports is the number of rows: a missing or
    non-finite value reports the midpoint of the bounds (a rule fixed in advance; dropping it would let the count
    of reports tell how many values are missing).
    """
    lower, upper = check_bounds(lower, upper)
    mechanism = LDPMean(epsilon, lower, upper)
    arr = np.asarray(values, dtype=np.float64).ravel()
    arr = np.where(np.isfinite(arr), arr, (lower + upper) / 2.0)
    reports = mechanism.perturb(arr, SecureGenerator())
    facts = (
        *_bounds_facts(lower, upper, source),
        PublicFact("missing values", f"report the midpoint {(lower + upper) / 2:g}", "fixed"),
        _reports_fact(arr.size),
    )
    return _published(
        query="local mean",
        value=as_tuple(mechanism.estimate(reports)),
        labels=("value",),
        mechanism="One-bit local mean (randomized rounding to the bounds, then binary randomized response)",
        epsilon=mechanism.epsilon,
        relation=REPLACE_ONE,
        public=facts,
    )


def _svt_release(query, value, labels, mechanism, epsilon, public) -> Release:
    return _published(
        query=query, value=value, labels=labels, mechanism=mechanism, epsilon=check_epsilon(epsilon), public=public
    )


def publish_clipping_bound(values, largest, n_candidates, epsilon, *, source="declared") -> Release:
    """Publish a clipping bound chosen by AboveThreshold among ``n_candidates`` evenly spaced up to the declared
    ``largest`` (Lyu, Su, Li 2017; :func:`~dpcore.clipping.choose_clipping_bound`), ε-DP under add/remove one record.

    The comparisons are exact: the integer counts −#{x > b} against exact discrete Laplace noise from secure bits
    (``exact=True``: Dwork & Roth 2014, Thm 3.23, holds for discrete noise on integer queries); what is
    released is one of the candidates, all fixed before the data is read."""
    candidates = evenly_spaced_candidates(largest, n_candidates)
    arr = np.asarray(values, dtype=np.float64)
    bound = choose_clipping_bound(arr[np.isfinite(arr)], candidates, epsilon, SecureGenerator(), exact=True)
    facts = (PublicFact("candidate bounds", f"{n_candidates} evenly spaced up to {largest:g}", source),)
    return _svt_release(
        "clipping bound", float(bound), ("chosen bound",), "AboveThreshold over the candidate bounds", epsilon, facts
    )


def publish_automatic_mean(values, largest, n_candidates, epsilon, *, source="declared") -> Release:
    """Publish a mean without clipping bounds given: AboveThreshold picks the bound among ``n_candidates`` evenly
    spaced up to the declared ``largest``, then a noisy sum over a noisy count on the lattice (ε/3 each;
    :func:`~dpcore.clipping.auto_mean`), ε-DP under add/remove one record."""
    candidates = evenly_spaced_candidates(largest, n_candidates)
    arr = np.asarray(values, dtype=np.float64)
    result = auto_mean(arr[np.isfinite(arr)], candidates, epsilon, SecureGenerator(), lattice=True, exact=True)
    facts = (PublicFact("candidate bounds", f"{n_candidates} evenly spaced up to {largest:g}", source),)
    return _svt_release(
        "automatic mean",
        (float(result.noisy_value), float(result.bound)),
        ("mean", "bound it chose"),
        "AboveThreshold for the bound (ε/3), then Laplace noisy sum and count on a lattice (ε/3 each)",
        epsilon,
        facts,
    )


def publish_range_counts(values, ranges, threshold, c, epsilon) -> Release:
    """Publish which of the declared ``ranges`` hold more than the declared ``threshold`` rows, and their counts, by
    the sparse vector technique (at most ``c`` answered: ε/2 to find them, ε/2 to answer on the lattice; Dwork & Roth
    2014, Algorithm 2; Lyu, Su, Li 2017). The release lists the ranges found above the threshold with their noisy
    counts; every other declared range was found below it (or came after the c-th answer), which is released too."""
    ranges = np.asarray(ranges, dtype=np.float64).reshape(-1, 2)
    arr = np.sort(np.asarray(values, dtype=np.float64)[np.isfinite(np.asarray(values, dtype=np.float64))])
    true = np.searchsorted(arr, ranges[:, 1], "right") - np.searchsorted(arr, ranges[:, 0], "left")
    answered = dict(
        range_query_svt(
            true.astype(np.float64), float(threshold), int(c), epsilon, SecureGenerator(), lattice=True, exact=True
        )
    )
    labels = tuple(f"[{a:g}, {b:g}]" for a, b in ranges)
    facts = (
        PublicFact("ranges", "; ".join(labels), "declared"),
        PublicFact("threshold", f"{threshold:g} rows", "declared"),
        PublicFact("most answers c", str(int(c)), "declared"),
    )
    found = sorted(answered)
    mechanism = "sparse vector technique (the ranges not listed were found below the threshold), answers on a lattice"
    value = tuple(float(answered[i]) for i in found)
    return _svt_release("range counts", value, tuple(labels[i] for i in found), mechanism, epsilon, facts)


#: The label of a published model's intercept.
INTERCEPT = "(intercept)"


def publish_logistic_regression(
    X,
    y,
    feature_names,
    *,
    epsilon: float,
    delta: float,
    iterations: int,
    clip: float,
    learning_rate: float = 1.0,
    l2: float = 0.0,
    clipping: str = "gradient",
    public=(),
) -> Release:
    """Publish a logistic regression trained by noisy gradient descent on a grid, with secure noise.

    The run of :func:`dpcore.learning.published.lattice_gradient_descent` with a
    :class:`~dpcore.randomness.SecureGenerator`: a noisy count of the rows, then ``iterations`` sums of clipped
    per-example gradients, each example's gradient rounded to the grid γ and the sum given exact discrete Gaussian
    noise (Canonne, Kamath & Steinke 2020, Theorem 14), all T + 1 releases calibrated together by zCDP to
    (ε, δ) under add/remove one record (its module notes prove the rounded sum's sensitivity ``C + γ√p``).

    What is published: the coefficients, named by ``feature_names``, and the intercept. Nothing in it depends on
    the data except through the noisy releases: the labels are the declared names, the scaling of the features is
    the caller's declared map, and the number of rows appears only as the noisy count (a released public fact).

    Parameters
    ----------
    X : array_like of float, shape (n, d)
        Features built from declared facts alone (:func:`explorer.features.declared_features` maps each into
        [−1, 1] by declared bounds or one-hot over a declared domain); finite.
    y : array_like of {0, 1}, shape (n,)
        Labels by a declared rule.
    feature_names : sequence of str
        One declared name per column of ``X``, distinct.
    epsilon : float
        Total ε, in (0, inf).
    delta : float
        Total δ, in (0, 1).
    iterations : int
        T, in [1, MAX_TRAINING_STEPS].
    clip : float
        The clipping norm C, in (0, inf).
    learning_rate : float, default 1.0
        η, in (0, inf).
    l2 : float, default 0.0
        λ, in [0, inf) (not on the intercept).
    clipping : {"gradient", "example"}, default "gradient"
    public : sequence of PublicFact, default ()
        The declarations ``X`` and ``y`` were built from (bounds, domains, the label's rule).

    Returns
    -------
    Release
        ``query="logistic regression"``; ε is the zCDP conversion of the run's ρ, at most ``epsilon``.
    """
    names = (feature_names,) if isinstance(feature_names, str) else tuple(feature_names)
    bad = [name for name in names if not (isinstance(name, str) and name)]
    if bad:
        raise TypeError(f"feature_names must be non-empty strings, got {bad[0]!r}")
    repeated = sorted({name for name in names if names.count(name) > 1 or name == INTERCEPT})
    if repeated:
        raise ValueError(f"feature_names must be distinct and other than {INTERCEPT}, got {repeated[0]!r}")
    columns = np.shape(X)[1] if np.ndim(X) == 2 else None
    if columns is not None and columns != len(names):
        raise ValueError(f"feature_names must name each of the {columns} column(s) of X, got {len(names)} name(s)")
    run = lattice_gradient_descent(
        X,
        y,
        epsilon=epsilon,
        delta=delta,
        iterations=iterations,
        clip=clip,
        rng=SecureGenerator(),
        learning_rate=learning_rate,
        l2=l2,
        clipping=clipping,
    )
    noise = run.noise
    grid = "2" + str(int(math.log2(noise.grid))).translate(_SUPERSCRIPT)
    facts = (
        *public,
        PublicFact("iterations T", str(noise.iterations), "declared"),
        PublicFact("clipping norm C", f"{noise.clip:g} ({clipping} clipping)", "declared"),
        PublicFact("learning rate η", f"{learning_rate:g}", "declared"),
        PublicFact("L2 penalty λ", f"{l2:g}", "declared"),
        PublicFact(
            "grid γ",
            f"{grid} (γ√p ≤ C/100: the sensitivity of a rounded sum is at most C + γ√p = {noise.sensitivity:.6g})",
            "fixed",
        ),
        PublicFact(
            "noise of each gradient coordinate",
            f"discrete Gaussian, σ = {noise.sigma:.6g} (σ² = {noise.sigma2_units:,} grid steps²)",
            "fixed",
        ),
        PublicFact("number of rows (noisy count)", f"{run.noisy_count:,}", "released"),
    )
    mechanism = (
        f"noisy gradient descent (full batch, T = {noise.iterations}): a noisy count of the rows, then each "
        f"iteration's sum of clipped gradients rounded to a {grid} grid with exact discrete Gaussian noise; "
        f"{noise.releases} releases composed by zCDP (ρ = {noise.rho:.6g})"
    )
    return _published(
        query="logistic regression",
        value=as_tuple(run.weights),
        labels=(*names, INTERCEPT),
        mechanism=mechanism,
        epsilon=noise.epsilon_spent,
        delta=noise.delta,
        public=facts,
    )


#: Grid points a published quantile may take over its range, at most: 2⁵² steps keep ``lower + j·grid`` exact.
_QUANTILE_MAX_STEPS = 1 << 52


def publish_quantile(values, q, lower, upper, epsilon, *, grid=None, source="declared") -> Release:
    """Publish the ``q``-quantile of ``values`` over the declared ``[lower, upper]`` by the exponential mechanism.

    :class:`~dpcore.quantiles.ExponentialQuantile` (Smith 2011): the values clipped to the declared range (missing
    ones left out), an interval between consecutive sorted values chosen with probability ∝ length ·
    ``exp(ε u / (2Δu))``, ``u = −|rank − q·n|``, ``Δu = max(q, 1 − q)``; ε-DP under add/remove one record.

    How it is drawn, exactly (pure ε-DP, no floating-point caveat):

    * **the interval**: :func:`~dpcore.exact_choice.exact_choice` draws ``k`` with probability exactly
      ∝ ``(right_k − left_k)·exp(−ε (|r_k − q·n| − min_j |r_j − q·n|)/(2Δu))``, every quantity read as the exact
      rational it is (ε and q as floats, ``Δu = max(q, 1 − q)`` computed exactly, the lengths as exact differences
      of the sorted values): a lazily drawn secure uniform, a float pass with rigorous error bounds, and
      :mod:`decimal` at growing precision on the rare draws those bounds cannot decide. No interval has probability
      0, however small its weight (the float inverse CDF used before gave an uncharged δ ≤ (1 + e^ε)(m + 1)·2⁻⁵²);
    * **the point**: a point uniform in the interval, rounded to the nearest point of the declared ``grid``
      (``lower + j·grid``; post-processing: free), drawn as ``j`` itself, exactly
      (:func:`~dpcore.exact_choice.nearest_grid_index`: rational arithmetic on lazily drawn secure bits). The
      published number is a function of ``j`` and declared facts only, so its floating-point digits cannot tell the
      interval's ends (the order statistics) the way an unrounded ``left + U·(right − left)`` could (Mironov 2012's
      attack on noise digits).

    Parameters
    ----------
    values : array_like
        The column; NaN are left out (the count of them is not released).
    q : float
        The quantile, in [0, 1] (0.5: the median).
    lower, upper : float
        The declared range.
    epsilon : float
        In (0, inf).
    grid : float, optional
        The step of the published value, in (0, upper − lower], at least ``(upper − lower)/2⁵²``. Default: the
        largest power of two at most ``(upper − lower)/10⁶`` (a rule fixed in advance, read from the bounds alone).
    source : str, default "declared"
        Where the bounds came from.
    """
    from dpcore.quantiles import ExponentialQuantile
    from dpcore.validation import check_positive

    mechanism = ExponentialQuantile(epsilon, lower, upper, q)  # validates ε first, then the range and q
    width = mechanism.width
    grid_source = "fixed" if grid is None else "declared"
    grid = 2.0 ** math.floor(math.log2(width / 1e6)) if grid is None else check_positive(grid, "grid")
    if not width / _QUANTILE_MAX_STEPS <= grid <= width:
        raise ValueError(
            f"grid must be in [{width / _QUANTILE_MAX_STEPS:g}, {width:g}] (the range's width), got {grid:g}"
        )
    law = mechanism.intervals(values, nan="drop")
    q = Fraction(mechanism.q)
    sensitivity = max(q, 1 - q) if mechanism.relation is ADD_REMOVE else Fraction(1)  # Δu exactly (module notes)
    coefficients, bases = quantile_exponents(
        law.ranks, mechanism.q, law.n, Fraction(mechanism.epsilon) / (2 * sensitivity)
    )
    rng = SecureGenerator()
    k = exact_choice(None, coefficients, bases, rng, left=law.left, right=law.right)
    steps = round(width / grid)
    j = min(max(nearest_grid_index(law.left[k], law.right[k], mechanism.lower, grid, rng), 0), steps)
    value = min(mechanism.lower + j * grid, mechanism.upper)
    label = "median" if mechanism.q == 0.5 else f"{mechanism.q:g}-quantile"
    facts = (
        PublicFact("lower bound of the range", f"{mechanism.lower:g}", source),
        PublicFact("upper bound of the range", f"{mechanism.upper:g}", source),
        PublicFact("quantile q", f"{mechanism.q:g}", "declared"),
        PublicFact("grid of the published value", f"{grid:g}", grid_source),
        PublicFact("values outside the range", "clipped to it; missing values left out", "fixed"),
    )
    return _published(
        query="quantile",
        value=float(value),
        labels=(label,),
        mechanism=(
            f"exponential mechanism over the intervals between the sorted clipped values (Smith 2011), score "
            f"−|rank − q·n| with Δu = {mechanism.sensitivity:g}; the interval and the grid point, a uniform point of "
            "it rounded to the grid, sampled exactly from secure bits"
        ),
        epsilon=mechanism.epsilon,
        public=facts,
    )
