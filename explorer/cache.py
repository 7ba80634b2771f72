"""A cache shared by every session, bounded by bytes rather than by entries.

``st.cache_data(max_entries=32)`` keeps 32 results whatever their size: 32 training runs on a large upload
can hold gigabytes after their sessions have gone. :func:`bounded` keeps each function's results as
pickled bytes (what ``st.cache_data`` keeps too), evicts the least recently used until the function's total
is within its budget, and does not keep a result larger than a share of it (a quarter by default). A hit unpickles a fresh copy,
so no caller can change what another session reads. Arguments whose name starts with ``_`` are not part
of the key (as with ``st.cache_data``): the caller passes beside them a plain argument that identifies them.

Nothing per user is kept here: a result is keyed by the arguments that computed it, so two sessions asking
the same question share the answer, as they would with ``st.cache_data``.
"""

from __future__ import annotations

import collections
import functools
import hashlib
import inspect
import pickle
import threading
from collections.abc import Callable

import streamlit as st

__all__ = ["bounded", "MIB", "stats", "clear"]

MIB = 1024 * 1024
_STORES: list[_Store] = []


class _Store:
    """One function's results: key → pickled bytes, least recently used first, within ``max_bytes``."""

    def __init__(self, name: str, max_bytes: int, largest: float = 0.25):
        self.name, self.max_bytes, self.largest = name, int(max_bytes), int(max_bytes * largest)
        self.items: collections.OrderedDict[bytes, bytes] = collections.OrderedDict()
        self.size = 0
        self.lock = threading.Lock()

    def get(self, key: bytes) -> bytes | None:
        with self.lock:
            blob = self.items.get(key)
            if blob is not None:
                self.items.move_to_end(key)
            return blob

    def put(self, key: bytes, blob: bytes) -> None:
        if len(blob) > self.largest:  # one result may not push out all the others
            return
        with self.lock:
            old = self.items.pop(key, None)
            self.size -= len(old) if old is not None else 0
            self.items[key] = blob
            self.size += len(blob)
            while self.size > self.max_bytes and self.items:
                _, dropped = self.items.popitem(last=False)
                self.size -= len(dropped)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.size = 0


def _key(name: str, arguments: dict) -> bytes:
    digest = hashlib.blake2b(name.encode(), digest_size=20)
    digest.update(pickle.dumps(arguments, protocol=pickle.HIGHEST_PROTOCOL))
    return digest.digest()


def bounded(max_bytes: int, spinner: str | None = None, largest: float = 0.25) -> Callable:
    """Cache a function's results for every session within ``max_bytes`` of pickled results.

    Parameters
    ----------
    max_bytes : int
        The budget of this function's results, in bytes (``64 * MIB``).
    spinner : str, optional
        Shown while a result is computed (not on a hit).
    largest : float, default 0.25
        The largest share of the budget one result may take (a larger one is computed again when asked again).
    """

    def decorate(fn: Callable) -> Callable:
        signature = inspect.signature(fn)
        store = _Store(fn.__qualname__, max_bytes, largest)
        _STORES.append(store)

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = _key(fn.__qualname__, {k: v for k, v in bound.arguments.items() if not k.startswith("_")})
            blob = store.get(key)
            if blob is not None:
                return pickle.loads(blob)
            if spinner:
                with st.spinner(spinner):
                    value = fn(*args, **kwargs)
            else:
                value = fn(*args, **kwargs)
            try:
                store.put(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
            except (pickle.PicklingError, TypeError, AttributeError):  # not picklable: computed again next time
                pass
            return value

        cached.store = store
        return cached

    return decorate


def stats() -> dict[str, tuple[int, int]]:
    """``{function: (entries, bytes)}`` for every bounded cache (for benchmarks and the operator)."""
    return {s.name: (len(s.items), s.size) for s in _STORES}


def clear() -> None:
    """Empty every bounded cache."""
    for store in _STORES:
        store.clear()
