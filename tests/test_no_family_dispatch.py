"""No code outside dpcore.families decides what a mechanism family is by its name.

A family is looked up in the registry (``families.family(key)``) and then asked
(``.takes_delta``, ``.norm``, ``.model``, ``.counts(...)``); code that compares a
string with a family's key or name, calls ``startswith`` with one, or keeps a
dict keyed by family names is a second registry that the next family would
have to find. This test parses every module of ``dpcore``, ``explorer`` and
``app_pages`` and reports each such place, with negative controls showing the
scanner finds all three forms.
"""

import ast
import pathlib

import pytest

from dpcore import families

ROOT = pathlib.Path(__file__).resolve().parents[1]
WORDS = {w.lower() for f in families.FAMILIES.values() for w in (f.key, f.name)}
REGISTRY = ROOT / "dpcore" / "families.py"

#: Modules known to dispatch on a family's name, with how many places, each to be moved onto the registry: the
#: counts may only shrink (a count larger than what is found fails the test too, so that it is lowered).
KNOWN: dict[str, int] = {}


def _family_string(node) -> bool:
    """A string constant naming a family: its key or name, alone or leading a label ("Laplace (central)")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        text = node.value.strip().lower()
        return text in WORDS or any(text.startswith(w + " (") or text.startswith(w + ",") for w in WORDS)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_family_string(e) for e in node.elts)
    return False


def dispatches(source: str) -> list[tuple[int, str]]:
    """``(line, form)`` of every string dispatch on a family name in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(
            isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops
        ):
            if any(_family_string(n) for n in [node.left, *node.comparators]):
                found.append((node.lineno, "comparison with a family name"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith") and any(_family_string(a) for a in node.args):
                found.append((node.lineno, f"{node.func.attr} with a family name"))
        elif isinstance(node, ast.Dict):
            named = [k for k in node.keys if k is not None and _family_string(k)]
            if len(named) >= 2:
                found.append((node.lineno, "a table keyed by family names"))
        elif isinstance(node, ast.Match):
            for case in node.cases:
                if isinstance(case.pattern, ast.MatchValue) and _family_string(case.pattern.value):
                    found.append((case.pattern.lineno, "a match case on a family name"))
    return found


def scanned() -> list[pathlib.Path]:
    paths = [*(ROOT / "dpcore").rglob("*.py"), *(ROOT / "explorer").glob("*.py"), *(ROOT / "app_pages").glob("*.py")]
    return sorted(p for p in paths if p != REGISTRY)


@pytest.mark.parametrize(
    "source",
    [
        'if noise == "gaussian":\n    pass',
        'x = kind != "Laplace"',
        'ok = name in ("GRR", "SUE")',
        'if name.startswith(("GRR", "SUE", "OUE")):\n    pass',
        'if label.startswith("Laplace"):\n    pass',
        'table = {"GRR": 1, "OUE": 2}',
        'colours = {"Laplace (central)": "#000", "Gaussian (central)": "#fff"}',
        'match kind:\n    case "staircase":\n        pass',
    ],
)
def test_the_scanner_finds_every_form_of_dispatch(source):
    assert dispatches(source), source


@pytest.mark.parametrize(
    "source",
    [
        'family = families.family("gaussian")',  # a lookup in the registry is how it is done
        "if family.takes_delta:\n    pass",
        'title = "Laplace noise on a count"',  # words in a sentence
        'if query == "count":\n    pass',
        'table = {"count": 1, "sum": 2}',
        'colours = {"GRR": "#000", "naive": "#fff"}',  # one family name is a label, not a dispatch table
    ],
)
def test_the_scanner_leaves_lookups_and_other_strings_alone(source):
    assert not dispatches(source), source


def test_no_module_dispatches_on_a_family_name():
    found: dict[str, list[str]] = {}
    for path in scanned():
        for line, form in dispatches(path.read_text()):
            found.setdefault(str(path.relative_to(ROOT)), []).append(f"{path.relative_to(ROOT)}:{line}: {form}")
    report = [place for name, places in found.items() if len(places) > KNOWN.get(name, 0) for place in places]
    assert not report, "look the family up in dpcore.families instead:\n" + "\n".join(report)
    stale = {name: count for name, count in KNOWN.items() if len(found.get(name, [])) < count}
    assert not stale, f"fewer places than KNOWN says, lower it: { {n: len(found.get(n, [])) for n in stale} }"
