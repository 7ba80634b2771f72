"""Heavy computations in a bounded pool of worker processes, shared by every session of the server.

Streamlit runs every session's script in threads of one process: a rerun that computes for a minute holds a core
(and the GIL) that the other sessions' reruns need. A page keeps its rerun within about 2 s of CPU and computes
what costs more (audits beyond 10⁶ runs, sweeps, long training) here:

* **A job** is a short list of :class:`Call`\\ s of plain functions (dpcore's mathematics, or
  :mod:`explorer.releases`, the pages' release functions, which import no Streamlit), run in order in a worker
  process; a later call may take an earlier one's result (:class:`Ref`). :func:`run_calls` is the same code run
  inline, so a result is the same number wherever it was computed.
* **The pool** (:class:`JobManager`): at most :data:`WORKERS` jobs run at once (one on a 2-core server, so a core
  stays with the sessions), at most :data:`MAX_WAITING` wait in one queue, first come first served, and one session
  holds at most :data:`PER_SESSION` unfinished jobs; beyond, :meth:`JobManager.submit` refuses in one sentence
  (:class:`Refused`). Sessions asking the same question (the same ``key``) share one job.
* **Workers** are Python processes started with :mod:`subprocess` (an exec, never a bare fork of the threaded
  server) that import dpcore once and then run one job after another, each received and answered over a pipe.
  Not :mod:`multiprocessing`'s spawn or forkserver: Streamlit installs the page script as ``sys.modules["__main__"]``,
  and those start methods run the main module again in every child, so each worker would run the app. A worker
  runs at a lower priority (``nice``), with one BLAS thread and a cap on the memory a job may add
  (:data:`WORKER_MEMORY`); it exits after a job that left it large (:data:`RECYCLE_MB`) and when idle for
  :data:`IDLE_SECONDS`, so its memory goes back to the system.
* **Cancelling** a waiting job removes it from the queue; cancelling a running one kills its worker, and a fresh
  worker is started for the next job. dpcore's functions are single calls with no place to stop between steps, so
  killing the process is the one way to stop them at once (cooperative chunking would mean cutting every audit and
  training loop of dpcore into resumable pieces); the worker shares nothing with the server but its two pipes, so
  nothing is left half-written.
* **Results** go once to the sessions that asked (:meth:`JobManager.result` pops them) and are then dropped; a
  result nobody collects is dropped after :data:`KEEP_SECONDS`, and a job nobody has looked at for
  :data:`ABANDON_SECONDS` (its page closed, or showing something else) is cancelled. Nothing per session is kept at
  module level: the session holds its job ids in ``st.session_state`` (:func:`background`).
* **The page** (:func:`background`) shows a waiting job's place in the queue, a running job's progress (calls done
  and time spent against an estimate) and a Cancel button in a fragment that reruns alone every
  :data:`POLL_SECONDS` (``st.fragment(run_every=...)``): the rest of the page stays as it is and answers its
  widgets meanwhile; when the job ends, the fragment asks for one full rerun, which shows the result.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import math
import os
import pickle
import secrets
import subprocess
import sys
import threading
import time
import traceback
import types
import warnings
from collections.abc import Callable, Hashable, Mapping, Sequence
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for
from multiprocessing.reduction import ForkingPickler
from pathlib import Path

import streamlit as st

from explorer.markup import md, plain_sentence

__all__ = [
    "WORKERS",
    "MAX_WAITING",
    "PER_SESSION",
    "POLL_SECONDS",
    "KEEP_SECONDS",
    "ABANDON_SECONDS",
    "WORKER_MEMORY",
    "ALLOWED_MODULES",
    "Call",
    "Ref",
    "run_calls",
    "Refused",
    "Status",
    "JobManager",
    "manager",
    "owner",
    "background",
    "drop",
    "describe",
]


def _env_int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


#: Jobs running at once (``DPX_JOB_WORKERS``): one on a 2-core server leaves a core to the sessions' reruns.
WORKERS = _env_int("DPX_JOB_WORKERS", 1)
#: Jobs waiting in the queue, all sessions together (``DPX_JOB_QUEUE``): a class of 30 that opens one heavy link
#: shares a job; 16 different heavy questions at once is several minutes of work.
MAX_WAITING = _env_int("DPX_JOB_QUEUE", 16)
#: Unfinished jobs (waiting or running) of one session: a view part each, not a queue filled by one visitor.
PER_SESSION = 3
#: Seconds between two looks of a page at its job (a fragment rerun: a few milliseconds of the server).
POLL_SECONDS = 1.5
#: A result nobody collects is dropped after this many seconds.
KEEP_SECONDS = 600.0
#: A waiting or running job that no session has looked at for this many seconds is cancelled (its page polls every
#: POLL_SECONDS while it shows it; a page that comes back later asks again).
ABANDON_SECONDS = 60.0
#: Memory a job may add to its worker, in bytes of address space (``DPX_JOB_MEMORY_MB``).
WORKER_MEMORY = _env_int("DPX_JOB_MEMORY_MB", 2048) * 1024 * 1024
#: A worker whose resident memory passed this after a job exits, and a fresh one takes its place.
RECYCLE_MB = 600
#: A worker with nothing to do for this many seconds exits (the next job starts a new one, 3 s of imports).
IDLE_SECONDS = 600.0
#: Worker processes that may die in a row while they start before the waiting jobs fail in a sentence.
MAX_FAILED_STARTS = 3
#: Modules a job's functions may come from: dpcore's mathematics, the pages' release functions (plain functions of
#: arrays that the snippets show, no Streamlit), and the engine's aggregates over a file opened by path (the SQL of
#: :mod:`explorer.full_file`, no Streamlit).
ALLOWED_MODULES = ("dpcore", "explorer.releases", "explorer.full_file_scan")
#: Imported by a worker when it starts, so that a job starts at once.
PRELOAD = ("dpcore.audit", "dpcore.learning", "dpcore.accounting", "explorer.releases")
#: A worker's niceness: the sessions' reruns come first when the cores are busy.
NICE = 10
_ROOT = Path(__file__).resolve().parents[1]

WAITING, RUNNING, DONE, FAILED, CANCELLED, UNKNOWN = "waiting", "running", "done", "failed", "cancelled", "unknown"


def _read_only(mapping: dict) -> types.MappingProxyType:
    return types.MappingProxyType(mapping)


# dpcore's results hold read-only mappings (an audit's parameters): they travel back as the same mapping
ForkingPickler.register(types.MappingProxyType, lambda proxy: (_read_only, (dict(proxy),)))


# --------------------------------------------------------------------------- calls


@dataclasses.dataclass(frozen=True)
class Ref:
    """The result of an earlier call of the same job (``item``: one element of it, for a tuple)."""

    call: int
    item: int | None = None


@dataclasses.dataclass(frozen=True)
class Call:
    """One call of a job: ``fn(*args, **kwargs)``, where any argument may be a :class:`Ref`.

    ``fn`` is a module-level function of :data:`ALLOWED_MODULES` (a worker finds it by its name); ``keep=False``
    leaves its result out of what comes back (an intermediate, such as the clients a later call trains on).
    """

    fn: Callable
    args: tuple = ()
    kwargs: Mapping = dataclasses.field(default_factory=dict)
    keep: bool = True

    def __post_init__(self):
        module = getattr(self.fn, "__module__", "") or ""
        name = getattr(self.fn, "__qualname__", "") or ""
        allowed = any(module == m or module.startswith(m + ".") for m in ALLOWED_MODULES)
        if not allowed or not name or "<" in name or "." in name:
            raise TypeError(
                f"a job runs module-level functions of {', '.join(ALLOWED_MODULES)}, got {module}.{name or self.fn!r}"
            )


def _resolve(value, results: list):
    if isinstance(value, Ref):
        found = results[value.call]
        return found if value.item is None else found[value.item]
    return value


def run_calls(calls: Sequence[Call], progress: Callable[[int], None] | None = None) -> list:
    """Run ``calls`` in order (here, or in a worker); the results of the calls kept, ``None`` for the others.

    >>> from dpcore.gdp import gdp_delta, gdp_rho
    >>> run_calls([Call(gdp_rho, (2.0,)), Call(gdp_delta, (1.0, 0.0), keep=False)])
    [2.0, None]
    """
    results: list = []
    for i, call in enumerate(calls):
        args = tuple(_resolve(a, results) for a in call.args)
        kwargs = {k: _resolve(v, results) for k, v in call.kwargs.items()}
        results.append(call.fn(*args, **kwargs))
        if progress is not None:
            progress(i + 1)
    return [r if call.keep else None for r, call in zip(results, calls)]


def _failure_sentence(exc: BaseException) -> str:
    """What a page says of a job that raised: the message of a refusal, a plain sentence for anything else."""
    if isinstance(exc, MemoryError):
        return (
            "The computation needed more memory than a background job may use: lower the runs, the draws or the steps."
        )
    if isinstance(exc, ValueError | TypeError | OverflowError):
        text = str(exc).strip() or type(exc).__name__
        text = text[0].upper() + text[1:]
        return text if text.endswith((".", "!", "?")) else text + "."
    return f"The computation stopped on an internal error ({type(exc).__name__}); the server's log has the details."


# --------------------------------------------------------------------------- a worker process


def _status_kb(field: str) -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _watch_parent(parent: int) -> None:
    """End this worker when the server that started it has gone (a thread of the worker)."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(0)


