"""Plain words for every refusal: every URL parameter of every page at its extremes, and each sentence the page shows.

A link is the one input anyone controls, and what a page says back to it is read by a student: a refusal names what
the user set, in the words of the page (a widget's label, not ``lrn_fed_sigma``), with the range it allows; it never
shows an internal name (an identifier with an underscore), ``nan``, ``inf`` or ``None`` the user did not type, "this
page was given", or a Python exception's class.

The sweep, per page: each view of the page (:data:`VIEWS`) is opened once and the URL parameters it binds are read
from its widgets (each widget's ``query_param_key``), each in the first view that shows it; the sidebar's seed and
trials are swept on the Overview only. Every numeric parameter (number inputs, sliders, select sliders) is given
every value of :data:`VALUES`:

- the values its widget refuses (outside its range, not a number, not one of its options; read from the widget's
  own limits) are set together, one per parameter, in a few links per view: the widget keeps its value and the frame
  says so in one notice per parameter, which is what is checked;
- the values its widget accepts reach the page's computations, so each is set alone, in a link of its own.

Every view opened is also read for the options its pickers show (selectboxes, radios, multiselects, select
sliders, as displayed, after their ``format_func``): none may be one of dpcore's keys in code's form (``balle``,
``bun-steinke``, ``laplace_count``, ``zcdp``; :func:`option_problems`), where a person reads a plain name and the
link may still carry the key.

Parameters that only differ by the column they are about (``cen_lower_age``, ``lrn_pub_lower_hours-per-week``) are
swept on the first column. The other parameters (choices, toggles, text) get one link per view, all set to the empty
string. Each link is a new session opened directly on its page.
"""

from __future__ import annotations

import functools
import math
import re

import pytest
from streamlit.testing.v1 import AppTest

from dpcore.audit import BROKEN, CATALOGUE
from explorer.learning_dp_sgd import SGD_PARTS
from explorer.learning_fedavg import FED_PARTS
from explorer.learning_noisy_gd import NGD_PARTS
from tests.apptest import PAGES, ROOT
from tests.test_url_extremes import VIEWS as EXTREME_VIEWS

HUGE = str(10**40)  # a huge integer, as a link carries it
VALUES = ("0", "-1", "1e-320", "1e-300", "1e300", "1e308", "nan", "inf", "-inf", HUGE, "")

#: Every view of every page, by the link that opens it (test_url_extremes' list, with the parts it leaves out).
VIEWS = [
    ("data", {}),
    *EXTREME_VIEWS,
    ("audit", {"aud_view": "Floating-point attack"}),
    *[("audit", {"aud_mechanism": name, "aud_broken": broken}) for name in BROKEN for broken in BROKEN[name]],
    *[("learning", {"lrn_ngd_part": part}) for part in NGD_PARTS[1:]],
    ("learning", {"lrn_view": "DP-SGD", "lrn_sgd_part": SGD_PARTS[2]}),
    *[("learning", {"lrn_view": "Federated averaging", "lrn_fed_part": part}) for part in FED_PARTS[1:]],
]
#: The switches between views: tabs are containers, not widgets, so the discovery does not see them; nor the pickers
#: that show plain names and write their key into the link themselves (audit_layout.keyed_select: the Audit's, the
#: Accountant's conversions and ledger accounting).
SWITCHES = {
    "accountant": ("acc_conversion", "acc_zcdp_conversion", "acc_budget_method"),
    "local": ("ldp_view",),
    "svt": ("svt_view",),
    "audit": ("aud_view", "aud_mechanism", "aud_broken"),
    "learning": ("lrn_view", "lrn_ngd_part", "lrn_sgd_part", "lrn_fed_part"),
    "people": ("ppl_view",),
}
#: Parameters of the sidebar, the same on every page: swept on the Overview.
SIDEBAR = ("seed", "trials")
NUMERIC = ("number_input", "slider", "select_slider")
OTHER = ("selectbox", "radio", "multiselect", "checkbox", "toggle", "text_area", "text_input")
#: Column names of the demo tables: a sentence may name a column, underscore and all.
DEMO_COLUMNS = {
    "age_group",
    "faculty",
    "satisfaction",
    "study_hours_per_week",
    "cheated_on_exam",
    "patient_id",
    "visit_date",
}

