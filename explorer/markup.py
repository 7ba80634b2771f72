"""User text made safe for Streamlit's Markdown, and exceptions turned into sentences."""

from __future__ import annotations

import math
import re

__all__ = [
    "md",
    "sentence",
    "plain_sentence",
    "PARAMETER_WORDS",
    "words",
    "range_words",
    "given",
    "power_of_two",
    "number",
]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")
#: Where GitHub-flavoured Markdown starts a link of its own in plain text: ``www.``, ``http://``, ``https://``,
#: ``a@b.c``. It looks for them in the text after escapes and character references are read (``http\://`` and
#: ``http&#58;//`` are links too), so an invisible U+2060 WORD JOINER goes where the pattern needs a character.
_AUTOLINK = re.compile(r"(?<=www)(?=\.)|(?<=https)(?=:)|(?<=http)(?=:)|(?=@)", re.IGNORECASE)
_WORD_JOINER = "\u2060"


def md(value) -> str:
    """User text made safe inside Markdown: every Markdown, HTML and Streamlit directive character escaped.

    Column names, category values, file names and exception messages that quote
    them all pass through here before ``st.markdown``, ``st.info``, ``st.warning``,
    ``st.error``, ``st.toast`` or a metric label, so that ``![x](http://host/p.png)``
    renders as those characters and never as an image, and a URL or an e-mail
    address in them reads the same but is no link (a word joiner, which shows
    nothing, sits before its ``:``, ``.`` or ``@``).

    >>> md("![x](http://h/p.png)")
    '\\\\!\\\\[x\\\\]\\\\(http\\u2060\\\\://h/p\\\\.png\\\\)'
    >>> md("www.example.org, me@example.org")
    'www\\u2060\\\\.example\\\\.org, me\\u2060@example\\\\.org'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _AUTOLINK.sub(_WORD_JOINER, str(value)))


def sentence(exc: BaseException) -> str:
    """An exception's message as one sentence: capitalised, with a full stop.

    >>> sentence(ValueError("epsilon must be in (0, inf), got -1.0"))
    'Epsilon must be in (0, inf), got -1.0.'
    """
    text = str(exc).strip() or type(exc).__name__
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."


#: dpcore's parameter names, as a page's reader knows them (a name not here is said with spaces for underscores).
PARAMETER_WORDS = {
    "epsilon": "ε",
    "epsilons": "each ε",
    "epsilon_bar": "the RDP level ε̄",
    "delta": "δ",
    "release_delta": "δ of the release",
    "mu": "μ",
    "rho": "ρ",
    "rdp": "the Rényi divergence",
    "alpha": "the order α",
    "orders": "the orders α",
    "sensitivity": "the sensitivity",
    "assumed_sensitivity": "the assumed sensitivity",
    "scale": "the noise scale",
    "lower": "the lower bound",
    "upper": "the upper bound",
    "largest": "the largest candidate bound",
    "candidates": "the candidate bounds",
    "n_candidates": "the number of candidates",
    "bins": "the number of bins",
    "split": "the share of ε for the sum",
    "threshold_share": "the threshold's share of ε",
    "trials": "the number of trials",
    "draws": "the number of noise draws",
    "confidence": "the confidence",
    "accuracy": "the accuracy you need",
    "c": "c, the most positives",
    "k": "k, the number of releases",
    "k_max": "the largest k",
    "count": "the number of releases",
    "threshold": "the threshold",
    "n": "the number of records",
    "planned_n": "the planned number of records",
    "dataset_size": "the dataset size",
    "n_clients": "the number of clients",
    "sigma": "σ",
    "noise_multiplier": "the noise multiplier σ",
    "sampling_rate": "the sampling rate",
    "client_rate": "the client sampling rate",
    "steps": "the number of steps",
    "iterations": "the number of iterations",
    "rounds": "the number of rounds",
    "clip": "the clipping norm",
    "clipping_norm": "the clipping norm",
    "learning_rate": "the learning rate",
    "local_lr": "the local step size",
    "server_lr": "the server step size",
    "batch_size": "the batch size",
    "expected_batch_size": "the expected batch size",
    "epochs": "the number of epochs",
    "grid": "the grid step",
    "interval": "the grid step",
    "gamma": "the grid step γ",
    "resolution": "the resolution",
    "max_groups": "the most groups per person",
    "max_rows": "the most rows per person",
    "max_rows_per_group": "the most rows per person in a group",
    "q": "q",
}

#: A range in dpcore's bracket form, in words; the ends of others are read by :func:`range_words`.
_RANGE_WORDS = {
    "(0, inf)": "above 0",
    "[0, inf)": "0 or more",
    "[0, inf]": "0 or more",
    "(1, inf)": "above 1",
    "[1, inf)": "at least 1",
    "(0, 1)": "strictly between 0 and 1",
    "(0, 1]": "above 0 and at most 1",
    "[0, 1)": "at least 0 and below 1",
    "[0, 1]": "between 0 and 1",
}
_BRACKET = r"[\[(][^,\[\]()]+, [^,\[\]()]+[\])]"
_HOUSE = re.compile(
    r"^(?P<name>[\w .′]+?) must be (?P<what>an integer in |an int in |a real number in |in )?(?P<range>"
    + _BRACKET
    + r")(?P<rest>.*?), got (?P<got>.+)$",
    re.DOTALL,
)
_BELOW = re.compile(r"^(?P<lo>\w+) must be below (?P<hi>\w+), got \w+=(?P<a>\S+) and \w+=(?P<b>\S+)$")
_WIDTH = re.compile(r"^(?P<hi>\w+) - (?P<lo>\w+) must be finite, got \w+=(?P<a>\S+) and \w+=(?P<b>\S+)$")
_FINITE = re.compile(r"^(?P<name>[\w ]+?) must be finite, got (?P<got>.+)$")
_AT_MOST = re.compile(r"^(?P<name>.+?) must be at most (?P<hi>[\d.e+]+), got (?P<got>[\d.e+]+)$")
_ANY_BRACKET = re.compile(r"\bin (?P<range>" + _BRACKET + r")")
_GOT = re.compile(r", got (?P<got>[-+]?(?:nan|inf|\d[\d.]*(?:e[-+]?\d+)?))(?=$|[,;.\s])")
_IDENTIFIER = re.compile(r"\b[^\W\d_]\w*_\w+\b")
_NOT_A_NUMBER = re.compile(r"\b(nan|NaN)\b")
_INFINITE = re.compile(r"(?<![\w.])(-?)inf\b")


def words(name: str) -> str:
    """A dpcore parameter as a reader says it: :data:`PARAMETER_WORDS`, else its name with spaces for underscores.

    >>> words("noise_multiplier"), words("queries_per_round")
    ('the noise multiplier σ', 'queries per round')
    """
    name = name.strip()
    return PARAMETER_WORDS.get(name, name.replace("_", " "))


_words = words


def _end(text: str) -> str:
    """One end of a bracket range as a reader writes it: ``inf`` is no number."""
    try:
        return number(float(text))
    except ValueError:
        return text


def range_words(bracket: str, integer: bool = False) -> str:
    """A range in dpcore's bracket form in words: ``(0, inf)`` is "above 0", ``[1, 50]`` "from 1 to 50".

    >>> range_words("(0, inf)"), range_words("[1, 50]", integer=True), range_words("(0.5, 2]")
    ('above 0', 'a whole number from 1 to 50', 'above 0.5 and at most 2')
    """
    if bracket in _RANGE_WORDS and not integer:
        return _RANGE_WORDS[bracket]
    lo, hi = (part.strip() for part in bracket[1:-1].split(","))
    if integer:
        if lo == "-inf":
            return f"a whole number of at most {_end(hi)}" if hi != "inf" else "a whole number"
        return (
            f"a whole number from {_end(lo)} to {_end(hi)}" if hi != "inf" else f"a whole number of at least {_end(lo)}"
        )
    if lo == "-inf":
        return f"{'below' if bracket[-1] == ')' else 'at most'} {_end(hi)}"
    low = f"above {_end(lo)}" if bracket[0] == "(" else f"at least {_end(lo)}"
    if hi == "inf":
        return low
    return f"{low} and {'below' if bracket[-1] == ')' else 'at most'} {_end(hi)}"


def given(text: str) -> str:
    """A value dpcore received, as a sentence may repeat it: a finite number, or nothing (never ``nan`` or ``inf``).

    >>> given("0.0"), given("1e-300"), given("nan"), given("'abc'")
    ('0', '1e-300', '', '')
    """
    try:
        value = float(text)
    except ValueError:
        return ""
    return number(value) if math.isfinite(value) else ""


def _it_was(got: str) -> str:
    shown = given(got)
    return f" (it was {shown})" if shown else ""


def _capital(words: str) -> str:
    return words[0].upper() + words[1:] if words[:1].isascii() else words  # ε stays ε, not Ε


def plain_sentence(exc: BaseException) -> str:
    """A dpcore error as a sentence a student reads: names in words, the allowed range, never ``nan`` or ``inf``.

    dpcore's messages keep the developer form (``epsilon must be in (0, inf), got 0.0``,
    the form of diffprivlib and dp_accounting); the pages say it in words: each parameter
    named by :data:`PARAMETER_WORDS`, each bracket range by :func:`range_words`, the value
    received repeated only when it is a finite number. Other messages are returned as
    sentences with the same replacements.

    >>> plain_sentence(ValueError("epsilon must be in (0, inf), got 0.0"))
    'ε must be above 0 (it was 0).'
    >>> plain_sentence(ValueError("rdp must be in [0, inf], got nan"))
    'The Rényi divergence must be 0 or more.'
    >>> plain_sentence(ValueError("bins must be an integer in [1, 50], got 80"))
    'The number of bins must be a whole number from 1 to 50 (it was 80).'
    >>> plain_sentence(ValueError("lower must be below upper, got lower=100.0 and upper=1.0"))
    'The lower bound must be below the upper bound (they were 100 and 1).'
    >>> plain_sentence(ValueError("accuracy must lead to an epsilon in (0, inf), got 1e-300, which needs epsilon = inf"))
    'The accuracy you need must lead to an epsilon above 0 (it was 1e-300), which needs epsilon = ∞.'
    >>> plain_sentence(ValueError("y must contain both classes 0 and 1, got only class 0"))
    'Y must contain both classes 0 and 1, got only class 0.'
    """
    text = str(exc).strip()
    if house := _HOUSE.match(text):
        integer = (house["what"] or "").startswith(("an integer", "an int "))
        words = (
            f"{_words(house['name'])} must be {range_words(house['range'], integer)}"
            f"{_plain(house['rest'])}{_it_was(house['got'])}."
        )
    elif below := _BELOW.match(text):
        words = f"{_words(below['lo'])} must be below {_words(below['hi'])}{_they_were(below['a'], below['b'])}."
    elif width := _WIDTH.match(text):
        words = (
            f"{_words(width['lo'])} and {_words(width['hi'])} must be less than {number(1.7e308)} apart"
            f"{_they_were(width['a'], width['b'])}."
        )
    elif finite := _FINITE.match(text):
        words = f"{_words(finite['name'])} must be a finite number, between {number(-1.7e308)} and {number(1.7e308)}."
    elif at_most := _AT_MOST.match(text):
        words = f"{_words(at_most['name'])} must be at most {number(float(at_most['hi']))}{_it_was(at_most['got'])}."
    else:
        first, _, rest = text.partition(" ")
        words = _words(first) + " " + _plain(rest) if rest else _plain(text)
        words = sentence(ValueError(words)) if words.strip() else sentence(exc)
    return _capital(words)


def _they_were(a: str, b: str) -> str:
    a, b = given(a), given(b)
    return f" (they were {a} and {b})" if a and b else ""


def _plain(text: str) -> str:
    """The words of a message past its parameter: ranges in words, a value received only if a finite number,
    other parameter names in words, ``inf`` as ∞, ``nan`` never."""
    text = _ANY_BRACKET.sub(lambda m: range_words(m["range"]), text)
    text = _GOT.sub(lambda m: _it_was(m["got"]), text)
    text = _IDENTIFIER.sub(lambda m: _words(m.group(0)), text)
    text = _NOT_A_NUMBER.sub("not a number", text)
    return _INFINITE.sub(lambda m: "−∞" if m[1] else "∞", text)


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_two(x: float) -> str:
    """A power of two as ``2⁻¹⁰`` (other numbers as they are).

    >>> power_of_two(2.0**-10), power_of_two(0.3)
    ('2⁻¹⁰', '0.3')
    """
    exponent = math.log2(x) if x > 0 else math.nan
    if math.isfinite(exponent) and exponent == int(exponent):
        return "2" + str(int(exponent)).translate(_SUPERSCRIPT)
    return f"{x:g}"


def number(x: float) -> str:
    """A number as a reader wants it: thousands separated, four significant digits, huge ones in scientific form.

    >>> number(32561.0), number(0.012345), number(3e300), number(float("inf"))
    ('32,561', '0.01235', '3e+300', '∞')
    """
    if not math.isfinite(x):
        return "∞" if x > 0 else ("−∞" if x < 0 else "undefined")
    if abs(x) >= 1e9:
        return f"{x:.3g}"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"
