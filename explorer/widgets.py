"""Widgets the pages share, each bound to the URL so that a link reproduces the view."""

from __future__ import annotations

import math

import numpy as np
import streamlit as st
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state.query_params import parse_url_param

from dpcore.audit import CATALOGUE
from explorer import state
from explorer.markup import md, number, plain_sentence

__all__ = [
    "WORDS",
    "bound",
    "tabs",
    "described",
    "LARGEST_AMOUNT",
    "within",
    "EPSILON_GRID",
    "DELTA_GRID",
    "TRIAL_CHOICES",
    "epsilon_slider",
    "epsilon_options",
    "TYPED",
    "EPSILON_DIGITS",
    "delta_slider",
    "select",
    "epsilon_for_accuracy",
    "whole_number",
    "fitting_columns",
    "AUDIT_PAGE",
    "AUDIT_MECHANISM",
    "audit_key",
    "audit_link",
    "sync_link",
]

# eps on a log scale: 1-1.25-1.5-2-2.5-3-4-5-6-8 per decade, 0.01 .. 10
EPSILON_GRID = tuple(
    float(f"{m * 10.0**e:.4g}") for e in (-2, -1, 0) for m in (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8)
) + (10.0,)
DELTA_GRID = (1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2)
TRIAL_CHOICES = (100, 300, 1_000, 3_000, 10_000)


# ---------------------------------------------------------------------- what each URL-bound widget is called

#: Session-state key of what the page calls each URL-bound widget and what it takes, by the widget's key: the words
#: of the notice the frame shows when a link carries a value the widget refused (never the key itself).
WORDS = "_widget_words"
#: The most choices a notice lists (a column picker may offer hundreds).
LISTED_CHOICES = 6


#: The largest magnitude a page takes for an amount in the data's units (a clipping bound, an accuracy, a
#: sensitivity): beyond it a width, a sensitivity or a noise scale soon leaves a float's range, and a float's whole
#: numbers end near 9·10¹⁵.
LARGEST_AMOUNT = 1e15


def within(x: float) -> float:
    """``x`` brought within ±:data:`LARGEST_AMOUNT` (a default read from the data must be one the input takes)."""
    return float(min(max(x, -LARGEST_AMOUNT), LARGEST_AMOUNT))


def _describe(key: str, label: str, allowed: str) -> None:
    st.session_state.setdefault(WORDS, {})[key] = (label, allowed)


def described(key: str) -> tuple[str, str] | None:
    """The label and the allowed values (in words) of the URL-bound widget ``key``, as it was last drawn."""
    return st.session_state.get(WORDS, {}).get(key)


def _limit(x) -> str:
    return f"{int(x):,}" if float(x).is_integer() and abs(x) < 1e15 else number(float(x))


def _number_range(lo, hi, whole: bool) -> str:
    what = "a whole number" if whole else "a number"
    if lo is not None and hi is not None:
        return f"{what} from {_limit(lo)} to {_limit(hi)}"
    if lo is not None:
        return f"{what} of at least {_limit(lo)}"
    if hi is not None:
        return f"{what} of at most {_limit(hi)}"
    return f"{what} between {number(-1.7e308)} and {number(1.7e308)}"


def _choices(options, format_func=str, steps: bool = False) -> str:
    """The choices of a widget in words: a few listed; a slider's steps by their ends; a long list (or one of names
    in code's form, which the list itself shows) by its length."""
    shown = [str(format_func(o)) for o in options]
    if steps and len(shown) > LISTED_CHOICES:
        return f"one of its {len(shown):,} steps, from {shown[0]} to {shown[-1]}"
    if len(shown) > LISTED_CHOICES or any("_" in s for s in shown):
        return f"one of the {len(shown):,} in its list"
    return "one of " + (f"{', '.join(shown[:-1])} or {shown[-1]}" if len(shown) > 1 else "".join(shown))


