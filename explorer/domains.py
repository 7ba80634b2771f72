"""Declared public facts: the category domains, bounds and conditions a publication relies on.

A publication may not let the data choose what it shows (which categories exist, where bins end,
which value is a candidate): each of those is declared by the user, typed or pasted here, and
travels with the release as a :class:`dpcore.release.PublicFact`. The values of the file are
offered for exploring only, labelled "read from the data, not private", and never feed a
publication. No Streamlit here.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

__all__ = [
    "FROM_THE_DATA",
    "MAX_DOMAIN",
    "parse_domain",
    "encode_in_domain",
    "encode_pairs_in_domains",
    "missing_declarations",
]

#: What a view whose categories come from the file says of them.
FROM_THE_DATA = (
    "The categories shown, and their order, are read from this file: right for exploring, not private. A "
    "publication lists only the categories you declare."
)
#: The most categories a declared domain may list (each is a published count).
MAX_DOMAIN = 1_000

_SEPARATORS = re.compile(r"[\n;]+")


def parse_domain(text: str) -> list[str]:
    """A pasted or typed domain: one category per line (or separated by semicolons), blanks and repeats dropped.

    Commas are kept inside a category (a value such as "Married, spouse absent" stays whole).

    >>> parse_domain(" Bachelors\\nHS-grad;  Masters \\n\\nHS-grad")
    ['Bachelors', 'HS-grad', 'Masters']
    """
    seen: dict[str, None] = {}
    for part in _SEPARATORS.split(text or ""):
        value = part.strip()
        if value:
            seen.setdefault(value, None)
    values = list(seen)
    if len(values) > MAX_DOMAIN:
        raise ValueError(f"the declared domain must list at most {MAX_DOMAIN:,} categories, got {len(values):,}")
    return values


def encode_in_domain(series: pd.Series, domain: list[str], other: bool, *, every_row: bool = False) -> np.ndarray:
    """Each row's index in the declared ``domain`` (compared as trimmed text); outside it ``len(domain)`` when ``other``
    is declared, else the row is left out. Missing values are left out, or, with ``every_row`` (a local publication,
    where every person reports), coded ``len(domain)`` like any value outside the list. No count decides anything.

    >>> encode_in_domain(pd.Series(["a", "b", "z", None]), ["a", "b"], other=True).tolist()
    [0, 1, 2]
    >>> encode_in_domain(pd.Series(["a", "b", "z", None]), ["a", "b"], other=False).tolist()
    [0, 1]
    >>> encode_in_domain(pd.Series(["a", "b", "z", None]), ["a", "b"], other=True, every_row=True).tolist()
    [0, 1, 2, 2]
    """
    if every_row:
        text = series.map(lambda v: None if pd.isna(v) else _as_text(v))
        return text.map({value: i for i, value in enumerate(domain)}).fillna(len(domain)).to_numpy(dtype=np.int64)
    present = series.dropna()
    text = present.map(_as_text)
    index = {value: i for i, value in enumerate(domain)}
    codes = text.map(index)
    if other:
        return codes.fillna(len(domain)).to_numpy(dtype=np.int64)
    return codes.dropna().to_numpy(dtype=np.int64)


def encode_pairs_in_domains(
    rows: pd.Series, columns: pd.Series, row_domain: list[str], column_domain: list[str], other: bool
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's index in two declared domains, aligned (a two-way table's cell of each row).

    A row missing either value is left out; a value outside its declared domain is coded ``len(domain)``
    ("(other)") when ``other`` is declared, else the row is left out. The cells are the declared lists' product,
    whatever the data holds: no count decides anything.

    >>> r, c = encode_pairs_in_domains(pd.Series(["a", "b", "z", None]), pd.Series(["x", None, "x", "y"]), ["a", "b"],
    ...                                ["x", "y"], other=False)
    >>> r.tolist(), c.tolist()
    ([0], [0])
    """

    def codes(series: pd.Series, domain: list[str]) -> np.ndarray:
        index = {value: i for i, value in enumerate(domain)}
        text = series.map(lambda v: None if pd.isna(v) else index.get(_as_text(v), len(domain) if other else -1))
        return text.fillna(-2).to_numpy(dtype=np.int64)  # -2: missing, -1: outside and left out

    r, c = codes(rows, row_domain), codes(columns, column_domain)
    kept = (r >= 0) & (c >= 0)
    return r[kept], c[kept]


def _as_text(value) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # a column of whole numbers read as floats matches "3", not "3.0"
    return str(value).strip()


def missing_declarations(**declared) -> str | None:
    """One sentence naming what a publication still needs to be declared, or None when everything is.

    >>> missing_declarations(lower=None, upper=3.0)
    'To publish, declare the lower bound first: it must come from what you know about the data, not from this file.'
    """
    words = {
        "lower": "the lower bound",
        "upper": "the upper bound",
        "domain": "the categories (one per line)",
        "value": "the value of the condition",
        "threshold": "the threshold",
        "largest": "the largest candidate bound",
        "rows": "the categories of the rows (one per line)",
        "columns": "the categories of the columns (one per line)",
        "first_year": "the first year",
        "last_year": "the last year",
        "second_value": "the value of the second condition",
    }
    missing = [words.get(name, name) for name, value in declared.items() if value is None or value == []]
    if not missing:
        return None
    listed = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and " + missing[-1]
    return f"To publish, declare {listed} first: it must come from what you know about the data, not from this file."
