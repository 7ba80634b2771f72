"""The ledger on screen (explorer.budget): how the sidebar writes what was spent, how a release is described, and
the one map of accounting names every page uses."""

import ast
import inspect
import pathlib

import pytest

from dpcore import families
from dpcore.accounting import Charge
from dpcore.accounting.events import PoissonSampledGaussian, PureDP
from dpcore.accounting.per_release import METHOD_NAMES, METHODS
from explorer import budget
from explorer.budget import small_number
from tests.apptest import open_page

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "delta, words",
    [(0.0, "0"), (1e-5, "10⁻⁵"), (1.46e-6, "1.5·10⁻⁶"), (2.5e-10, "2.5·10⁻¹⁰"), (0.02, "0.02")],
)
def test_a_delta_is_written_as_a_power_of_ten(delta, words):
    assert small_number(delta) == words


def test_the_sidebar_ledger_writes_delta_as_the_pages_do():
    # the browser walk read "δ 0 of 1e-05"
    at = open_page("home")
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "δ = 0 of 10⁻⁵ · under" in said and "1e-05" not in said


# ---------------------------------------------------------------------- a release in words: the registry says it


@pytest.mark.parametrize("f", list(families.FAMILIES.values()), ids=list(families.FAMILIES))
def test_a_familys_release_is_described_and_its_noise_named_by_its_family(f):
    m = f.counts(2.0, 4, delta=1e-5).mechanism
    assert budget.describe(m) == f.describe(m)
    assert budget.noise_parameter(m) == f.noise_parameter(m)


def test_an_event_is_described_by_its_own_numbers_and_has_no_noise_parameter():
    run = PoissonSampledGaussian(noise_multiplier=1.1, sampling_rate=0.004, steps=2_500)
    assert budget.describe(run) == "DP-SGD run: σ = 1.1, q = 0.004, T = 2,500"
    assert budget.describe(PureDP(0.5)) == "PureDP, ε = 0.5"
    assert budget.noise_parameter(run) is None and budget.noise_parameter(PureDP(0.5)) is None


def test_the_ledger_view_does_not_dispatch_on_mechanism_classes():
    # describe and noise_parameter tested isinstance(Laplace/Gaussian) and hasattr(k, noise_multiplier)
    tree = ast.parse(inspect.getsource(budget))
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    assert not [n.lineno for n in calls if n.func.id == "hasattr"]
    mechanism_classes = {f.kind.__name__ for f in families.FAMILIES.values()} | {"PoissonSampledGaussian", "PureDP"}
    tested = {ast.unparse(n.args[1]) for n in calls if n.func.id == "isinstance"}
    assert not {name for name in mechanism_classes if any(name in t for t in tested)}, tested


# ---------------------------------------------------------------------- accounting names: one map


#: Every word a page has used for an accounting method: dpcore's keys, their names, and the synonyms seen before.
ACCOUNTING_WORDS = {*METHODS, *METHOD_NAMES.values(), "sequential", "advanced", "exact", "RDP", "zCDP", "PLD"}


def name_maps(source: str) -> list[int]:
    """Lines of the dict literals in ``source`` that name accounting methods by hand: two or more of their string
    keys or values are accounting words (``{"basic": "sequential", "rdp": "RDP"}``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            strings = [n.value for n in (*node.keys, *node.values) if isinstance(n, ast.Constant)]
            if sum(isinstance(v, str) and v in ACCOUNTING_WORDS for v in strings) >= 2:
                found.append(node.lineno)
    return found


@pytest.mark.parametrize(
    "source",
    [
        'COST_NAMES = {"basic": "sequential", "rdp": "RDP", "exact": "exact (μ-GDP)"}',
        'NGD = {"exact": "exact", "RDP": "rdp", "sequential": "basic"}',
        'WORDS = {"basic": "basic composition", "rdp": "RDP composition"}',
        'CAL = {"PLD": ("pld", "balle"), "RDP": ("rdp", "balle")}',
    ],
)
def test_the_scan_finds_a_hand_made_map_of_accounting_names(source):
    assert name_maps(source), source


def test_the_scan_leaves_the_one_map_and_other_dicts_alone():
    assert not name_maps("NAMES = {m: accounting_name(m) for m in METHODS}")
    assert not name_maps('{"label": "Count", "query": "count"}')


def test_no_page_or_view_keeps_its_own_map_of_accounting_names():
    # budget.ACCOUNTING_WORDS, training.NGD_ACCOUNTINGS, learning_noisy_gd.COST_NAMES and the DP-SGD calibrations each
    # named the accountings their own way: Learning said "sequential" where the Accountant said "basic"
    paths = [*sorted((ROOT / "app_pages").glob("*.py")), *sorted((ROOT / "explorer").glob("*.py"))]
    found = [f"{p.relative_to(ROOT)}:{line}" for p in paths for line in name_maps(p.read_text())]
    assert not found, found


def test_every_accounting_name_on_screen_is_the_one_maps():
    from explorer import accountant_layout, learning_dp_sgd, training

    assert accountant_layout.NAMES is METHOD_NAMES
    assert [budget.accounting_name(m) for m in METHODS] == [METHOD_NAMES[m] for m in METHODS]
    assert budget.accounting_name("rdp", "mironov") == f"{METHOD_NAMES['rdp']}, classic conversion"
    assert training.NGD_ACCOUNTINGS == {METHOD_NAMES[m]: m for m in training.NGD_METHODS}
    assert learning_dp_sgd.DPSGD_CALIBRATIONS == {
        budget.accounting_name(m, c): (m, c) for m, c in learning_dp_sgd.DPSGD_CALIBRATIONS.values()
    }
    assert budget.charge_words(Charge(1.0, 0.0, "exact")) == f"{METHOD_NAMES['exact']} composition"
    assert budget.charge_words(Charge(0.0, 0.0, "")) == ""