# --------------------------------------------------------------------------- the checks of one sentence

_IDENTIFIER = re.compile(r"\b[^\W\d_]\w*_\w+\b")  # a letter, then an underscore somewhere: epsilon_ref, q_b, n_clients
_NAN = re.compile(r"\bnan\b", re.IGNORECASE)
_INF = re.compile(r"\b(inf|infinity)\b", re.IGNORECASE)
_NONE = re.compile(r"\bNone\b(?! of\b)")  # Python's None; "None of the clients" is English
_EXCEPTION = re.compile(r"\b[A-Z]\w*(Error|Exception)\b")
_REFUSAL = re.compile(
    r"must be|must lie|must have|must hold|not allowed|is refused|out of range|too (large|small|big|many|few|long)",
    re.IGNORECASE,
)
_RANGE = re.compile(
    r"\b(between|at least|at most|above|below|up to|one of|or more|or less|no more than|no less than|more than|"
    r"less than|from [^;:]{1,40}? to|a whole number|a finite number|within)\b|\bin [\[(]",
    re.IGNORECASE,
)


def shown_text(markdown: str) -> str:
    """What a reader sees of Markdown a page wrote: escapes and word joiners gone."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def word_problems(text: str, typed: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with one message the page shows, given the values the link carried (``typed``)."""
    typed_words = " ".join(typed).lower()
    found = []
    names = [n for n in _IDENTIFIER.findall(text) if n not in DEMO_COLUMNS and n.lower() not in typed_words]
    if names:
        found.append(f"internal name {names[0]!r}")
    if _NAN.search(text) and "nan" not in typed_words:
        found.append("nan the user did not type")
    if _INF.search(text) and "inf" not in typed_words:
        found.append("inf the user did not type")
    if _NONE.search(text):
        found.append("None")
    if "this page was given" in text.lower():
        found.append("'this page was given'")
    if m := _EXCEPTION.search(text):
        found.append(f"exception class {m.group(0)!r}")
    if "something unexpected" in text.lower() or text.startswith("exception "):
        found.append("an unexpected error, not a refusal")
    if _REFUSAL.search(text) and not _RANGE.search(text):
        found.append("a refusal without the allowed range")
    return found


# negative and positive controls: the checks catch the sentences the issue found, and let correct ones through
BAD = [
    ("Epsilon_ref must be in (0, inf), got 0.0.", ("1e-300",)),
    ("Rdp must be in [0, inf], got nan.", ("1e300",)),
    ("σ must be above 0; this page was given 0.0.", ("1e-320",)),
    ("The link set lrn_fed_sigma = 1e300, which is not allowed here; showing 1 instead.", ("1e300",)),
    ("Something unexpected went wrong while drawing this page (ZeroDivisionError).", ("0",)),
    ("Something unexpected went wrong while drawing this page. Try other settings.", ("-inf",)),
    ("The clipping norm is not allowed here.", ("0",)),
    ("The learning rate must be positive, got None.", ("",)),
]
GOOD = [
    ("ε must be above 0 (it was 0).", ("0",)),
    (
        "The link set **Noise multiplier σ** to nan, which is not allowed here: it takes a number from 0.1 to 10,000; "
        "showing 1 instead.",
        ("nan",),
    ),
    ("The number of bins must be a whole number from 2 to 50.", ("80",)),
    ("The lower clipping bound (90) must be below the upper clipping bound (17).", ("90",)),
    ("This dataset has no numeric column; upload one on the Data page.", ("",)),
    ("Count of study_hours_per_week: 2,000 rows.", ("",)),
]


@pytest.mark.parametrize("text, typed", BAD)
def test_the_checks_catch_the_sentences_the_issue_found(text, typed):
    assert word_problems(text, typed), text


@pytest.mark.parametrize("text, typed", GOOD)
def test_the_checks_let_a_plain_sentence_through(text, typed):
    assert not word_problems(text, typed), word_problems(text, typed)


