"""Tests for the dpcore package itself: what importing it pulls in, and explicit, complete ``__all__`` lists."""

import importlib
import inspect
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import dpcore
import dpcore.accounting

#: The checkout holding this dpcore: the subprocesses run there, so that they import the same copy.
ROOT = str(Path(dpcore.__file__).resolve().parent.parent)
MODULES = sorted(
    info.name for info in pkgutil.walk_packages(dpcore.__path__, "dpcore.") if not info.name.endswith("__main__")
)


def test_import_pulls_in_no_app_library():
    # a fresh interpreter: importing dpcore and every submodule loads neither streamlit nor plotly
    code = (
        "import importlib, sys\n"
        "import dpcore, pathlib\n"
        "print(pathlib.Path(dpcore.__file__).resolve().parent.parent)\n"
        f"for name in {MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('streamlit', 'plotly')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip().splitlines() == [ROOT, "[]"]


def test_the_import_check_would_catch_a_leak():
    # negative control: the same probe sees plotly once something imports it
    code = "import dpcore, plotly, sys\nprint(sorted(m for m in sys.modules if m == 'plotly'))\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "['plotly']"


@pytest.mark.parametrize("name", ["dpcore", *MODULES])
def test_every_module_has_an_explicit_all(name):
    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), f"{name} has no __all__ list"
    assert len(module.__all__) == len(set(module.__all__)), f"{name}.__all__ repeats a name"
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing, f"{name}.__all__ names what it does not define: {missing}"


@pytest.mark.parametrize("package", [dpcore, dpcore.accounting])
def test_package_all_lists_every_public_name_it_imports(package):
    public = {n for n, v in vars(package).items() if not n.startswith("_") and not inspect.ismodule(v)}
    public |= {n for n in package.__all__ if inspect.ismodule(getattr(package, n))}  # subpackages named on purpose
    assert set(package.__all__) == public
