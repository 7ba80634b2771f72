"""The byte-bounded cache shared by every session (explorer.cache)."""

import pickle
import threading

import numpy as np

from explorer import cache


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
