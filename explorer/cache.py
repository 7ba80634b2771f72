"""A cache shared by every session, bounded by bytes rather than by entries.

``st.cache_data(max_entries=32)`` keeps 32 results whatever their size: 32 training runs on a large upload
can hold gigabytes after their sessions have gone. :func:`bounded` keeps each function's results as
pickled bytes (what ``st.cache_data`` keeps too), evicts the least recently used until the function's total
is within its budget, and does not keep a result larger than a share of it (a quarter by default). A hit unpickles a fresh copy,
so no caller can change what another session reads. Arguments whose name starts with ``_`` are not part
of the key (as with ``st.cache_data``): the caller passes beside them a plain argument that identifies them.

Nothing per user is kept here: a result is keyed by the arguments that computed it, so two sessions asking
the same question share the answer, as they would with ``st.cache_data``.

**A result follows the sessions that use it.** Each session that computes or reads a result is one of its owners
(a small token kept in the session's ``st.session_state``, :data:`OWNER_KEY`); when the last of them has ended
(its session state released, :mod:`explorer.uploads` closes sessions whose tab has gone), the result is dropped, so
the server's memory goes back down when the class goes home rather than staying at every budget. An ``AppTest``
is a session too (its results go once it is released); a result computed outside any Streamlit session (a test or
a benchmark calling the function directly) has no owner and is only evicted by the budget. An upload is not cached
here at all (:func:`explorer.state.read_upload`): it lives with its session, and a shared cache of parsed files
would tell a session, by its speed, whether someone else had uploaded the same bytes.

**The server's total.** Every budget together is at most :data:`SERVER_BUDGET`, 1 GiB, what an operator can count
on the caches to hold however many sessions come and go (``tests/test_cache.py`` adds up every :func:`bounded`
cache of the app and checks it; ``tests/test_shared_caches.py`` forbids ``st.cache_data`` anywhere). The budgets:

=================================================  ==========  ==============================================
cache (``explorer.``)                              MiB         holds
=================================================  ==========  ==============================================
``training.prepared``                              256         the Learning page's features (float32, at most
                                                               :data:`explorer.features.MAX_CELLS` cells,
                                                               80 MB, each)
``training``: ``train``, ``nonprivate``,           12 × 32     histories and tables of training runs, sweeps,
``dpsgd_curves``, ``ngd_sweep``, ``ngd_frontier``,             frontiers, curves and plans
``ngd_costs``, ``planned``, ``sgd_frontier``,
``client_sizes``, ``tutorial_run``,
``influence``, ``fed_frontier``
``training.published_setting``                     8           three numbers
``state.cached_demo``                              16          the demo tables (census: 6 MB)
``accountant_composition.curve``                   16          ε against k under every accounting
``accountant_planner.plan``, ``accuracy_plan``     2 × 4       one row per accounting
``central_layout._mean_curves``,                   2 × 4       error bounds of each family over the ε grid
``_noise_curves``
``audit_mechanism``: runs, curves                 4 + 1       an audit's counts and intervals (33-41 kB)
``audit_floating_point.attack``                    1           shares, intervals, five outputs (under 1 kB)
``compare_means.mean_curves``,                     2 × 1       a few numbers per mechanism and ε
``compare_quantiles.quantile_curves``
``full_file._aggregate``, ``_schema``              4 + 1       a whole file's aggregates (at most about 200
                                                               rows each), its column names and types
total                                              709         within 1,024
=================================================  ==========  ==============================================
"""

from __future__ import annotations

import collections
import functools
import hashlib
import inspect
import itertools
import pickle
import threading
import weakref
from collections.abc import Callable

import streamlit as st

__all__ = ["bounded", "MIB", "SERVER_BUDGET", "OWNER_KEY", "stats", "owners", "budgets", "clear", "collect"]

MIB = 1024 * 1024
#: The most every shared cache of the server may hold together (the sum of their budgets).
SERVER_BUDGET = 1024 * MIB
#: The ``st.session_state`` key of the session's owner token (:func:`explorer.state` lists it among its own keys).
OWNER_KEY = "_cache_owner"

_STORES: list[_Store] = []
#: Owners whose session has ended, appended by their finalizer and drained by :func:`collect` (a finalizer may run
#: inside any allocation, even one made while a store's lock is held, so it only appends).
_ENDED: collections.deque[int] = collections.deque()
_IDS = itertools.count(1)
_LIVE: weakref.WeakSet = weakref.WeakSet()  # the owner tokens alive (sessions whose state still exists)


class _Owner:
    """A session's token: while the session's state holds it, the results it used are kept."""

    __slots__ = ("id", "__weakref__")

    def __init__(self) -> None:
        self.id = next(_IDS)
        weakref.finalize(self, _ENDED.append, self.id)
        _LIVE.add(self)


