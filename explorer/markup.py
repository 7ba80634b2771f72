"""User text made safe for Streamlit's Markdown, and exceptions turned into sentences."""

from __future__ import annotations

import math
import re

__all__ = ["md", "sentence", "plain_sentence", "PARAMETER_WORDS", "power_of_two", "number"]

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


#: dpcore's parameter names, as a page's reader knows them.
PARAMETER_WORDS = {
    "epsilon": "ε",
    "epsilons": "each ε",
    "delta": "δ",
    "sensitivity": "the sensitivity",
    "lower": "the lower bound",
    "upper": "the upper bound",
    "largest": "the largest candidate bound",
    "candidates": "the candidate bounds",
    "bins": "the number of bins",
    "split": "the share of ε for the sum",
    "trials": "the number of trials",
    "confidence": "the confidence",
    "accuracy": "the accuracy you need",
    "c": "c, the most positives",
    "k": "k, the number of releases",
    "count": "the number of releases",
    "threshold": "the threshold",
    "sigma": "σ",
    "noise_multiplier": "the noise multiplier σ",
    "sampling_rate": "the sampling rate",
    "client_rate": "the client sampling rate",
    "steps": "the number of steps",
    "iterations": "the number of iterations",
    "rounds": "the number of rounds",
    "clip": "the clipping norm",
    "learning_rate": "the learning rate",
    "batch_size": "the batch size",
    "epochs": "the number of epochs",
}

_RANGE_WORDS = {
    "(0, inf)": "above 0",
    "[0, inf)": "0 or more",
    "(1, inf)": "above 1",
    "[1, inf)": "at least 1",
    "(0, 1)": "strictly between 0 and 1",
    "(0, 1]": "above 0 and at most 1",
    "[0, 1)": "at least 0 and below 1",
    "[0, 1]": "between 0 and 1",
}
_HOUSE = re.compile(
    r"^(?P<name>[\w ]+?) must be (?P<what>an integer in |a real number in |in )?(?P<range>[\[(][^,]+, [^\])]+[\])])(?P<rest>.*?), got (?P<got>.+)$"
)
_BELOW = re.compile(r"^(?P<lo>\w+) must be below (?P<hi>\w+), got \w+=(?P<a>\S+) and \w+=(?P<b>\S+)$")
_FINITE = re.compile(r"^(?P<name>[\w ]+?) must be finite, got (?P<got>.+)$")


def _words(name: str) -> str:
    return PARAMETER_WORDS.get(name.strip(), name.strip().replace("_", " "))


def _range_words(bracket: str, integer: bool) -> str:
    if bracket in _RANGE_WORDS and not integer:
        return _RANGE_WORDS[bracket]
    lo, hi = bracket[1:-1].split(", ")
    if integer:
        return f"a whole number from {lo} to {hi}" if hi != "inf" else f"a whole number of at least {lo}"
    low = f"above {lo}" if bracket[0] == "(" else f"at least {lo}"
    if hi == "inf":
        return low
    return f"{low} and {'below' if bracket[-1] == ')' else 'at most'} {hi}"


def plain_sentence(exc: BaseException) -> str:
    """A dpcore error as a sentence a student reads ("ε must be above 0; this page was given 0.").

    dpcore's messages keep the developer form (``epsilon must be in (0, inf), got 0.0``,
    the form of diffprivlib and dp_accounting); the pages say it in words. Messages that
    are not in the house form are returned as sentences unchanged.

    >>> plain_sentence(ValueError("epsilon must be in (0, inf), got 0.0"))
    'ε must be above 0; this page was given 0.0.'
    >>> plain_sentence(ValueError("bins must be an integer in [1, 50], got 80"))
    'The number of bins must be a whole number from 1 to 50; this page was given 80.'
    >>> plain_sentence(ValueError("lower must be below upper, got lower=100.0 and upper=1.0"))
    'The lower bound must be below the upper bound; this page was given 100.0 and 1.0.'
    """
    text = str(exc).strip()
    house = _HOUSE.match(text)
    if house:
        what = _range_words(house["range"], integer=(house["what"] or "").startswith("an integer"))
        words = f"{_words(house['name'])} must be {what}{house['rest']}; this page was given {house['got']}."
    elif below := _BELOW.match(text):
        words = f"{_words(below['lo'])} must be below {_words(below['hi'])}; this page was given {below['a']} and {below['b']}."
    elif finite := _FINITE.match(text):
        words = f"{_words(finite['name'])} must be a finite number; this page was given {finite['got']}."
    else:
        return sentence(exc)
    return words[0].upper() + words[1:] if words[0].isascii() else words  # ε stays ε, not Ε


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