def _allowed(kind: str, args: tuple, kw: dict) -> str:
    """What a widget of ``kind`` made with these arguments takes, in words (read from its own limits)."""
    if kind == "number_input":
        lo = kw.get("min_value", args[0] if args else None)
        hi = kw.get("max_value", args[1] if len(args) > 1 else None)
        whole = str(kw.get("format", "")).endswith(".0f") or isinstance(kw.get("step", 0.5), int)
        return _number_range(lo, hi, whole)
    if kind == "slider":
        lo = kw.get("min_value", args[0] if args else 0)
        hi = kw.get("max_value", args[1] if len(args) > 1 else 100)
        return _number_range(lo, hi, isinstance(lo, int) and isinstance(hi, int))
    if kind in ("checkbox", "toggle"):
        return "one of true or false"
    options = kw.get("options", args[0] if args else ())
    return _choices(options, kw.get("format_func", str), steps=kind == "select_slider")


def bound(make, label: str, *args, key: str, name: str | None = None, **kw):
    """``make(label, *args, key=key, bind="query-params", **kw)``: a Streamlit widget bound to the URL, whose label
    and allowed values (read from its arguments) the frame's notice about a refused link value says.

    ``make`` is the widget's function or a container's (``st.number_input``, ``c1.select_slider``); ``name`` is the
    label said in the notice, when the widget's own is long.
    """
    kw.pop("bind", None)
    kind = getattr(make, "__name__", "")
    _describe(key, name or label, _allowed(kind, args, kw))
    return make(label, *args, key=key, bind="query-params", **kw)


def tabs(labels, key: str, name: str = "View"):
    """``st.tabs`` bound to the URL by ``key`` (only the open tab runs); a refused link value is named as ``name``."""
    _describe(key, name, _choices(labels))
    return st.tabs(list(labels), key=key, bind="query-params")


def _number_label(v: float) -> str:
    # the label is also what the URL carries: keep it the plain number
    return f"{v:g}"


#: Suffix of the key of the box beside each ε slider where ε is typed (not in the link: the slider's key is).
TYPED = "_typed"
#: Suffix of the session key holding the ε an ε slider had when it was last drawn (see :func:`_typed`).
SHOWN = "_shown"
#: Significant digits of a typed ε (the slider's label, and so the link, shows it exactly).
EPSILON_DIGITS = 4


def _epsilon_value(v) -> float | None:
    """``v`` (a link's text or a session value) as an ε the slider takes beside its grid, or None: a number from
    the grid's least to its largest with at most :data:`EPSILON_DIGITS` significant digits, written as the slider
    writes it (a link's ``0.70`` is refused as ``1.0`` is: the slider's label is ``0.7``)."""
    try:
        x = float(v)
    except (TypeError, ValueError):
        return None
    if not (EPSILON_GRID[0] <= x <= EPSILON_GRID[-1]) or x != float(f"{x:.{EPSILON_DIGITS}g}"):
        return None
    if isinstance(v, str) and v != _number_label(x):
        return None
    return x


def epsilon_options(key: str) -> tuple[float, ...]:
    """The ε slider ``key``'s options: the grid, and the ε it holds or its link carries when that is off the grid
    (typed, or a link made from a typed ε)."""
    extra = {_epsilon_value(v) for v in (st.session_state.get(key), st.query_params.get(key))} - {None}
    return tuple(sorted(set(EPSILON_GRID) | extra))


def _typed(key: str) -> None:
    """The box's callback: its ε, rounded to :data:`EPSILON_DIGITS` significant digits, becomes the slider's.

    Unless the slider moved in the same rerun: then the box's value is the one the browser showed before the
    server's last run had set the box to the slider (a key press sends every widget's value, and the box's may be a
    run behind), and taking it would undo the move (three quick ArrowRight presses on Local DP's ε came back to
    where they started, one time in two). Streamlit runs callbacks after it has taken the browser's new values,
    so ``st.session_state[key]`` here is the slider's value for this rerun and :data:`SHOWN` the one it had in the
    last run.
    """
    if key + SHOWN in st.session_state and st.session_state.get(key) != st.session_state[key + SHOWN]:
        return
    typed = st.session_state.get(key + TYPED)
    if typed is not None and math.isfinite(typed):
        st.session_state[key] = float(f"{min(max(typed, EPSILON_GRID[0]), EPSILON_GRID[-1]):.{EPSILON_DIGITS}g}")