def serve(read_fd: int, write_fd: int, parent: int, memory: int) -> None:
    """A worker's main loop: take a job from the pipe, run it, send progress after each call and then the results
    (or one sentence); exit on end of file, after :data:`IDLE_SECONDS` idle, or once large (:data:`RECYCLE_MB`)."""
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    try:
        os.nice(NICE)
    except OSError:
        pass
    warnings.simplefilter("ignore")  # a worker's warnings would only fill the server's log
    for module in PRELOAD:
        __import__(module)
    if memory:
        try:
            import resource

            limit = _status_kb("VmSize") * 1024 + memory  # what the imports took, and what a job may add
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        except (ImportError, ValueError, OSError):
            pass
    outbox.send(("ready", os.getpid()))
    while inbox.poll(IDLE_SECONDS):
        try:
            calls = inbox.recv()
        except EOFError:
            return
        try:
            results = run_calls(calls, progress=lambda i: outbox.send(("progress", i)))
            outbox.send(("done", bytes(ForkingPickler.dumps(results))))  # unpickled anew for each session
        except BaseException as exc:  # noqa: BLE001 - whatever it was, the page gets a sentence and the log a traceback
            if not isinstance(exc, ValueError | TypeError | MemoryError):
                traceback.print_exc()
            refusal = exc if isinstance(exc, ValueError | TypeError) else None  # the page words it as it would here
            try:
                outbox.send(("failed", (_failure_sentence(exc), refusal)))
            except Exception:  # noqa: BLE001 - an exception that does not pickle: its sentence is enough
                outbox.send(("failed", (_failure_sentence(exc), None)))
        results = calls = None
        if _status_kb("VmRSS") > RECYCLE_MB * 1024:
            return  # a fresh worker takes the next job: this one's memory goes back to the system


