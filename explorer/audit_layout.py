"""What the Audit page's two views share: the salt of their seeds, the name of dpcore's correct implementation
beside its broken exhibits, how many runs the bound curve keeps, and the pickers that show plain names while the
link carries the catalogue's keys.
"""

from __future__ import annotations

import re

import streamlit as st

from dpcore.audit import BROKEN, CATALOGUE
from explorer import state, widgets

__all__ = [
    "SALT",
    "CORRECT",
    "CURVE_TRIALS",
    "page_seed",
    "mechanism_name",
    "mechanism_title",
    "implementation_name",
    "keyed_select",
    "set_pick",
]

SALT = "audit"
CORRECT = "correct"
#: The curve keeps every run of both inputs in memory: up to 10⁶ runs (16 MB) rather than dpcore's 10⁷ per session.
CURVE_TRIALS = 10**6


def page_seed(salt: str) -> tuple[int, ...]:
    """The page's seed words for ``salt`` (the sidebar's seed, salted per view and per chart)."""
    return tuple(state.seed_words(salt))


# ---------------------------------------------------------------------- plain names on the pickers

_CODE = re.compile(r"[_=]|\w\.\w|dpcore")  # a function or module name (GRR.perturb), an argument
_CITATION = re.compile(r"\b(1[89]|20)\d\d\b")  # a paper's year


def _without_code(text: str, citations: bool = False) -> str:
    """``text`` without its parentheses that name code (and cite a paper, unless ``citations``), nested ones too."""
    drop = _CODE if citations else re.compile(f"{_CODE.pattern}|{_CITATION.pattern}")
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                out.append(text[start:i])
                start = i
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
            if depth == 0:
                group = text[start : i + 1]
                out.append("" if drop.search(group) else group)
                start = i + 1
    out.append(text[start:])
    plain = re.sub(r"\s+", " ", "".join(out))
    return re.sub(r"\s+([,;:])", r"\1", plain).strip()


def mechanism_name(name: str) -> str:
    """The audit ``name`` (a key of ``dpcore.audit.CATALOGUE``) as its picker shows it: its title, without the code
    it names or the papers it cites (the line below the pickers keeps the whole title): "Laplace noise on a count"."""
    spec = CATALOGUE.get(name)
    if spec is None:
        return name
    return _without_code(spec.title).split(";")[0].strip() or spec.title


def mechanism_title(name: str) -> str:
    """The audit ``name``'s whole title in words, its papers cited, without the code it names (the Python the page
    shows names it): "The coin-flip survey; the mechanism is fixed, ε is the claim audited"."""
    spec = CATALOGUE.get(name)
    return (_without_code(spec.title, citations=True) or spec.title) if spec is not None else name


def implementation_name(name: str, broken: str) -> str:
    """dpcore's correct code, or the broken exhibit ``broken`` of the audit ``name`` by the start of its bug."""
    exhibit = BROKEN.get(name, {}).get(broken)
    if exhibit is None:
        return "Correct: dpcore's own code"
    bug = exhibit.bug
    cut = min((i for i in (bug.find(": "), bug.find(" (")) if i > 0), default=len(bug))
    return f"{'Broken' if exhibit.violates else 'Control'}: {bug[:cut]}"


# ---------------------------------------------------------------------- pickers whose link carries the key


def _selectbox(label, options, *, bind=None, **kw):
    """``st.selectbox`` drawn without Streamlit's binding (:func:`keyed_select` writes the link itself)."""
    return st.selectbox(label, options, **kw)


_selectbox.__name__ = "selectbox"  # widgets.bound describes it as the selectbox it is


def _write_link(key: str, default: str) -> None:
    """Put the picker ``key``'s value in the link (left out at its default, as Streamlit leaves its own)."""
    value = st.session_state.get(key, default)
    if value == default:
        if key in st.query_params:
            del st.query_params[key]
    elif st.query_params.get(key) != value:
        st.query_params[key] = value


def set_pick(key: str, value: str, default: str) -> None:
    """Set the picker ``key`` from a callback (an example button), the link with it."""
    st.session_state[key] = value
    _write_link(key, default)


def keyed_select(label: str, options, key: str, format_func, help: str, *, disabled: bool = False, on_change=None):
    """A picker that shows each option by ``format_func`` (a plain name) while its link carries the option itself
    (a catalogue key, ``?aud_mechanism=laplace_count``, as every link to the Audit page has).

    Streamlit's bound selectbox writes what it shows into the link, so this one is drawn unbound and writes the link
    itself: from the link on its first draw (a value not among ``options`` is refused; the frame's notice names it
    by ``label``, described through :func:`explorer.widgets.bound`), into the link in its callback (before the next
    run reads the link) and after each draw. ``on_change(value)`` runs in the callback after the link is written.
    """
    options = list(options)
    default = options[0]
    if key not in st.session_state:  # its first draw here: the link's value, else the first option
        given = st.query_params.get(key)
        st.session_state[key] = given if given in options else default
    elif st.session_state[key] not in options:  # a pick the options no longer have (another mechanism's exhibit)
        st.session_state[key] = default

    def picked() -> None:
        _write_link(key, default)
        if on_change is not None:
            on_change(st.session_state[key])

    value = widgets.bound(
        _selectbox, label, options, key=key, format_func=format_func, help=help, disabled=disabled, on_change=picked
    )
    _write_link(key, default)
    return value
