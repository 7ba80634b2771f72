"""explorer.blas: the server's OpenBLAS runs one thread once app.py has run, whatever the environment said."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.apptest import ROOT

PROBE = """
import json
import numpy, scipy.linalg  # both wheels' OpenBLAS loaded, as in the server
from explorer import blas
before = blas.openblas_threads()
done = blas.limit_threads()
again = blas.limit_threads()
print(json.dumps({"before": before, "done": done, "again": again, "after": blas.openblas_threads()}))
"""


def _probe(threads: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    if threads is not None:
        env["OPENBLAS_NUM_THREADS"] = threads
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_loaded_openblas_is_set_to_one_thread_once():
    seen = _probe("2")  # what an unset environment gives on a 2-core machine, whatever this one has
    assert any("openblas64_" in name for name in seen["before"]), seen  # numpy's own library is found
    assert set(seen["before"].values()) == {2}, seen  # the probe reads the library's real setting
    assert set(seen["after"]) == set(seen["before"]) and set(seen["after"].values()) == {1}, seen
    assert set(seen["done"].values()) == {1} and seen["again"] == {}, seen  # once per library and process


def test_the_app_sets_it():
    import ctypes

    from explorer import blas
    from tests.apptest import open_page

    for path in blas._openblas_libraries():  # as a server started without the environment variable would be
        found = blas._functions(path)
        if found is not None:
            found[0](ctypes.c_int(2))
    blas._DONE.clear()
    assert set(blas.openblas_threads().values()) == {2}
    open_page("home")  # runs app.py in this process
    assert set(blas.openblas_threads().values()) == {1}