@dataclasses.dataclass(eq=False)
class _Worker:
    process: subprocess.Popen
    inbox: Connection  # the server reads the worker's messages here
    outbox: Connection  # and sends it jobs here
    ready: bool = False
    job: _Job | None = None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)
        self.inbox.close()
        self.outbox.close()


def _start_worker(memory: int) -> _Worker:
    """A new worker process (its imports take a few seconds; it says "ready" when done)."""
    worker_reads, server_writes = os.pipe()
    server_reads, worker_writes = os.pipe()
    env = dict(os.environ)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(name, "1")  # one core per job
    code = (
        f"import sys; sys.path[:0] = {[str(_ROOT), *sys.path]!r}; from explorer.jobs import serve; "
        f"serve({worker_reads}, {worker_writes}, {os.getpid()}, {int(memory)})"
    )
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", code],
            pass_fds=(worker_reads, worker_writes),
            env=env,
            cwd=str(_ROOT),
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        os.close(server_reads)
        os.close(server_writes)
        raise
    finally:
        os.close(worker_reads)
        os.close(worker_writes)
    return _Worker(process, Connection(server_reads, writable=False), Connection(server_writes, readable=False))


# --------------------------------------------------------------------------- the manager


class Refused(Exception):
    """A job the pool does not take, with the sentence a page shows."""