def epsilon_slider(key: str, label: str = "ε, privacy loss", default: float = 1.0, help: str | None = None) -> float:
    """ε on a log scale from 0.01 (more private) to 10 (more accurate), bound to the URL, and a box beside it where
    ε is typed (any value in that range, to 4 significant digits; the box follows the slider, and the link carries
    the slider's key alone)."""
    eps = bound(
        st.select_slider,
        f"{label}  ·  ← more private | more accurate →",
        name=label,
        options=epsilon_options(key),
        value=default,
        format_func=_number_label,
        key=key,
        bind="query-params",
        help=help
        or "Smaller ε means more noise and stronger privacy: an observer's odds about any one person "
        "change by at most a factor e^ε.",
    )
    _describe(
        key,
        label,
        f"a number from {EPSILON_GRID[0]:g} to {EPSILON_GRID[-1]:g} with at most {EPSILON_DIGITS} significant digits",
    )
    if st.session_state.get(key + TYPED) != eps:
        st.session_state[key + TYPED] = float(eps)  # the box shows the slider's ε (moved, or set by a link)
    st.session_state[key + SHOWN] = float(eps)
    st.number_input(  # its value is the session's (set just above): a value argument too makes Streamlit warn
        f"Type {label}",
        min_value=EPSILON_GRID[0],
        max_value=EPSILON_GRID[-1],
        step=0.01,
        format="%g",
        key=key + TYPED,
        on_change=_typed,
        args=(key,),
        icon=":material/keyboard:",
        width=170,
        label_visibility="collapsed",
        help=f"Any ε from {EPSILON_GRID[0]:g} to {EPSILON_GRID[-1]:g}, kept to {EPSILON_DIGITS} significant "
        "digits; the slider moves to it.",
    )
    return float(eps)


def delta_slider(key: str, default: float = 1e-5, help: str | None = None) -> float:
    return bound(
        st.select_slider,
        "δ, failure probability",
        options=DELTA_GRID,
        value=default,
        format_func=lambda v: f"{v:.0e}",
        key=key,
        bind="query-params",
        help=help or "δ is the probability the ε guarantee may fail; keep it well below 1/n.",
    )


def whole_number(
    label: str,
    minimum: int,
    maximum: int,
    default: int,
    key: str,
    help: str,
    container=st,
    *,
    step: int = 1,
    disabled: bool = False,
) -> int:
    """A whole number bound to the URL, kept as a float so that a link value such as ``inf`` is refused in words.

    (Streamlit's integer inputs fail on a link carrying a number beyond int range
    with an error box of their own; its float inputs treat it as out of range.)
    """
    value = bound(
        container.number_input,
        label,
        min_value=float(minimum),
        max_value=float(maximum),
        value=float(default),
        step=float(step),
        format="%.0f",
        key=key,
        bind="query-params",
        help=help,
        disabled=disabled,
    )
    return int(round(value))