def _current_owner() -> int | None:
    """The owner id of the session running this script (served, or an ``AppTest``), or None outside a session."""
    if not st.runtime.exists():
        return None
    try:
        token = st.session_state.get(OWNER_KEY)
        if not isinstance(token, _Owner):
            token = _Owner()
            st.session_state[OWNER_KEY] = token
        return token.id
    except Exception:  # noqa: BLE001 - not in a script run (a thread of the server): no owner
        return None


class _Store:
    """One function's results: key → pickled bytes, least recently used first, within ``max_bytes``."""

    def __init__(self, name: str, max_bytes: int, largest: float = 0.25):
        self.name, self.max_bytes, self.largest = name, int(max_bytes), int(max_bytes * largest)
        self.items: collections.OrderedDict[bytes, bytes] = collections.OrderedDict()
        self.owners: dict[bytes, set[int]] = {}  # the sessions using a result; a result without an entry has none
        self.size = 0
        self.lock = threading.Lock()

    def get(self, key: bytes, owner: int | None = None) -> bytes | None:
        with self.lock:
            blob = self.items.get(key)
            if blob is not None:
                self.items.move_to_end(key)
                if owner is not None:
                    self.owners.setdefault(key, set()).add(owner)
            return blob

    def put(self, key: bytes, blob: bytes, owner: int | None = None) -> None:
        if len(blob) > self.largest:  # one result may not push out all the others
            return
        with self.lock:
            old = self.items.pop(key, None)
            self.size -= len(old) if old is not None else 0
            self.items[key] = blob
            self.size += len(blob)
            if owner is not None:
                self.owners.setdefault(key, set()).add(owner)
            while self.size > self.max_bytes and self.items:
                dropped_key, dropped = self.items.popitem(last=False)
                self.owners.pop(dropped_key, None)
                self.size -= len(dropped)

    def release(self, ended: set[int]) -> int:
        """Forget the owners in ``ended``; drop the results left with none. Returns the bytes dropped."""
        freed = 0
        with self.lock:
            for key, owners in list(self.owners.items()):
                owners -= ended
                if not owners:
                    del self.owners[key]
                    blob = self.items.pop(key, None)
                    if blob is not None:
                        self.size -= len(blob)
                        freed += len(blob)
        return freed

    def clear(self) -> None:
        with self.lock:
            self.items.clear()
            self.owners.clear()
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
        The budget of this function's results, in bytes (``64 * MIB``); counted in :data:`SERVER_BUDGET`.
    spinner : str, optional
        Shown while a result is computed (not on a hit).
    largest : float, default 0.25
        The largest share of the budget one result may take (a larger one is computed again when asked again).
    """

    def decorate(fn: Callable) -> Callable:
        signature = inspect.signature(fn)
        store = _Store(f"{fn.__module__}.{fn.__qualname__}", max_bytes, largest)
        _STORES.append(store)

        @functools.wraps(fn)
        def cached(*args, **kwargs):
            collect()
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            key = _key(fn.__qualname__, {k: v for k, v in bound.arguments.items() if not k.startswith("_")})
            owner = _current_owner()
            blob = store.get(key, owner)
            if blob is not None:
                return pickle.loads(blob)
            if spinner:
                with st.spinner(spinner):
                    value = fn(*args, **kwargs)
            else:
                value = fn(*args, **kwargs)
            try:
                store.put(key, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL), owner)
            except (pickle.PicklingError, TypeError, AttributeError):  # not picklable: computed again next time
                pass
            return value

        cached.store = store
        return cached

    return decorate


def collect() -> int:
    """Drop the results whose every owner session has ended; the bytes dropped (the reaper calls it after a ``gc``)."""
    ended = set()
    while _ENDED:
        ended.add(_ENDED.popleft())
    if not ended:
        return 0
    return sum(store.release(ended) for store in list(_STORES))


def stats() -> dict[str, tuple[int, int]]:
    """``{function: (entries, bytes)}`` for every bounded cache (for benchmarks and the operator)."""
    return {s.name: (len(s.items), s.size) for s in _STORES}


def owners() -> dict[str, int]:
    """How many sessions' tokens are alive, and how many results have no owner (computed outside a session)."""
    ownerless = sum(len(set(s.items) - set(s.owners)) for s in _STORES)
    return {"sessions": len(_LIVE), "ownerless_results": ownerless}


def budgets() -> dict[str, int]:
    """``{function: max_bytes}`` for every bounded cache defined so far (their sum is checked against
    :data:`SERVER_BUDGET` by ``tests/test_cache.py``)."""
    return {s.name: s.max_bytes for s in _STORES}


def clear() -> None:
    """Empty every bounded cache."""
    for store in _STORES:
        store.clear()