@dataclasses.dataclass(frozen=True)
class Status:
    """Where a job is, for one session.

    ``state``: ``"waiting"`` (``position`` of ``waiting`` in the queue, 1 first), ``"running"`` (``progress`` in
    [0, 1], estimated), ``"done"``, ``"failed"`` or ``"cancelled"`` (``sentence`` says what happened, and
    ``error`` is dpcore's refusal, a ``ValueError`` or ``TypeError``, when that is why it failed), or
    ``"unknown"`` (not, or no longer, this session's job). ``ahead`` is the estimated seconds of work before it
    starts; ``elapsed`` the seconds it has run.
    """

    state: str
    label: str = ""
    position: int = 0
    waiting: int = 0
    running: int = 0
    progress: float = 0.0
    elapsed: float = 0.0
    ahead: float = 0.0
    sentence: str = ""
    error: BaseException | None = None

    @property
    def finished(self) -> bool:
        return self.state not in (WAITING, RUNNING)


@dataclasses.dataclass(eq=False)
class _Job:
    id: str
    key: Hashable
    calls: Sequence[Call] | None
    label: str
    estimate: float
    owners: dict  # owner -> last time it asked
    state: str = WAITING
    submitted: float = 0.0
    started: float = 0.0
    finished: float = 0.0
    calls_done: int = 0
    n_calls: int = 1
    result: object = None
    sentence: str = ""
    error: BaseException | None = None
    worker: _Worker | None = None

    def progress(self, now: float) -> float:
        if self.state == DONE:
            return 1.0
        if self.state != RUNNING:
            return 0.0
        share = self.estimate / self.n_calls if self.estimate > 0 else 0.0
        within = min(0.95, (now - self.started) / share) if share > 0 else 0.0
        return min(0.99, (self.calls_done + within) / self.n_calls)

    def remaining(self, now: float) -> float:
        if self.state == RUNNING:
            return max(0.0, self.estimate - (now - self.started))
        return self.estimate

    def seen(self) -> float:
        return max(self.owners.values(), default=0.0)


