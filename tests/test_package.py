"""Tests for the dpcore package itself: what importing it pulls in, and explicit, complete ``__all__`` lists."""

import importlib
import inspect
import pkgutil
import re
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


#: Modules that state no formula of their own (checks, shared plumbing, re-exports): no References needed.
NO_FORMULA = {
    "dpcore",
    "dpcore.accounting",
    "dpcore.accounting._numerics",
    "dpcore.learning",
    "dpcore.learning._arrays",
    "dpcore.learning._training",
    "dpcore.learning.result",
    "dpcore.noise",
    "dpcore.validation",
}
SOFTWARE = ("Google dp_accounting", "Google differential-privacy", "IBM diffprivlib", "OpenDP")


def references(doc: str) -> list[str]:
    """The entries of the numpydoc ``References`` section of ``doc`` (each ``- ...`` item, joined)."""
    if "\nReferences\n----------\n" not in doc:
        return []
    section = doc.split("\nReferences\n----------\n", 1)[1]
    entries: list[str] = []
    for line in section.splitlines():
        if line.startswith("- "):
            entries.append(line[2:])
        elif line.startswith("  ") and entries:
            entries[-1] += " " + line.strip()
        elif line.strip():
            break  # the section ends at the first line that is not part of an entry
    return entries


@pytest.mark.parametrize("name", [m for m in ["dpcore", *MODULES] if m not in NO_FORMULA])
def test_every_module_cites_its_sources_in_one_format(name):
    # one format across dpcore: a numpydoc References section of "- Authors (year), title, venue, where. link"
    doc = importlib.import_module(name).__doc__ or ""
    assert "\nSources\n" not in doc and "\nSource:" not in doc, f"{name}: use a References section"
    entries = references(doc)
    assert entries, f"{name} has no References section"
    for entry in entries:
        assert re.search(r"https?://|ISBN", entry), f"{name}: no link in {entry!r}"
        if not entry.startswith(SOFTWARE):
            assert re.match(r"[^()]+ \((19|20)\d\d\), ", entry), f"{name}: not 'Authors (year), ...': {entry!r}"


def test_reference_parser_sees_a_bad_entry():
    # negative control: an entry without a year or a link is reported
    doc = "x\n\nReferences\n----------\n- Somebody, a paper without year\n  and without a link\n"
    entry = references(doc)[0]
    assert not re.search(r"https?://|ISBN", entry) and not re.match(r"[^()]+ \((19|20)\d\d\), ", entry)