def test_a_name_the_user_typed_may_be_repeated():
    text = "The link set **Mechanism** to laplace_cont, which is not allowed here: it takes one of the 26 in its list."
    assert not word_problems(text, ("laplace_cont",)) and word_problems(text, ("0",))


def test_a_non_finite_value_the_user_typed_may_be_repeated():
    text = "The link set **ε, privacy loss** to inf, which is not allowed here: it takes one of its 31 steps, from 0.01 to 10."
    assert not word_problems(text, ("inf",)) and word_problems(text, ("0",))


# --------------------------------------------------------------------------- the options a picker shows

#: A lowercase name in code's form, words joined by "_" or "-": laplace_count, bun-steinke.
_CODE_FORM = re.compile(r"^[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+$")


@functools.cache
def internal_keys() -> frozenset[str]:
    """dpcore's keys of accounting methods, conversions and mechanism families that are not their own plain name
    (``basic`` is; ``rdp``, ``balle``, ``laplace`` are not). Keys in code's form are caught by their form."""
    from dpcore import accounting, families
    from dpcore.accounting.per_release import METHOD_NAMES

    keys = {
        *accounting.CONVERSIONS,
        *accounting.ZCDP_CONVERSIONS,
        *accounting.LEDGER_METHODS,
        *METHOD_NAMES,
        *families.FAMILIES,
    }
    return frozenset(keys - set(METHOD_NAMES.values()))


@functools.cache
def data_columns() -> frozenset[str]:
    """The columns of the demo tables: a picker of columns shows the data's own names, hyphens and all."""
    from explorer.dataset import DEMO_DATASETS, load_demo

    return frozenset(str(c) for name in DEMO_DATASETS for c in load_demo(name).frame.columns) | DEMO_COLUMNS


def option_problems(options) -> list[str]:
    """The options, as a picker displays them, that are internal keys rather than plain names."""
    internal, columns = internal_keys(), data_columns()
    return [
        f"option {o!r} is an internal key"
        for o in map(str, options)
        if o in internal or (_CODE_FORM.match(o) and o not in columns)
    ]


#: The pickers whose options the sweep reads.
PICKERS = ("selectbox", "radio", "multiselect", "select_slider")


def shown_options(at: AppTest) -> list[str]:
    """Every option every picker of the page shows, as displayed (after its format_func)."""
    return [str(o) for kind in PICKERS for w in at.get(kind) for o in w.proto.options]


def test_the_options_check_catches_internal_keys_and_lets_plain_names_through():
    # negative controls: what the Accountant showed (issue 24), and keys in code's form
    for bad in (
        "balle",
        "mironov",
        "cks",
        "bun-steinke",
        "best",
        "rdp",
        "zcdp",
        "laplace_count",
        "laplace",
        "no_cutoff",
    ):
        assert option_problems([bad]), bad
    # positive controls: plain names, a demo column, numbers
    good = [
        "Balle et al. 2020 (tighter)",
        "Bun & Steinke 2016 (classic)",
        "basic",
        "RDP",
        "Laplace",
        "age_group",
        "0.5",
    ]
    assert not option_problems(good), option_problems(good)


# --------------------------------------------------------------------------- the sweep


