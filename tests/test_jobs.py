"""explorer.jobs: the server's pool of worker processes for heavy computations.

Every wait polls with a generous timeout and no test asserts a duration: the suite runs on 2 busy cores.
"""

from __future__ import annotations

import os
import signal
import time

import numpy as np
import pytest

from dpcore.audit import audit
from dpcore.gdp import gdp_delta, gdp_mu_for_epsilon, gdp_rho
from explorer import jobs
from explorer.jobs import Call, JobManager, Ref, Refused

TIMEOUT = 240  # seconds a condition may take on a loaded machine before the test fails


def wait_for(condition, timeout: float = TIMEOUT, every: float = 0.2):
    """Poll ``condition()`` until it returns something true; that value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = condition()
        if found:
            return found
        time.sleep(every)
    raise AssertionError(f"not reached within {timeout} s")


def finished(pool: JobManager, job: str, owner: str) -> jobs.Status:
    return wait_for(lambda: (s := pool.status(job, owner)).finished and s)


def quick(seed: int = 1) -> tuple[Call, ...]:
    """An audit of a few thousand runs: done in a moment."""
    return (Call(audit, ("laplace_count", 1.0), {"trials": 20_000, "rng": np.random.default_rng(seed)}),)


def slow() -> tuple[Call, ...]:
    """An audit of 10⁷ runs of the lattice Gaussian: half a minute or more, the test cancels it long before."""
    return (Call(audit, ("lattice_gaussian_count", 1.0), {"trials": 10_000_000, "rng": 1}),)


@pytest.fixture(scope="module")
def pool():
    manager = JobManager(workers=1, max_waiting=8, per_session=3)
    yield manager
    manager.shutdown()


@pytest.fixture
def small_pool():
    manager = JobManager(workers=1, max_waiting=2, per_session=2)
    yield manager
    manager.shutdown()


# --------------------------------------------------------------------------- calls, here


def test_calls_run_in_order_and_a_later_call_takes_an_earlier_result():
    mu = gdp_mu_for_epsilon(1.0, 1e-5)
    out = jobs.run_calls(
        [
            Call(gdp_mu_for_epsilon, (1.0, 1e-5)),
            Call(gdp_rho, (Ref(0),), keep=False),
            Call(gdp_delta, (Ref(0), 1.0)),
        ]
    )
    assert out[0] == mu and out[1] is None and out[2] == pytest.approx(1e-5, rel=1e-6)


@pytest.mark.parametrize("fn", [print, lambda: 1, os.getpid, jobs.run_calls])
def test_a_job_runs_only_module_level_functions_of_dpcore_or_the_releases(fn):
    with pytest.raises(TypeError, match="module-level functions of dpcore, explorer.releases"):
        Call(fn)


def test_a_job_may_scan_a_file_by_the_sql_module_but_call_no_function_of_the_page_module():
    from explorer import full_file, full_file_scan

    assert Call(full_file_scan.aggregate, ("f.parquet", "SELECT 1", None)).fn is full_file_scan.aggregate
    for fn in (full_file.whole_numeric, full_file.sample_note, full_file._scan):  # Streamlit's side: never a job
        with pytest.raises(TypeError, match="module-level functions of"):
            Call(fn)


# --------------------------------------------------------------------------- the pool


def test_submit_poll_result_gives_the_same_numbers_as_here(pool):
    job = pool.submit("a", quick(), label="quick audit", estimate=0.1)
    status = pool.status(job, "a")
    assert status.state in ("waiting", "running", "done") and status.label == "quick audit"
    assert finished(pool, job, "a").state == "done"
    (result,) = pool.result(job, "a")
    (here,) = jobs.run_calls(quick())
    assert (result.epsilon_lower, result.hits0, result.hits1) == (here.epsilon_lower, here.hits0, here.hits1)
    assert dict(result.params) == dict(here.params)  # a read-only mapping travels back
    with pytest.raises(LookupError):  # once: then it is gone from the server
        pool.result(job, "a")
    assert pool.status(job, "a").state == "unknown"


def test_a_result_goes_to_its_session_only(pool):
    job = pool.submit("alice", quick(2))
    assert pool.status(job, "mallory").state == "unknown"
    assert not pool.cancel(job, "mallory")
    assert finished(pool, job, "alice").state == "done"
    with pytest.raises(LookupError):
        pool.result(job, "mallory")
    assert pool.result(job, "alice")[0].trials == 20_000


def test_sessions_asking_the_same_question_share_one_job_and_each_gets_the_result(pool):
    first = pool.submit("a", quick(3), key=("same", 3))
    second = pool.submit("b", quick(3), key=("same", 3))
    assert first == second
    finished(pool, first, "a")
    a, b = pool.result(first, "a")[0], pool.result(first, "b")[0]
    assert a.epsilon_lower == b.epsilon_lower and a is not b
    assert pool.counts()["held"] == 0  # both took it: the server keeps nothing


def test_a_failing_job_gives_a_sentence_not_a_traceback(pool):
    job = pool.submit("a", (Call(audit, ("laplace_count", -1.0), {"trials": 1_000, "rng": 0}),))
    status = finished(pool, job, "a")
    assert status.state == "failed"
    assert status.sentence == "Epsilon must be in (0, inf), got -1.0."
    assert "Traceback" not in status.sentence
    assert isinstance(status.error, ValueError)  # dpcore's refusal itself: a page words it as it does inline
    assert jobs._failure_sentence(ZeroDivisionError("x")) == (
        "The computation stopped on an internal error (ZeroDivisionError); the server's log has the details."
    )
    assert "memory" in jobs._failure_sentence(MemoryError())


def test_cancel_a_waiting_job_and_a_running_one(pool):
    running = pool.submit("a", slow(), label="slow")
    wait_for(lambda: pool.status(running, "a").state == "running")
    waiting = pool.submit("b", quick(4), label="behind")
    status = pool.status(waiting, "b")
    assert (status.state, status.position, status.running) == ("waiting", 1, 1)
    assert pool.cancel(waiting, "b")
    assert pool.status(waiting, "b").state == "unknown" and pool.counts()["waiting"] == 0
    worker = pool._pool[0].process
    assert pool.cancel(running, "a")
    assert pool.status(running, "a").state == "unknown"
    wait_for(lambda: worker.poll() is not None)  # its worker was killed
    job = pool.submit("a", quick(5))  # and the next job runs in a fresh one
    assert finished(pool, job, "a").state == "done"
    assert pool._pool[0].process is not worker


def test_a_worker_that_dies_fails_its_job_in_a_sentence(pool):
    job = pool.submit("a", slow())
    wait_for(lambda: pool.status(job, "a").state == "running")
    os.kill(pool._pool[0].process.pid, signal.SIGKILL)  # as the system does to a process out of memory
    status = finished(pool, job, "a")
    assert status.state == "failed" and status.sentence.startswith("The computation stopped before it finished")


def test_the_caps_refuse_in_a_sentence(small_pool):
    first = small_pool.submit("a", slow(), key="a1", label="first")
    small_pool.submit("a", slow(), key="a2", label="second")
    with pytest.raises(Refused) as refused:
        small_pool.submit("a", slow(), key="a3")
    text = str(refused.value)
    assert text.startswith("This page already has 2 computations in the background (first; second)")
    assert text.endswith("wait for one to finish, or cancel one.")
    assert small_pool.submit("a", slow(), key="a1") == first  # the same question again is no new job
    wait_for(lambda: small_pool.status(first, "a").state == "running")
    small_pool.submit("b", slow(), key="b1")  # the queue holds 2 waiting: a2, b1
    with pytest.raises(Refused, match=r"^The server is busy: 2 heavy computations are waiting already"):
        small_pool.submit("c", slow(), key="c1")
    assert small_pool.submit("d", slow(), key="b1")  # a question already queued is answered for a new session too


def test_a_job_nobody_looks_at_is_cancelled():
    manager = JobManager(workers=1, abandon_seconds=1.0, keep_seconds=1.0)
    try:
        job = manager.submit("a", slow())
        wait_for(lambda: manager.counts()["held"] == 0)
        assert manager.status(job, "a").state == "unknown"
    finally:
        manager.shutdown()


def test_workers_that_cannot_start_fail_the_waiting_jobs_in_a_sentence(monkeypatch):
    monkeypatch.setattr(jobs.sys, "executable", "/bin/false")  # every worker exits before it is ready
    manager = JobManager(workers=1)
    try:
        job = manager.submit("a", quick())
        status = finished(manager, job, "a")
        assert status.state == "failed"
        assert status.sentence == "No background process could start: the server's log says why."
    finally:
        manager.shutdown()
