"""Pages lay out; they decide no privacy fact. An AST guard over the page scripts and their view modules.

A privacy fact (a sensitivity, a noise scale, a stand-in mechanism) has one home in dpcore, by name
(ARCHITECTURE.md). This guard parses every page script and every module a page keeps its views in
(``explorer/<page>_<view>.py``) and reports:

* a number literal passed as a sensitivity, scale, σ or noise multiplier to any public dpcore callable,
  by keyword **or by position** (the position read from the callable's own signature), instance methods
  included, whatever the object is called (``families.family("laplace").noise(eps, 2.0)``);
* ``sqrt`` of a literal (``np.sqrt(2)``: a sensitivity or a calibration written by hand);
* a literal divided by an ε (``4 / eps``: a noise scale written by hand);
* a randomized-response oracle built with a literal k (a stand-in for another mechanism's guarantee);
* noise or densities computed by hand (``np.random.laplace``, ``np.random.normal``, ``np.random.binomial``,
  ``np.exp``, ``math.exp``).
"""

import ast
import importlib
import inspect
import pathlib
import pkgutil

import pytest

import dpcore

ROOT = pathlib.Path(__file__).resolve().parents[1]
FACT_PARAMETERS = {"sensitivity", "scale", "sigma", "noise_multiplier"}
ORACLES = {"GRR", "SUE", "OUE"}
HAND_NOISE = {("random", "laplace"), ("random", "normal"), ("random", "binomial"), ("np", "exp"), ("math", "exp")}


def _positions(fn) -> dict[int, str]:
    """``{index: name}`` of the privacy-fact parameters ``fn`` takes by position (``self``/``cls`` not counted)."""
    try:
        params = [p for p in inspect.signature(fn).parameters.values() if p.name not in ("self", "cls")]
    except (TypeError, ValueError):
        return {}
    return {
        i: p.name
        for i, p in enumerate(params)
        if p.name in FACT_PARAMETERS and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    }