def epsilon_for_accuracy(
    key: str, slider_key: str, solve, default: float, what: str, confidence: float = 0.95, extra: str = ""
) -> None:
    """ "I need ±X on this answer": the ε that gives it (from ``solve(X)``, a dpcore inverse), and a button that sets the slider.

    The slider offers a grid of ε's, so the button picks the smallest one at or above
    the ε found: the accuracy is then met. ``what`` names the answer (e.g. "each count").
    """
    with st.popover("ε from the accuracy you need", icon=":material/target:", width="stretch"):
        target = bound(
            st.number_input,
            f"I need {what} within ± (at {confidence:.0%})",
            min_value=0.0,
            max_value=LARGEST_AMOUNT,
            value=within(default),
            key=f"{key}_accuracy",
            bind="query-params",
            help="In the answer's own units. The ε below is the smallest that gives this accuracy.",
        )
        if target <= 0:
            st.caption("Enter an accuracy above 0.")
            return
        try:
            needed = float(solve(target))
        except ValueError as exc:
            st.info(md(plain_sentence(exc)))
            return
        on_grid = [e for e in EPSILON_GRID if e >= needed * (1 - 1e-12)]
        st.markdown(f"**ε = {needed:.3g}** gives {md(what)} within ±{target:,.4g} at {confidence:.0%}{extra}.")
        if not on_grid:
            st.caption(f"That is beyond the slider's largest ε, {EPSILON_GRID[-1]:g}.")
            return
        st.button(
            f"Set ε to {on_grid[0]:g}",
            key=f"{key}_set",
            on_click=_set_state,
            args=(slider_key, on_grid[0]),
            help="The smallest ε of the slider that meets the accuracy.",
        )


def _set_state(key: str, value) -> None:
    st.session_state[key] = value


def select(label: str, options, key: str, help: str, **kw):
    """A selectbox bound to the URL; falls back to the first option if the URL names none of them."""
    options = list(options)
    return bound(st.selectbox, label, options, key=key, help=help, **kw)


_NO_COLUMN = {
    "categorical": "This dataset has no categorical column with 2 to 50 values; upload one on the Data page.",
    "numeric": "This dataset has no numeric column; upload one on the Data page.",
}


def fitting_columns(kind: str) -> list[str]:
    """The active dataset's ``"categorical"`` or ``"numeric"`` columns; says so on the page when there are none."""
    found = state.categorical_columns() if kind == "categorical" else state.numeric_columns()
    if not found:
        st.info(_NO_COLUMN[kind])
    return found


# ---------------------------------------------------------------------- links to the Audit page

#: The Audit page's script, as registered in app.py.
AUDIT_PAGE = "app_pages/audit.py"
#: URL key of the Audit page's mechanism picker (its other keys come from :func:`audit_key`).
AUDIT_MECHANISM = "aud_mechanism"


def audit_key(name: str, param: str, broken: str | None = None) -> str:
    """The Audit page's widget and URL key of a parameter of the audit ``name`` (a key of dpcore.audit.CATALOGUE).

    The claimed ε is kept per mechanism (a broken variant audits the same claim);
    the other parameters per variant, whose defaults differ (a broken exhibit's pair shows its bug).
    """
    variant = f"_{broken}" if broken and param != "epsilon" else ""
    return f"aud_{name}{variant}_{param}"


def _url_value(key: str, value) -> str:
    """A setting as the Audit page's widget reads it from the URL."""
    if key == "delta":
        return f"{value:.0e}"  # the labels of delta_slider's options
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    return repr(float(value))  # every digit: a claim of ln 3 stays ln 3


def audit_link(name: str, epsilon: float, *, label: str = "Audit this mechanism", **params) -> None:
    """A link that opens the Audit page on ``name`` with this claimed ε and these parameters.

    ``name`` is a key of :data:`dpcore.audit.CATALOGUE`; ``params`` may name any of
    the page's settings: those the audit does not take, and None values, are left
    out, so a view can pass what it has (``delta=None`` for Laplace noise).
    """
    spec = CATALOGUE[name]
    query = {AUDIT_MECHANISM: name, audit_key(name, "epsilon"): _url_value("epsilon", float(epsilon))}
    for key, value in params.items():
        if key in spec.params and value is not None:
            query[audit_key(name, key)] = _url_value(key, value)
    st.page_link(
        AUDIT_PAGE,
        label=label,
        icon=":material/fact_check:",
        query_params=query,
        help=f"Runs {spec.title} many times on two neighbouring inputs with these settings and measures a lower "
        "bound on its ε: a bound above the claim would refute it.",
    )


