"""One BLAS thread in the server process, so that one session's matrix product does not spin on every core.

numpy and scipy ship OpenBLAS, which starts as many threads as the machine has cores for each large product and
keeps them spinning for a while afterwards. In a Streamlit server every session's script runs in one process: with
two cores and several sessions, a product split over two threads competes with the other sessions' runs and its
threads' spinning is counted as CPU. Measured on the Learning page's DP-SGD view under load, the same products cost
1.53 s of CPU with OpenBLAS's threads and 0.10 s with one. The job workers (:mod:`explorer.jobs`) already start
with one thread through the environment; the server process is started by ``streamlit run``, after numpy is
imported, so the environment is read too late there: this sets the number through OpenBLAS's own function, found
in the libraries the process has loaded (as ``threadpoolctl`` does, without adding that dependency).
"""

from __future__ import annotations

import ctypes
import os
import threading

__all__ = ["limit_threads", "openblas_threads"]

#: OpenBLAS's setter and getter, by the prefix the wheels give their symbols (numpy's 64-bit-integer build, scipy's
#: 32-bit one, a system OpenBLAS).
_SYMBOLS = (
    ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
    ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
    ("openblas_set_num_threads64_", "openblas_get_num_threads64_"),
    ("openblas_set_num_threads", "openblas_get_num_threads"),
)
_LOCK = threading.Lock()
_DONE: set[str] = set()  # the process's libraries already set (process-wide, like the libraries themselves)


def _openblas_libraries() -> list[str]:
    """Paths of the OpenBLAS libraries this process has loaded (from ``/proc/self/maps``; none elsewhere)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and "/" in line}
    except OSError:
        return []
    return sorted(p for p in paths if os.path.basename(p).startswith("lib") and ".so" in p)


def _functions(path: str):
    """``(set, get)`` of the library at ``path``, or None."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for setter, getter in _SYMBOLS:
        if hasattr(lib, setter) and hasattr(lib, getter):
            return getattr(lib, setter), getattr(lib, getter)
    return None


def limit_threads(threads: int = 1) -> dict[str, int]:
    """Set every loaded OpenBLAS to ``threads`` threads, once per library and process; returns what it set, by
    library file name (empty when every library was already set, or none is loaded)."""
    done = {}
    with _LOCK:
        for path in _openblas_libraries():
            if path in _DONE:
                continue
            found = _functions(path)
            if found is not None:
                found[0](ctypes.c_int(threads))
                done[os.path.basename(path)] = int(found[1]())
            _DONE.add(path)
    return done


def openblas_threads() -> dict[str, int]:
    """The threads each loaded OpenBLAS uses now, by library file name."""
    out = {}
    for path in _openblas_libraries():
        found = _functions(path)
        if found is not None:
            out[os.path.basename(path)] = int(found[1]())
    return out
