"""The Learning page's Publish section: a logistic regression by noisy gradient descent, from declared features.

Opened from the noisy gradient descent view (:mod:`explorer.learning_noisy_gd`), laid out like the other pages'
Publish sections (:mod:`explorer.central_publish`): it asks for what the publication must not take from the data
(the value of the target that is label 1; for each feature, numeric bounds or the list of categories), and hands
:func:`explorer.publishing.action` the cost, known before the draw (the view's ε and δ), and the draw, a call to
:func:`dpcore.publish.publish_logistic_regression` on :func:`explorer.features.declared_features`. The simulation
above (its standardisation, its split, its accuracies) is not used: the published model trains on every row of
the file, and only its coefficients are shown.
"""

from __future__ import annotations

import streamlit as st

from dpcore import publish
from dpcore.learning.published import lattice_gd_noise
from explorer import domains, publishing, state, widgets
from explorer.columns import is_numeric
from explorer.features import CategoricalDeclaration, NumericDeclaration, declared_feature_names, declared_features
from explorer.markup import md
from explorer.training import Task

__all__ = ["KINDS", "MAX_DECLARED", "section"]

#: How a feature of the published model is declared.
KINDS = ("numeric, between declared bounds", "categorical, over declared categories")
#: Features this section declares at most: each is three inputs, and the widest legal upload's 999 once took 5.7 s of
#: a 2 s rerun (issue 23). A model of more features is published from code (the snippet's ``dpcore.publish`` call).
MAX_DECLARED = 30


def _declare(column: str, numeric_by_default: bool) -> tuple[object | None, str | None]:
    """One feature's declaration widgets: ``(declaration, None)`` when complete, ``(None, what is missing)`` else."""
    c0, c1, c2 = st.columns([1.1, 1, 1])
    kind = widgets.bound(
        c0.selectbox,
        md(f"{column}"),
        KINDS,
        index=0 if numeric_by_default else 1,
        key=f"lrn_pub_kind_{column}",
        bind="query-params",
        help="What the codebook says this column is. The default follows how the file's column reads.",
    )
    if kind == KINDS[0]:
        lower = widgets.bound(
            c1.number_input,
            md(f"Lower bound of {column} (public)"),
            value=None,
            key=f"lrn_pub_lower_{column}",
            bind="query-params",
            help="Values below are clipped to it; the bounds map the column onto [−1, 1].",
        )
        upper = widgets.bound(
            c2.number_input,
            md(f"Upper bound of {column} (public)"),
            value=None,
            key=f"lrn_pub_upper_{column}",
            bind="query-params",
            help="Values above are clipped to it. A missing value becomes the midpoint.",
        )
        if lower is None or upper is None:
            return None, f"the bounds of {column}"
        try:
            return NumericDeclaration(column, lower, upper), None
        except ValueError as exc:
            c1.warning(md(str(exc)[0].upper() + str(exc)[1:] + "."))
            return None, f"the bounds of {column}"
    text = c1.text_area(
        md(f"Categories of {column} (public), one per line"),
        key=f"lrn_pub_domain_{column}",
        bind="query-params",
        help="Every category the model has a coefficient for, from a codebook: absent ones get one too.",
    )
    other = widgets.bound(
        c2.checkbox,
        "A column for (other)",
        key=f"lrn_pub_other_{column}",
        bind="query-params",
        help="A value outside the list (or a missing one) sets the (other) column; otherwise it sets none. "
        "Declared before the data is read: no count decides it.",
    )
    try:
        values = domains.parse_domain(text)
    except ValueError as exc:
        c1.warning(md(str(exc)[0].upper() + str(exc)[1:] + "."))
        values = []
    if not values:
        return None, f"the categories of {column}"
    return CategoricalDeclaration(column, tuple(values), other), None


def _summarised(missing: dict, listed: int = 3) -> dict:
    """What is still missing, with the features beyond the first ``listed`` counted rather than named (a sentence of
    30 names is not read)."""
    features = [k for k in missing if k.startswith(("the bounds of ", "the categories of "))]
    if len(features) <= listed + 1:
        return missing
    rest = len(features) - listed
    kept = {k: None for k in missing if k not in features[listed:]}
    return {**kept, f"the bounds or categories of {rest} more features": None}


