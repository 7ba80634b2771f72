"""The import graph of ``dpcore`` and ``explorer``: no cycle, and no module importing another module's private name.

The graph is built from the source with :mod:`ast`, not by importing: every ``import`` and ``from ... import``
statement counts, at module level and inside functions alike (a function-level import only delays a cycle to the
first call), relative imports resolved against the importing module's package. An edge goes to the module that
defines what is imported: ``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to ``a.b``
(its ``__init__``). The implicit initialisation of parent packages is not an edge (every submodule would otherwise
make a cycle with a package that re-exports it).

A private name is one with a leading underscore that is not a dunder. ``from a.b import _c`` outside ``a.b`` imports
a helper that ``a.b`` does not publish: the helper belongs public in its one home (with a docstring), or moved. A
private *module* (``dpcore._roots``, ``dpcore.accounting._numerics``) is shared plumbing of its package: it may be
imported from inside the package that holds it, not from outside.

Negative controls feed the same helper functions small synthetic packages with a cycle and with private imports.
"""

from __future__ import annotations

import ast
import pathlib
from typing import NamedTuple

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("dpcore", "explorer", "dpx_publish", "app_pages")

#: Private imports inside explorer/ owned by the engineers working there, each ``(importer, "module.name")``. It may
#: only shrink: the test fails when an item here no longer occurs, so that it is removed when fixed.
KNOWN_EXPLORER: set[tuple[str, str]] = set()

#: Private imports inside dpcore/ whose fix is in a module outside the accounting and the audit (the paths of the
#: change that added this test): the name must be made public in its home, whose owner does that. Same rule as
#: above: it may only shrink, and an item that no longer occurs fails the test.
KNOWN_DPCORE: set[tuple[str, str]] = set()


class Import(NamedTuple):
    """One imported thing: the module holding it, the name taken from it (None for ``import a.b``), the line."""

    module: str
    name: str | None
    line: int


def sources_of(root: pathlib.Path, packages=PACKAGES) -> dict[str, tuple[str, bool]]:
    """``{module name: (source, is_package)}`` for every ``.py`` file of ``packages`` under ``root``."""
    out = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            name = ".".join(parts[:-1] if is_package else parts)
            out[name] = (path.read_text(encoding="utf-8"), is_package)
    return out


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module a ``from ... import`` names, relative levels resolved."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    if node.level - 1 > len(base) - 1:
        raise ValueError(f"{module}: relative import beyond the top-level package (line {node.lineno})")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, source: str, is_package: bool, modules) -> list[Import]:
    """Every import of ``source`` (module and function level), as :class:`Import` s; ``modules``: the known modules."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [Import(alias.name, None, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(module, is_package, node)
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in modules:  # ``from a.b import c`` with a.b.c a module
                    found.append(Import(submodule, None, node.lineno))
                else:
                    found.append(Import(target, alias.name, node.lineno))
    return found


def import_graph(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """``{module: modules it imports}``, restricted to the modules of ``sources``."""
    graph = {}
    for module, (source, is_package) in sources.items():
        targets = {i.module for i in imports_of(module, source, is_package, sources)}
        graph[module] = {t for t in targets if t in sources and t != module}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle ``[a, b, ..., a]`` through each strongly connected component of more than one module.

    Tarjan's algorithm, iterative (no recursion limit), then a breadth-first path back to the component's first
    module inside the component.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(component)
    cycles = []
    for component in components:
        start = min(component)
        paths = {child: [start, child] for child in sorted(graph[start]) if child in component}
        frontier = list(paths)
        while start not in paths:
            nxt = []
            for node in frontier:
                for child in sorted(graph[node]):
                    if child in component and child not in paths:
                        paths[child] = paths[node] + [child]
                        nxt.append(child)
            frontier = nxt
        cycles.append(paths[start])
    return sorted(cycles)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def private_imports(sources: dict[str, tuple[str, bool]]) -> set[tuple[str, str]]:
    """``(importer, "module.name")`` for every import of another module's private name, or of a private module
    from outside the package that holds it."""
    found = set()
    for module, (source, is_package) in sources.items():
        for imp in imports_of(module, source, is_package, sources):
            if imp.name is not None and _private(imp.name) and imp.module != module:
                found.add((module, f"{imp.module}.{imp.name}"))
            parts = imp.module.split(".")
            for depth, part in enumerate(parts):
                # a private module: importable from inside its parent package only
                if _private(part) and not _inside(module, ".".join(parts[:depth])):
                    found.add((module, imp.module))
                    break
    return found


# ---------------------------------------------------------------- the checks


@pytest.fixture(scope="module")
def sources():
    found = sources_of(ROOT)
    assert {"dpcore.accounting.pld", "dpcore.accounting.per_release", "explorer.charts"} <= set(found)
    return found


def test_the_import_graph_has_no_cycle(sources):
    cycles = find_cycles(import_graph(sources))
    assert not cycles, "import cycles (each module imports the next):\n" + "\n".join(" → ".join(c) for c in cycles)


def test_events_are_a_leaf_of_the_accounting(sources):
    # the events import no accountant (dp_accounting's dp_event.py): nothing under dpcore.accounting but plumbing
    graph = import_graph(sources)
    accounting = {m for m in graph["dpcore.accounting.events"] if m.startswith("dpcore.accounting")}
    assert accounting <= {"dpcore.accounting._numerics"}, accounting
    assert "dpcore.accounting.per_release" not in graph["dpcore.accounting.privacy_loss"]


def test_no_module_imports_another_modules_private_name(sources):
    found = private_imports(sources)
    dpcore_found = {f for f in found if f[0].startswith("dpcore")}
    explorer_found = found - dpcore_found
    new = sorted((dpcore_found - KNOWN_DPCORE) | (explorer_found - KNOWN_EXPLORER))
    assert not new, "private names imported across modules (make them public in their home):\n" + "\n".join(
        f"{importer} imports {name}" for importer, name in new
    )
    fixed = sorted((KNOWN_DPCORE - dpcore_found) | (KNOWN_EXPLORER - explorer_found))
    assert not fixed, f"fixed, remove from the allowlist: {fixed}"


# ---------------------------------------------------------------- negative controls


def _package(**modules: str) -> dict[str, tuple[str, bool]]:
    """A synthetic package: keyword ``pkg__a`` is module ``pkg.a``; ``pkg`` alone is the package's __init__."""
    return {name.replace("__", "."): (text, "." not in name.replace("__", ".")) for name, text in modules.items()}