class JobManager:
    """The server's pool: one queue, at most ``workers`` jobs running, each in a worker process.

    Parameters
    ----------
    workers : int
        Jobs running at once (worker processes).
    max_waiting : int
        Jobs waiting, all sessions together.
    per_session : int
        Unfinished jobs of one owner.
    keep_seconds : float
        A result nobody collects is dropped after this long.
    abandon_seconds : float
        An unfinished job nobody has asked about for this long is cancelled.
    memory : int
        Bytes of address space a job may add to its worker (0: no cap).
    """

    def __init__(
        self,
        workers: int = WORKERS,
        max_waiting: int = MAX_WAITING,
        per_session: int = PER_SESSION,
        keep_seconds: float = KEEP_SECONDS,
        abandon_seconds: float = ABANDON_SECONDS,
        memory: int = WORKER_MEMORY,
    ):
        self.workers, self.max_waiting, self.per_session = int(workers), int(max_waiting), int(per_session)
        self.keep_seconds, self.abandon_seconds, self.memory = float(keep_seconds), float(abandon_seconds), int(memory)
        self._lock = threading.Condition()
        self._jobs: dict[str, _Job] = {}
        self._by_key: dict[Hashable, str] = {}
        self._waiting: collections.deque[str] = collections.deque()
        self._pool: list[_Worker] = []
        self._failed_starts = 0
        self._thread: threading.Thread | None = None
        self._closed = False
        self._counter = itertools.count(1)

    # ---- what a session calls

    def submit(
        self,
        owner: str,
        calls: Sequence[Call] | Call,
        *,
        key: Hashable = None,
        label: str = "",
        estimate: float = 0.0,
    ) -> str:
        """Queue ``calls`` for ``owner``; the job's id. A job with the same ``key`` already on the server is shared.

        Raises :class:`Refused` (one sentence) when the queue or the owner's share of it is full.
        """
        calls = (calls,) if isinstance(calls, Call) else tuple(calls)
        if not calls or not all(isinstance(c, Call) for c in calls):
            raise TypeError("a job is one or more Call objects")
        now = time.monotonic()
        with self._lock:
            if self._closed:
                raise Refused("The server is shutting down: background computations are no longer taken.")
            self._expire(now)
            shared = self._jobs.get(self._by_key.get(key)) if key is not None else None
            if shared is not None and shared.state not in (WAITING, RUNNING, DONE):
                shared = None
            if shared is not None and owner in shared.owners:
                shared.owners[owner] = now
                return shared.id
            mine = [j for j in self._jobs.values() if owner in j.owners and j.state in (WAITING, RUNNING)]
            if len(mine) >= self.per_session:
                names = "; ".join(j.label for j in mine if j.label) or "the others"
                raise Refused(
                    f"This page already has {len(mine)} computations in the background ({names}), the most one "
                    "visitor may have at once: wait for one to finish, or cancel one."
                )
            if shared is not None:
                shared.owners[owner] = now  # another session asked the same question: one job answers both
                return shared.id
            if len(self._waiting) >= self.max_waiting:
                raise Refused(
                    f"The server is busy: {len(self._waiting)} heavy computations are waiting already, the most it "
                    "queues. Try again in a few minutes, or choose settings this page computes at once."
                )
            job = _Job(
                id=f"{next(self._counter)}-{secrets.token_hex(8)}",
                key=key,
                calls=calls,
                label=label,
                estimate=max(0.0, float(estimate)),
                owners={owner: now},
                submitted=now,
                n_calls=len(calls),
            )
            self._jobs[job.id] = job
            if key is not None:
                self._by_key[key] = job.id
            self._waiting.append(job.id)
            self._ensure_thread()
            self._lock.notify_all()
            return job.id

    def status(self, job_id: str, owner: str) -> Status:
        """Where the job is, if it is ``owner``'s (``"unknown"`` otherwise); asking keeps it from being abandoned."""
        now = time.monotonic()
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or owner not in job.owners:
                return Status(
                    UNKNOWN,
                    sentence="This computation is no longer on the server: it was cancelled, it finished long ago, "
                    "or the server restarted.",
                )
            job.owners[owner] = now
            running = sum(1 for w in self._pool if w.job is not None)
            if job.state == WAITING:
                position = self._waiting.index(job.id) + 1
                ahead = sum(self._jobs[j].remaining(now) for j in list(self._waiting)[: position - 1])
                ahead += sum(w.job.remaining(now) for w in self._pool if w.job is not None)
                return Status(
                    WAITING,
                    job.label,
                    position=position,
                    waiting=len(self._waiting),
                    running=running,
                    ahead=ahead / max(1, self.workers),
                )
            return Status(
                job.state,
                job.label,
                waiting=len(self._waiting),
                running=running,
                progress=job.progress(now),
                elapsed=(job.finished or now) - job.started if job.started else 0.0,
                sentence=job.sentence,
                error=job.error,
            )

    def result(self, job_id: str, owner: str):
        """The results of a finished job, once for each of its owners; dropped when the last has taken them.

        Raises ``LookupError`` when the job is not ``owner``'s or has no result (yet, or any more).
        """
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or owner not in job.owners or job.state != DONE:
                raise LookupError("no finished computation of this session has that id")
            blob = job.result
            del job.owners[owner]
            if not job.owners:
                self._forget(job)
        return pickle.loads(blob)  # a copy of its own for each session, made on the session's thread

    def cancel(self, job_id: str, owner: str) -> bool:
        """Withdraw ``owner`` from the job (and forget a finished one); the job stops when no owner is left.

        False when there was nothing of ``owner``'s to cancel.
        """
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or owner not in job.owners:
                return False
            del job.owners[owner]
            if not job.owners:
                self._stop(job, CANCELLED, "Cancelled.")
                self._forget(job)
                self._lock.notify_all()
            return True

    def counts(self) -> dict:
        """Jobs waiting and running, jobs held, and worker processes (for the operator and the benchmarks)."""
        with self._lock:
            running = sum(1 for w in self._pool if w.job is not None)
            return {
                "waiting": len(self._waiting),
                "running": running,
                "held": len(self._jobs),
                "workers": len(self._pool),
            }

    def shutdown(self) -> None:
        """Stop every job, every worker and the manager's thread."""
        with self._lock:
            self._closed = True
            for job in list(self._jobs.values()):
                self._stop(job, CANCELLED, "The server is shutting down.")
            self._jobs.clear()
            self._by_key.clear()
            for worker in self._pool:
                worker.stop()
            self._pool.clear()
            self._lock.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=10)

    # ---- the manager's thread

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._loop, name="dpx-jobs", daemon=True)
            self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._lock:
                if self._closed:
                    return
                self._expire(time.monotonic())
                if self._waiting and len(self._pool) < self.workers:
                    try:
                        self._pool.append(_start_worker(self.memory))
                    except OSError as exc:  # no process could start: the waiting jobs fail in a sentence
                        self._fail_waiting(f"No background process could start ({exc.strerror or exc}).")
                sending = []
                for worker in self._pool:
                    if worker.ready and worker.job is None and self._waiting:
                        job = self._jobs[self._waiting.popleft()]
                        job.state, job.started, job.worker, worker.job = RUNNING, time.monotonic(), worker, job
                        sending.append((worker, job.calls))
                        job.calls = None  # the worker has them: the manager keeps no copy of the arrays
                if not self._pool:
                    self._lock.wait(timeout=60)
                    continue
                watched = {w.inbox: w for w in self._pool}
            for worker, calls in sending:  # outside the lock: a job's arrays take a moment to send
                try:
                    worker.outbox.send(calls)
                except (OSError, ValueError):  # the worker died meanwhile (or was killed by a cancel)
                    pass
            try:
                ready = wait_for(list(watched), timeout=1.0)
            except (OSError, ValueError):  # a worker was stopped meanwhile and its pipe closed: look again
                ready = []
            with self._lock:
                for inbox in ready:
                    worker = watched[inbox]
                    if worker in self._pool:
                        self._read(worker)

    def _read(self, worker: _Worker) -> None:
        """What the worker sent; its end when its pipe closed (under the lock)."""
        job = worker.job
        try:
            while worker.inbox.poll():
                kind, value = worker.inbox.recv()
                if kind == "ready":
                    worker.ready, self._failed_starts = True, 0
                elif job is not None and kind == "progress":
                    job.calls_done = int(value)
                elif job is not None and kind in ("done", "failed"):
                    job.state, job.finished = (DONE, time.monotonic()) if kind == "done" else (FAILED, time.monotonic())
                    job.result, (job.sentence, job.error) = (value, ("", None)) if kind == "done" else (None, value)
                    job.worker = worker.job = None
                    if kind == "failed" and job.key is not None and self._by_key.get(job.key) == job.id:
                        del self._by_key[job.key]  # a failure is not an answer to share with the next session
                    job = None
            return
        except (EOFError, OSError):
            pass
        # the pipe closed: the worker exited (recycled, idle, or ended by the system)
        if job is not None and job.state == RUNNING:
            job.state, job.finished, job.worker = FAILED, time.monotonic(), None
            job.sentence = (
                "The computation stopped before it finished (the system ended it, most likely for the memory it "
                "needed): lower the runs, the draws or the steps."
            )
        if not worker.ready:  # it died while it started: the next would too, most likely
            self._failed_starts += 1
            if self._failed_starts >= MAX_FAILED_STARTS:
                self._failed_starts = 0
                self._fail_waiting("No background process could start: the server's log says why.")
        worker.job = None
        worker.stop()
        self._pool.remove(worker)
        self._lock.notify_all()

    def _fail_waiting(self, sentence: str) -> None:
        """Fail every waiting job in one sentence (under the lock)."""
        for job_id in list(self._waiting):
            job = self._jobs[job_id]
            self._stop(job, FAILED, sentence)
            if job.key is not None and self._by_key.get(job.key) == job.id:
                del self._by_key[job.key]

    def _stop(self, job: _Job, state: str, sentence: str) -> None:
        """End a job (under the lock): out of the queue, or its worker killed (the loop starts another)."""
        if job.state == WAITING and job.id in self._waiting:
            self._waiting.remove(job.id)
        elif job.state == RUNNING and job.worker is not None:
            worker, job.worker = job.worker, None
            worker.job = None
            worker.stop()
            if worker in self._pool:
                self._pool.remove(worker)
        if job.state in (WAITING, RUNNING):
            job.state, job.sentence, job.finished = state, sentence, time.monotonic()
        job.calls = None

    def _forget(self, job: _Job) -> None:
        self._jobs.pop(job.id, None)
        if job.key is not None and self._by_key.get(job.key) == job.id:
            del self._by_key[job.key]

    def _expire(self, now: float) -> None:
        """Cancel jobs nobody looks at, drop results nobody collected (under the lock)."""
        for job in list(self._jobs.values()):
            if job.state in (WAITING, RUNNING) and now - job.seen() > self.abandon_seconds:
                self._stop(job, CANCELLED, "Nobody was waiting for it any more.")
                self._forget(job)
            elif job.state not in (WAITING, RUNNING) and now - max(job.finished, job.seen()) > self.keep_seconds:
                self._forget(job)