def _open(page: str, link: dict) -> AppTest:
    """A new session opened on ``page`` by a link carrying ``link``."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in link.items():
        at.query_params[key] = str(value)
    if page != "home":
        at.switch_page(PAGES[page])
    at.run()
    return at


def _messages(at: AppTest) -> list[str]:
    """Every error, warning and notice on the page (and any exception, which is a problem of its own)."""
    texts = [shown_text(e.value) for kind in (at.error, at.warning, at.info) for e in kind]
    return texts + [f"exception {e.value}" for e in at.exception]


def _widgets(at: AppTest, kinds) -> dict:
    """The URL-bound widgets on the page, by their URL key."""
    found = {}
    for kind in kinds:
        for w in at.get(kind):
            key = getattr(w.proto, "query_param_key", "")
            if key and key not in found:
                found[key] = (kind, w.proto)
    return found


def _accepts(kind: str, proto, value: str) -> bool:
    """Whether the widget takes ``value`` from a link (read from its own limits), so that it reaches the page."""
    if kind == "select_slider":
        return value in list(proto.options)
    try:
        x = float(value)
    except ValueError:
        return False
    if not math.isfinite(x):
        return False
    if kind == "number_input":
        return (not proto.has_min or x >= proto.min) and (not proto.has_max or x <= proto.max)
    return proto.min <= x <= proto.max  # a slider


def _group(key: str, columns) -> str:
    """The parameter a key stands for: keys that only differ by the column they are about, or by the audit (and its
    broken variant) whose parameter they hold, are one parameter of one piece of code."""
    for name in sorted(CATALOGUE, key=len, reverse=True):
        if key.startswith(f"aud_{name}_"):
            param = key[len(f"aud_{name}_") :]
            for broken in BROKEN.get(name, {}):
                param = param.removeprefix(f"{broken}_")
            return f"aud_*_{param}"
    for column in sorted(columns, key=len, reverse=True):
        if key.endswith("_" + column):
            return key[: -len(column)]
    return key


def _links(page: str, options: list[str] | None = None) -> list[tuple[dict, tuple[str, ...]]]:
    """Every link the sweep opens on ``page``, with the values it carries; the views' own runs first. The problems of
    the options each view's pickers show are added to ``options``."""
    links, seen, groups = [], set(SIDEBAR if page != "home" else ()), set()
    from explorer.dataset import load_demo

    columns = [str(c) for c in load_demo("census").frame.columns]
    for n, (p, view) in enumerate(VIEWS):
        if p != page:
            continue
        at = _open(page, view)
        links.append((view, tuple(view.values()), _messages(at)))
        if options is not None:
            options.extend(f"{view} -> {problem}" for problem in option_problems(shown_options(at)))
        first = not any(p == page for p, _ in VIEWS[:n])  # its link's own switches are swept here, once
        numeric = {k: v for k, v in _widgets(at, NUMERIC).items() if k not in seen and k not in view}
        other = [k for k in _widgets(at, OTHER) if k not in seen and (first or k not in view)]
        if first:
            other += [k for k in SWITCHES.get(page, ()) if k not in other]
        seen.update(numeric, other)
        fresh = {}
        for key, (kind, proto) in numeric.items():
            group = _group(key, columns)
            if group not in groups:
                groups.add(group)
                fresh[key] = (kind, proto)
        refused = {k: [v for v in VALUES if not _accepts(kind, proto, v)] for k, (kind, proto) in fresh.items()}
        batches = 3 if page != "home" else len(VALUES)
        for b in range(batches):
            link = {k: vs[(i + b * 4) % len(vs)] for i, (k, vs) in enumerate(refused.items()) if vs}
            if link:
                links.append(({**view, **link}, tuple(link.values()), None))
        for key, (kind, proto) in fresh.items():
            for value in VALUES:
                if _accepts(kind, proto, value):
                    links.append(({**view, key: value}, (value,), None))
        if other:
            links.append(({**view, **dict.fromkeys(other, "")}, ("",), None))
    return links


#: Pages with sentences known not to be plain yet, and why: this list may only shrink (strict: a page that passes
#: fails here until its entry is removed). Empty: every page's widgets are drawn through widgets.bound / widgets.tabs.
KNOWN: dict[str, str] = {}


@pytest.mark.parametrize(
    "page", [pytest.param(p, marks=pytest.mark.xfail(reason=KNOWN[p], strict=True)) if p in KNOWN else p for p in PAGES]
)
def test_every_sentence_a_link_can_bring_about_is_in_plain_words(page):
    failures: list[str] = []
    for link, typed, shown in _links(page, failures):
        messages = shown if shown is not None else _messages(_open(page, link))
        for text in messages:
            if problems := word_problems(text, typed):
                failures.append(f"{link} -> {text!r}: {', '.join(problems)}")
    assert not failures, "\n".join(sorted(set(failures)))
