"""User text made safe for Streamlit's Markdown, and exceptions turned into sentences."""

from __future__ import annotations

import re

__all__ = ["md", "sentence"]

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:=])")


def md(value) -> str:
    """User text made safe inside Markdown: every Markdown, HTML and Streamlit directive character escaped.

    Column names, category values, file names and exception messages that quote
    them all pass through here before ``st.markdown``, ``st.info``, ``st.warning``,
    ``st.error``, ``st.toast`` or a metric label, so that ``![x](http://host/p.png)``
    renders as those characters and never as an image.

    >>> md("![x](http://h/p.png)")
    '\\\\!\\\\[x\\\\]\\\\(http\\\\://h/p\\\\.png\\\\)'
    """
    return _MARKDOWN_SPECIAL.sub(r"\\\1", str(value))


def sentence(exc: BaseException) -> str:
    """An exception's message as one sentence: capitalised, with a full stop.

    >>> sentence(ValueError("epsilon must be in (0, inf), got -1.0"))
    'Epsilon must be in (0, inf), got -1.0.'
    """
    text = str(exc).strip() or type(exc).__name__
    text = text[0].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