_MANAGER: JobManager | None = None
_MANAGER_LOCK = threading.Lock()


def manager() -> JobManager:
    """The server's one pool (created at the first heavy job)."""
    global _MANAGER
    with _MANAGER_LOCK:
        if _MANAGER is None:
            _MANAGER = JobManager()
        return _MANAGER


# --------------------------------------------------------------------------- a page's side

#: Session-state keys: the session's owner token, and its jobs by slot.
OWNER_KEY = "jobs_owner"
SLOTS_KEY = "jobs_slots"


@dataclasses.dataclass
class _Slot:
    """One computation of a page in this session: its arguments, its job, then its result or what went wrong."""

    key: Hashable
    job: str | None = None
    results: list | None = None
    sentence: str = ""
    error: BaseException | None = None
    state: str = WAITING


def owner() -> str:
    """This session's token (its jobs are its own: another session cannot read or cancel them)."""
    if OWNER_KEY not in st.session_state:
        st.session_state[OWNER_KEY] = secrets.token_hex(16)
    return st.session_state[OWNER_KEY]


def _slots() -> dict[str, _Slot]:
    if SLOTS_KEY not in st.session_state:
        st.session_state[SLOTS_KEY] = {}
    return st.session_state[SLOTS_KEY]


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, math.ceil(seconds)):.0f} s"
    return f"{seconds / 60:.0f} min"