def section(t: Task, epsilon: float, delta: float, iterations: int, clip: float, lr: float, clipping: str) -> None:
    """Publish a model predicting the task's target, with the view's ε, δ, T, C, step size and clipping."""
    ds = state.dataset()
    target = t.target
    what = f"a logistic regression predicting {target}"
    with publishing.section(what):
        st.caption(
            "The published model is trained on every row of the file, from your declarations alone: each numeric "
            "feature clipped to its bounds and mapped onto [−1, 1], each categorical one a column per declared "
            "category. The number of rows is released once as a noisy count, each of the T gradient sums is "
            "rounded to a grid and given exact discrete Gaussian noise, and the T + 1 releases are calibrated "
            "together by zCDP (the discrete Gaussian's guarantee), whatever the accounting chosen above. Only the "
            "coefficients are shown: no accuracy, which would be measured on the private rows."
        )
        positive = (
            st.text_input(
                md(f"Value of {target} that is label 1 (public)"),
                key=f"lrn_pub_positive_{target}",
                bind="query-params",
                help="Typed, not picked from the file's values: every other value (and a missing one) is label 0.",
            ).strip()
            or None
        )
        used = set(t.features.columns_used)  # neither skipped nor left out of the simulation's features
        trained = [c for c in t.columns if c in used]
        chosen = widgets.bound(
            st.multiselect,
            "Features of the published model",
            list(t.columns),
            default=trained[:MAX_DECLARED],
            key="lrn_pub_features",
            bind="query-params",
            max_selections=MAX_DECLARED,
            help=f"Each needs its bounds or its categories declared below; at most {MAX_DECLARED}.",
        )
        if len(trained) > MAX_DECLARED or len(t.columns) > len(trained):
            st.caption(
                f"Preselected: the first {min(len(trained), MAX_DECLARED):,} of the {len(trained):,} columns the "
                f"simulation above trains on (which columns it skips or leaves out is read from the file: check the "
                f"list against your codebook). This section declares at most {MAX_DECLARED} features, three inputs "
                "each, so that the page stays quick."
            )
        missing: dict[str, None] = {}
        if positive is None:
            missing[f"the value of {target} that is label 1"] = None
        if not chosen:
            missing["the features of the model"] = None
        schema = []
        for column in chosen[:MAX_DECLARED]:  # a link may name more: the rest are refused below
            declaration, lacking = _declare(column, is_numeric(ds.frame[column]))
            if declaration is None:
                missing[lacking] = None
            else:
                schema.append(declaration)
        sentence = domains.missing_declarations(**_summarised(missing))
        if len(chosen) > MAX_DECLARED:
            sentence = (
                f"This section publishes a model of at most {MAX_DECLARED} features; the link chose {len(chosen):,}: "
                "remove some from the features of the published model."
            )
        if sentence is None:
            try:
                names = declared_feature_names(schema)
                noise = lattice_gd_noise(epsilon, delta, iterations, clip, len(names) + 1)
            except ValueError as exc:
                sentence = str(exc)[0].upper() + str(exc)[1:] + "."
            else:
                st.caption(
                    f"{len(names)} coefficients and the intercept; {noise.releases} releases, each gradient "
                    f"coordinate with noise σ = {noise.sigma:,.4g} on a grid of {noise.grid:g} "
                    f"(sensitivity {noise.sensitivity:.4g} instead of C = {clip:g})."
                )

        def draw():
            features = declared_features(ds.frame, target, positive, schema)
            return publish.publish_logistic_regression(
                features.X,
                features.y,
                features.feature_names,
                epsilon=epsilon,
                delta=delta,
                iterations=iterations,
                clip=clip,
                learning_rate=lr,
                clipping=clipping,
                public=features.facts,
            )

        publishing.action("lrn_pub", what, (epsilon, delta), draw, sentence)
