"""The byte-bounded cache shared by every session (explorer.cache)."""

import gc
import importlib
import pathlib
import pickle
import pkgutil
import threading

import numpy as np

import explorer
from explorer import cache

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_a_hit_returns_an_equal_fresh_copy_and_skips_the_work():
    calls = []

    @cache.bounded(cache.MIB)
    def f(n, scale):
        calls.append(n)
        return np.arange(n) * scale

    a = f(10, 2)
    b = f(10, 2)
    assert calls == [10] and np.array_equal(a, b) and a is not b
    b[0] = 99  # a caller changing its copy changes nobody else's
    assert f(10, 2)[0] == 0
    f(10, 3)
    assert calls == [10, 10]


def test_arguments_named_with_an_underscore_are_not_part_of_the_key():
    calls = []

    @cache.bounded(cache.MIB)
    def f(key, _data):
        calls.append(key)
        return len(_data)

    assert f("a", [1, 2]) == 2 and f("a", [1, 2, 3]) == 2  # the caller's key identifies _data
    assert calls == ["a"]


def test_results_are_evicted_least_recently_used_first_by_bytes():
    @cache.bounded(100_000)
    def f(i):
        return np.zeros(2_000) + i

    blob = len(pickle.dumps(np.zeros(2_000), protocol=pickle.HIGHEST_PROTOCOL))  # about 16 kB each
    for i in range(10):
        f(i)
    assert len(f.store.items) == 100_000 // blob and f.store.size == len(f.store.items) * blob
    kept = 100_000 // blob
    assert [pickle.loads(b)[0] for b in f.store.items.values()] == [float(i) for i in range(10 - kept, 10)]
    f(10 - kept)  # a hit moves the oldest to the end: the next insertion drops the second oldest
    f(10)
    assert [pickle.loads(b)[0] for b in f.store.items.values()][-2:] == [float(10 - kept), 10.0]
    assert float(10 - kept + 1) not in [pickle.loads(b)[0] for b in f.store.items.values()]


def test_a_result_larger_than_a_quarter_of_the_budget_is_not_kept():
    calls = []

    @cache.bounded(100_000)
    def f(n):
        calls.append(n)
        return np.zeros(n)

    f(5_000)  # 40 kB > 25 kB
    f(5_000)
    assert calls == [5_000, 5_000] and f.store.size == 0


def test_stats_and_clear_cover_every_cache():
    @cache.bounded(cache.MIB)
    def g(x):
        return x

    g(1)
    assert cache.stats()[g.store.name][0] >= 1
    cache.clear()
    assert g.store.size == 0 and not g.store.items


def test_parallel_callers_keep_the_accounting_of_bytes_exact():
    @cache.bounded(200_000)
    def f(i):
        return np.full(1_000, float(i))

    def work(start):
        for i in range(start, start + 200):
            f(i % 50)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert f.store.size == sum(len(b) for b in f.store.items.values()) <= 200_000


# --- a result follows the sessions that use it --------------------------------------------------------------------


class _Sessions:
    """Stand-ins for served sessions: the owner token each would keep in its session state."""

    def __init__(self, monkeypatch):
        self.states: dict[str, dict] = {}
        self.current = None
        monkeypatch.setattr(cache, "_current_owner", self._owner)

    def _owner(self):
        if self.current is None:
            return None
        state = self.states.setdefault(self.current, {})
        state.setdefault(cache.OWNER_KEY, cache._Owner())
        return state[cache.OWNER_KEY].id

    def end(self, name):
        del self.states[name]  # the session's state goes with its session
        gc.collect()


def test_a_result_goes_when_the_last_session_that_used_it_ends(monkeypatch):
    sessions = _Sessions(monkeypatch)
    calls = []

    @cache.bounded(cache.MIB)
    def f(x):
        calls.append(x)
        return np.full(100, x)

    sessions.current = "a"
    f(1), f(2)
    sessions.current = "b"
    f(2)  # a hit: b uses it too
    assert calls == [1, 2] and len(f.store.items) == 2
    sessions.end("a")
    assert cache.collect() > 0
    assert len(f.store.items) == 1 and f.store.size == len(next(iter(f.store.items.values())))  # 2 stays for b
    f(2)
    assert calls == [1, 2]
    sessions.end("b")
    cache.collect()
    assert not f.store.items and f.store.size == 0 and not f.store.owners
    f(2)
    assert calls == [1, 2, 2]  # computed again for whoever asks next


def test_a_result_computed_outside_a_session_has_no_owner_and_stays(monkeypatch):
    sessions = _Sessions(monkeypatch)

    @cache.bounded(cache.MIB)
    def f(x):
        return x

    f(1)  # a test or a benchmark calling it directly: no session
    sessions.current = "a"
    f(2)
    sessions.end("a")
    cache.collect()
    assert [pickle.loads(b) for b in f.store.items.values()] == [1]


def test_an_evicted_result_forgets_its_owners(monkeypatch):
    sessions = _Sessions(monkeypatch)
    sessions.current = "a"

    @cache.bounded(100_000)
    def f(i):
        return np.zeros(2_000) + i

    for i in range(10):
        f(i)
    assert set(f.store.owners) == set(f.store.items)  # no owner entry outlives its result
    sessions.end("a")
    cache.collect()
    assert not f.store.items and not f.store.owners and f.store.size == 0


def test_outside_a_streamlit_session_there_is_no_owner():
    assert cache._current_owner() is None  # no Streamlit runtime in pytest


# --- the server's total -------------------------------------------------------------------------------------------


def test_every_budget_together_stays_within_the_server_total():
    for module in pkgutil.iter_modules(explorer.__path__):
        importlib.import_module(f"explorer.{module.name}")
    bounded = cache.budgets()
    assert {"explorer.training.prepared", "explorer.state.cached_demo", "explorer.accountant_composition.curve"} <= set(
        bounded
    )
    total = sum(bounded.values())  # no st.cache_data is left to count by entries (tests/test_shared_caches.py)
    assert total <= cache.SERVER_BUDGET, (
        f"{total / cache.MIB:.0f} MiB of caches over {cache.SERVER_BUDGET / cache.MIB:.0f}"
    )