def describe(status: Status) -> str:
    """A waiting or running job in one sentence (the page's words for the queue).

    >>> describe(Status("waiting", "3 000 000 runs", position=2, waiting=3, running=1, ahead=40))
    '3 000 000 runs: waiting in the queue, 2nd of 3, behind 1 running; about 40 s of work before it starts.'
    >>> describe(Status("waiting", "Training", position=1, waiting=1))
    'Training: next in the queue, waiting for a background process to start (a few seconds).'
    >>> describe(Status("running", "Training", progress=0.5, elapsed=12))
    'Training: running in the background for 12 s, about 50% done.'
    """
    if status.state == WAITING and status.position == 1 and not status.running:
        return f"{status.label}: next in the queue, waiting for a background process to start (a few seconds)."
    if status.state == WAITING:
        line = f"{status.label}: waiting in the queue, {_ordinal(status.position)} of {status.waiting}"
        line += f", behind {status.running} running" if status.running else ""
        return line + (f"; about {_duration(status.ahead)} of work before it starts." if status.ahead else ".")
    return (
        f"{status.label}: running in the background for {_duration(status.elapsed)}, about {status.progress:.0%} done."
    )


def _cancel(slot: str) -> None:
    mine = _slots().get(slot)
    if mine is not None and mine.job is not None:
        manager().cancel(mine.job, owner())
        mine.job, mine.state, mine.sentence = None, CANCELLED, "Cancelled."