def test_a_cycle_is_found_through_a_function_level_import():
    sources = _package(
        pkg="",
        pkg__a="from pkg.b import helper\n",
        pkg__b="def helper():\n    from pkg.c import other\n    return other\n",
        pkg__c="import numpy\n\ndef other():\n    from pkg import a\n    return a\n",
    )
    assert find_cycles(import_graph(sources)) == [["pkg.a", "pkg.b", "pkg.c", "pkg.a"]]


def test_a_cycle_through_relative_imports_and_a_package_init_is_found():
    sources = _package(
        pkg="from .a import f\n",
        pkg__a="from . import b\n\ndef f():\n    return b\n",
        pkg__b="from pkg import f as g\n",
    )
    assert find_cycles(import_graph(sources)) == [["pkg", "pkg.a", "pkg.b", "pkg"]]


def test_an_acyclic_graph_has_no_cycle():
    sources = _package(pkg="", pkg__a="from pkg.b import f\n", pkg__b="from pkg import c\n", pkg__c="x = 1\n")
    assert import_graph(sources) == {"pkg": set(), "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.c"}, "pkg.c": set()}
    assert find_cycles(import_graph(sources)) == []


def test_private_imports_are_found_and_public_ones_left_alone():
    sources = _package(
        pkg="__version__ = '1'\n",
        pkg___util="def helper():\n    pass\n",
        pkg__a="from pkg.b import _secret, public\nfrom pkg import __version__\nfrom pkg._util import helper\n",
        pkg__b="def _secret():\n    pass\n\ndef public():\n    from ._util import helper\n",
        other="from pkg._util import helper\n\ndef f():\n    from pkg.b import _late\n",
        other__c="from pkg import b\nfrom . import _own\n",
    )
    assert private_imports(sources) == {
        ("pkg.a", "pkg.b._secret"),  # a private name of another module
        ("other", "pkg._util"),  # a private module from outside its package
        ("other", "pkg.b._late"),  # inside a function too
        ("other.c", "other._own"),  # a relative import of a private name
    }


def test_relative_imports_resolve_against_the_package():
    sources = _package(
        pkg="", pkg__sub="", pkg__sub__a="from ..b import f\nfrom . import c\n", pkg__b="", pkg__sub__c=""
    )
    assert import_graph(sources)["pkg.sub.a"] == {"pkg.b", "pkg.sub.c"}


#: What dpcore may import besides the standard library and itself: the mathematics needs nothing else.
DPCORE_THIRD_PARTY = {"numpy", "scipy", "pandas"}
#: The engines' libraries (explorer.engine): never imported by dpcore; PySpark only by the Spark backend.
ENGINE_LIBRARIES = {"duckdb", "pyspark", "py4j", "fsspec"}


def _top_level_imports(sources: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """``{module: top-level names of everything it imports}``, relative imports resolved, at any level."""
    out = {}
    for module, (source, is_package) in sources.items():
        found = imports_of(module, source, is_package, sources)
        out[module] = {i.module.split(".")[0] for i in found if i.module}
    return out


def test_dpcore_imports_numpy_scipy_and_pandas_only(sources):
    import sys

    outside = {}
    for module, names in _top_level_imports(sources).items():
        if module.split(".")[0] != "dpcore":
            continue
        extra = names - DPCORE_THIRD_PARTY - set(sys.stdlib_module_names) - {"dpcore"}
        if extra:
            outside[module] = sorted(extra)
    assert not outside, outside


def test_pyspark_is_imported_by_the_spark_backend_only(sources):
    users = {m for m, names in _top_level_imports(sources).items() if names & {"pyspark", "py4j"}}
    assert users <= {"explorer.engine.spark_engine"}, users


def test_the_dpcore_import_check_would_catch_an_engine_import():
    # negative control: a dpcore module importing duckdb (inside a function) is found
    sources = {
        "dpcore": ("", True),
        "dpcore.leak": ("def f():\n    import duckdb\n    from pyspark.sql import F\n", False),
    }
    names = _top_level_imports(sources)["dpcore.leak"]
    assert names & ENGINE_LIBRARIES == {"duckdb", "pyspark"}