def _fact_positions() -> dict[str, dict[int, str]]:
    """``{"Laplace.from_epsilon": {1: "sensitivity"}, "Laplace": {0: "scale", 1: "sensitivity"}, "noise": {1: ...}}``.

    Every public function, class, class and static method of dpcore's public modules, read from its signature; and
    every public *instance* method of those classes (``Family.noise``), also under its bare name, since a call reaches
    it through an object of any name (``families.family("laplace").noise(eps, 2.0)``, ``fam.noise(eps, 2.0)``). A
    bare name two classes share takes the union of their positions (a literal in any of them is reported).
    """
    names = ["dpcore", "dpcore.accounting"] + [
        info.name
        for info in pkgutil.walk_packages(dpcore.__path__, "dpcore.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    out: dict[str, dict[int, str]] = {}
    for module in (importlib.import_module(name) for name in sorted(set(names))):
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            callables = []
            if inspect.isfunction(obj):
                callables.append((name, obj))
            elif inspect.isclass(obj):
                callables.append((name, obj))
                for attr, raw in vars(obj).items():
                    if attr.startswith("_"):
                        continue
                    if isinstance(raw, (classmethod, staticmethod)):
                        callables.append((f"{name}.{attr}", getattr(obj, attr)))
                    elif inspect.isfunction(raw):  # an instance method: its receiver is any expression
                        callables += [(f"{name}.{attr}", raw), (attr, raw)]
            for key, fn in callables:
                if positions := _positions(fn):
                    out[key] = {**out.get(key, {}), **positions}
    return out


POSITIONS = _fact_positions()


def _literal(node) -> bool:
    """A number written in the code (``2``, ``2.0``, ``-1``, ``2 * 1``)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _literal(node.left) and _literal(node.right)
    return False


def _leading_literal(node) -> bool:
    """A literal, or a product that starts with one (``2 * np.log(1.25 / d)``)."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return _leading_literal(node.left)
    return _literal(node)


def _dotted(node) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else node.attr
    return ""


def _mentions_epsilon(node) -> bool:
    return any(isinstance(n, ast.Name) and "eps" in n.id.lower() for n in ast.walk(node)) or any(
        isinstance(n, ast.Attribute) and "eps" in n.attr.lower() for n in ast.walk(node)
    )


def facts(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` of every privacy fact or hand-made noise decided in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            short = ".".join(name.split(".")[-2:]) if "." in name else name
            for kw in node.keywords:
                if kw.arg in FACT_PARAMETERS and _literal(kw.value):
                    found.append((node.lineno, f"{kw.arg}= a literal"))
            for key in {name, short, name.split(".")[-1]}:
                for i, param in POSITIONS.get(key, {}).items():
                    if i < len(node.args) and _literal(node.args[i]):
                        found.append((node.lineno, f"{param} as a literal argument of {key}"))
            if name.split(".")[-1] == "sqrt" and node.args and _leading_literal(node.args[0]):
                found.append((node.lineno, "sqrt of a literal"))
            if name.split(".")[-1] in ORACLES and len(node.args) >= 2 and _literal(node.args[1]):
                found.append((node.lineno, "an oracle with a literal k"))
            parts = tuple(name.split(".")[-2:])
            if parts in HAND_NOISE:
                found.append((node.lineno, f"{name}: noise or a density computed by hand"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if _literal(node.left) and _mentions_epsilon(node.right):
                found.append((node.lineno, "a literal over ε"))
    return sorted(set(found))


def laid_out_by_pages() -> list[pathlib.Path]:
    """Every page script, the modules a page keeps its large views in (``explorer/<page>_<view>.py``), and the
    page releases a snippet is made of (``explorer/releases.py``)."""
    pages = sorted((ROOT / "app_pages").glob("*.py"))
    views = sorted(path for page in pages for path in (ROOT / "explorer").glob(f"{page.stem}_*.py"))
    return [*pages, *views, ROOT / "explorer" / "releases.py"]


def test_the_guard_knows_where_dpcore_takes_a_sensitivity():
    assert POSITIONS["Laplace.from_epsilon"] == {1: "sensitivity"}
    assert POSITIONS["Laplace"] == {0: "scale", 1: "sensitivity"}
    assert 2 in POSITIONS["Gaussian.from_epsilon_delta"].keys()
    assert 1 in POSITIONS["noise_mechanism"].keys()
    # instance methods, from their signatures: the registry's noise takes the sensitivity second
    assert POSITIONS["Family.noise"] == POSITIONS["noise"] == {1: "sensitivity"}
    assert "Family.epsilon_for_accuracy" not in POSITIONS  # its sensitivity is keyword-only: caught as a keyword


def test_every_instance_method_taking_a_fact_by_position_is_known_by_its_bare_name():
    from dpcore.families import Family

    for attr, raw in vars(Family).items():
        if not attr.startswith("_") and inspect.isfunction(raw) and _positions(raw):
            assert POSITIONS[attr] == POSITIONS[f"Family.{attr}"] == _positions(raw), attr


@pytest.mark.parametrize(
    "line",
    [
        "Laplace(sensitivity=2, epsilon=eps)",
        "m = Laplace.from_epsilon(eps, 2.0)",  # positional: what the regex guard missed
        "m = dpcore.Laplace.from_epsilon(eps, 2)",
        "g = Gaussian.from_epsilon_delta(eps, d, 1.4142)",
        "n = noise_mechanism(eps, 1, 'laplace')",
        "scale = 4 / eps",
        "scale = 2.0 / settings.epsilon",
        "sigma = np.sqrt(2 * np.log(1.25 / d))",
        "r = GRR(eps, 2)",
        "x + np.random.laplace(0, b)",
        "y = np.exp(eps)",
        "y = math.exp(-eps)",
        "d = dp_sum(v, 0, 1, eps, rng, scale=3)",
        "m = fam.noise(eps, 2.0)",  # an instance method of the registry, positional
        "m = families.family('laplace').noise(eps, 2.0, delta)",  # through a call: the pages' main one
        "m = family.noise(eps, sensitivity=2.0)",
        "a = fam.epsilon_for_accuracy(3.0, 0.95, sensitivity=2)",
    ],
)
def test_the_guard_sees_each_kind_of_fact(line):
    assert facts(line), line


@pytest.mark.parametrize(
    "line",
    [
        "m = Laplace.from_epsilon(eps, REPLACE_ONE.histogram_l1_sensitivity)",
        "m = family.noise(eps, result.mechanism.sensitivity, delta)",
        "m = fam.noise(eps, family.histogram_sensitivity(REPLACE_ONE), delta)",
        "a = fam.epsilon_for_accuracy(3.0, 0.95, sensitivity=q.sensitivity)",
        "r = GRR(eps, k)",
        "x = total / n",
        "half = width / 2",
        "st.slider('ε', 0.1, 10.0, 1.0)",
    ],
)
def test_the_guard_leaves_named_facts_and_layout_alone(line):
    assert not facts(line), line


def test_the_guard_reads_the_view_modules():
    scanned = {str(path.relative_to(ROOT)) for path in laid_out_by_pages()}
    views = ("learning_layout", "learning_noisy_gd", "learning_dp_sgd", "learning_fedavg")
    assert {"app_pages/learning.py", *(f"explorer/{name}.py" for name in views)} <= scanned
    assert "explorer/training.py" not in scanned and "explorer/charts.py" not in scanned


def test_no_page_decides_a_privacy_fact():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {what}"
        for path in laid_out_by_pages()
        for line, what in facts(path.read_text())
    ]
    assert not found, found