# ---------------------------------------------------------------------- the link is the screen


def _url_holds(meta, raw, value) -> bool:
    """Whether the link's ``raw`` value of a widget described by ``meta`` reads back as ``value``."""
    try:
        if raw == _url_form(meta, value):
            return True
        return bool(meta.deserializer(parse_url_param(raw, meta.value_type)) == value)
    except Exception:  # noqa: BLE001 - a value the widget cannot read is not the widget's value
        return False


def _url_form(meta, value):
    """``value`` as Streamlit writes it into the link (its serializer, then numbers without a trailing .0)."""
    out = meta.serializer(value)
    if isinstance(out, (list, tuple)):
        return [_plain(v) for v in out]
    return _plain(out)


def _plain(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float) and np.isfinite(v) and v == int(v):
        return str(int(v))
    return str(v)


def sync_link() -> list[str]:
    """Make the link carry every URL-bound widget of this run at the value it holds; returns the keys it rewrote.

    Streamlit's browser side writes a bound widget's value into the link when the user moves it, through a binding
    it registers when the widget is mounted and drops when that widget's element is unmounted, both by the widget's
    id, which a keyed widget keeps wherever it is drawn. When a rerun draws the widget at another place in the page
    (a view switch lays the same ε slider out in another row), the new element mounts while the old one is still on
    screen, and the old one's removal at the end of the run drops the binding the new one has just made: from then
    on the widget's moves no longer reach the link (issue 24: Central DP's ε after a switch to "Category counts"). The
    server still knows every binding; at the end of each full run (``app.py``) this compares each bound widget of
    the run with the link the browser sent and, where they differ, writes the widget's value (or removes a value at
    the widget's default, which Streamlit leaves out of the link), as Streamlit itself does when it corrects a value.

    Streamlit internals relied on (``tests/test_widgets.py`` checks each): ``get_script_run_ctx().session_state``
    (``SafeSessionState``) with ``query_params()``, a context manager yielding the session's ``QueryParams`` (its
    ``_query_params`` dict is the link the browser sent at the start of this run, with the run's corrections);
    ``QueryParams.set_corrected_value(key, value, value_type)`` and ``remove_param(key)``, which send the browser
    the new link; ``ctx.shared.widget_ids_this_run``; and the ``SessionState`` (``_state``) methods
    ``get_widget_metadata(id)`` (``.bind``, ``.serializer``, ``.deserializer``, ``.value_type``),
    ``get_widget_value(id)`` and its key map ``_key_id_mapper.get_key_from_id(id)``.
    """
    ctx = get_script_run_ctx()
    if ctx is None:
        return []
    safe = ctx.session_state
    session = safe._state
    rewritten, drawn = [], set()
    with safe.query_params() as qp:
        for wid in sorted(ctx.shared.widget_ids_this_run.snapshot()):
            meta = session.get_widget_metadata(wid)
            if meta is None or meta.bind != "query-params":
                continue
            try:
                key = session._key_id_mapper.get_key_from_id(wid)
                value = session.get_widget_value(wid)
                at_default = bool(meta.deserializer(None) == value)
            except Exception:  # noqa: BLE001 - a widget without a key or a value has nothing to put in the link
                continue
            drawn.add(key)
            raw = qp._query_params.get(key)
            if at_default:
                if raw is not None and not _url_holds(meta, raw, value):
                    qp.remove_param(key)
                    rewritten.append(key)
            elif raw is None or not _url_holds(meta, raw, value):
                qp.set_corrected_value(key, _url_form(meta, value), meta.value_type)
                rewritten.append(key)
    st.session_state[state.DRAWN_LAST_RUN] = frozenset(drawn)
    return rewritten