def _forget(slot: str) -> None:
    _slots().pop(slot, None)


def drop(slot: str) -> None:
    """The page computes ``slot`` at once now: cancel this session's job for it, if one is unfinished, and forget it."""
    mine = _slots().pop(slot, None)
    if mine is not None and mine.job is not None:
        manager().cancel(mine.job, owner())


@st.fragment(run_every=POLL_SECONDS)
def _follow(slot: str) -> None:
    """The job's place in the queue or its progress, and a Cancel button; reruns alone until the job ends."""
    mine = _slots().get(slot)
    if mine is None or mine.job is None:
        return
    status = manager().status(mine.job, owner())
    if status.finished:
        st.rerun()  # the whole page, once: it shows the result
    with st.container(border=True):
        if status.state == WAITING:
            st.progress(0.0, text=describe(status))
            st.caption(
                f"Heavy computations run one after another in a pool of {manager().workers} background "
                f"process{'es' if manager().workers > 1 else ''}, so that every visitor's page stays quick. "
                "You may change other settings meanwhile; the result appears here."
            )
        else:
            st.progress(status.progress, text=describe(status))
            st.caption("The progress is estimated from the work asked; the result appears here.")
        st.button("Cancel", key=f"jobs_cancel_{slot}", on_click=_cancel, args=(slot,), icon=":material/cancel:")


def background(slot: str, key: Hashable, calls: Sequence[Call], *, label: str, estimate: float = 0.0) -> list | None:
    """The results of ``calls`` for this session, computed in the pool: a list (as :func:`run_calls` gives) once ready.

    Until then it draws, where it is called, the job's place in the queue or its progress with a Cancel button
    (a fragment polling on its own), or what went wrong, and returns ``None``. ``slot`` names the computation in
    the page (one job and one result per slot and session); ``key`` identifies its arguments: a new key
    cancels the slot's unfinished job and submits the new one. The result stays with the session for this key.
    ``label`` names the computation in the page's sentences; ``estimate`` is its expected CPU seconds.
    """
    slots = _slots()
    mine = slots.get(slot)
    if mine is not None and mine.key != key:
        drop(slot)
        mine = None
    for attempt in range(2):
        if mine is None:
            try:
                job = manager().submit(owner(), calls, key=key, label=label, estimate=estimate)
            except Refused as exc:
                st.warning(md(exc), icon=":material/hourglass_top:")
                st.button("Try again", key=f"jobs_retry_{slot}")
                return None
            mine = slots[slot] = _Slot(key, job)
        if mine.results is not None or mine.job is None:
            break
        status = manager().status(mine.job, owner())
        if status.state == UNKNOWN and attempt == 0:  # dropped while the page looked elsewhere: ask again
            mine = None
            continue
        if status.state == DONE:
            try:
                mine.results, mine.job, mine.state = manager().result(mine.job, owner()), None, DONE
            except LookupError:
                mine.job, mine.state, mine.sentence = None, FAILED, "The result was lost on the way: try again."
        elif status.finished:
            manager().cancel(mine.job, owner())  # the server need not keep a failure for this session
            mine.job, mine.state, mine.sentence, mine.error = None, status.state, status.sentence, status.error
        break
    if mine.results is not None:
        return mine.results
    if mine.job is not None:
        _follow(slot)
    elif mine.state == CANCELLED:
        st.info(f"{md(label)}: cancelled.", icon=":material/cancel:")
        st.button("Run it", key=f"jobs_rerun_{slot}", on_click=_forget, args=(slot,))
    else:
        text = plain_sentence(mine.error) if mine.error is not None else mine.sentence  # as the page says it inline
        st.error(md(text or "The computation did not finish."), icon=":material/error:")
        st.button("Try again", key=f"jobs_retry_{slot}", on_click=_forget, args=(slot,))
    return None
