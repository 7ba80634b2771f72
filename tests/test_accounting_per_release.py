import numpy as np
import pytest

from dpcore import GRR, OUE, REPLACE_ONE, SUE, Gaussian, Laplace, LDPMean, accounting
from dpcore.accounting import DEFAULT_ORDERS, gaussian_epsilon, gaussian_rdp, laplace_rdp, randomized_response_rdp
from dpcore.accounting.per_release import mechanism_kind, pure_epsilon, release_epsilon, release_rdp, release_rho


def test_kinds_and_pure_epsilon():
    assert mechanism_kind(Laplace(2.0, sensitivity=3.0)) == "laplace"
    assert mechanism_kind(Gaussian(1.0)) == "gaussian"
    assert mechanism_kind(GRR(1.0, 3)) == "grr"
    assert pure_epsilon(Laplace(2.0, sensitivity=3.0)) == 1.5  # Delta / b
    assert pure_epsilon(GRR(0.7, 3)) == 0.7
    assert pure_epsilon(Gaussian(1.0)) is None


def test_unsupported_mechanism_is_a_type_error():
    # the unary encodings are accounted through accountable(), never dispatched on directly
    with pytest.raises(TypeError, match="got OUE"):
        mechanism_kind(OUE(1.0, 4))


def test_release_rdp_dispatches_to_the_curves():
    np.testing.assert_array_equal(release_rdp(Laplace(2.0, 3.0), DEFAULT_ORDERS), laplace_rdp(2.0, DEFAULT_ORDERS, 3.0))
    np.testing.assert_array_equal(
        release_rdp(Gaussian(2.0, 3.0), DEFAULT_ORDERS), gaussian_rdp(2.0, DEFAULT_ORDERS, 3.0)
    )
    np.testing.assert_array_equal(
        release_rdp(GRR(1.0, 5), DEFAULT_ORDERS), randomized_response_rdp(1.0, 5, DEFAULT_ORDERS)
    )


def test_release_rho():
    assert release_rho(Gaussian(2.0, 3.0)) == pytest.approx(9 / 8)  # D^2 / (2 sigma^2)
    assert release_rho(Laplace(2.0, 3.0)) == pytest.approx(1.5**2 / 2)  # eps0^2 / 2
    assert release_rho(GRR(0.4, 3)) == pytest.approx(0.08)
    # zCDP ρ is the slope of the RDP curve bound: r(α) <= ρ α for the pure mechanisms too
    assert np.all(release_rdp(Laplace(2.0, 3.0), DEFAULT_ORDERS) <= release_rho(Laplace(2.0, 3.0)) * DEFAULT_ORDERS)


def test_release_epsilon():
    np.testing.assert_array_equal(release_epsilon(Laplace(4.0), [1e-3, 1e-9]), [0.25, 0.25])
    got = release_epsilon(Gaussian(3.0), np.array([1e-3, 1e-9]))
    np.testing.assert_allclose(got, [gaussian_epsilon(3.0, 1, 1e-3), gaussian_epsilon(3.0, 1, 1e-9)], rtol=1e-14)


@pytest.mark.filterwarnings("ignore::dpcore.accounting.OrderGridEdgeWarning")  # expected at k = 1 for pure DP
@pytest.mark.parametrize("make", [lambda e: SUE(e, 14), lambda e: OUE(e, 14), lambda e: LDPMean(e, 0.0, 1.0)])
def test_pure_ldp_mechanisms_are_accounted_as_binary_rr(make):
    from dpcore.accounting.per_release import accountable

    m = accountable(make(0.7))
    # every eps-DP mechanism is dominated by binary RR at eps (Kairouz, Oh, Viswanath 2015)
    assert isinstance(m, GRR) and (m.epsilon, m.k) == (0.7, 2)
    led = accounting.BudgetLedger(1.0, 1e-6, method="basic", relation=REPLACE_ONE)  # local: replace one record
    led.spend(make(0.4), count=2)
    assert led.spent().epsilon == pytest.approx(0.8)
    with pytest.raises(ValueError):
        led.spend(make(0.4))
    curve = accounting.epsilon_curve(make(0.5), [1, 10], 1e-6, methods=["basic", "rdp", "pld"])
    binary = accounting.epsilon_curve(GRR(0.5, 2), [1, 10], 1e-6, methods=["basic", "rdp", "pld"])
    assert curve["epsilon"].tolist() == binary["epsilon"].tolist()


def test_other_objects_are_refused_with_the_accepted_types_named():
    from dpcore.accounting.per_release import accountable

    with pytest.raises(TypeError, match="Laplace, Gaussian, GRR, SUE, OUE, LDPMean or Staircase"):
        accountable(object())


def test_dispatch_table_names_each_kind_once():
    from dpcore.accounting.per_release import ACCOUNTINGS, KINDS, METHODS, accounting_for

    assert KINDS == ("laplace", "gaussian", "grr", "staircase", "poisson_gaussian", "approx_dp")
    assert accounting_for(Gaussian(1.0)).methods == METHODS
    assert accounting_for(Laplace(1.0)).default_methods == ("basic", "advanced", "rdp", "zcdp", "pld")
    covered = [t for entry in ACCOUNTINGS for t in entry.types]
    assert len(covered) == len(set(covered))  # no type is accounted twice
    with pytest.raises(TypeError, match="got SUE"):
        accounting_for(SUE(1.0, 3))  # charged as binary RR: through accountable() only


def test_refusal_names_the_events_too():
    from dpcore.accounting.per_release import accountable

    with pytest.raises(
        TypeError, match=r"got str \(or a dpcore.accounting event: PureDP, PoissonSampledGaussian, ApproxDP\)"
    ):
        accountable("laplace")


class ScaledCoin:
    """A toy ε-DP release for the extension test: binary randomized response at ε, under another name."""

    def __init__(self, epsilon):
        self.epsilon = epsilon


@pytest.mark.filterwarnings("ignore::dpcore.accounting.OrderGridEdgeWarning")
def test_a_new_kind_is_added_in_one_place(monkeypatch):
    from dpcore.accounting import per_release

    class ScaledCoinAccounting(per_release.ReleaseAccounting):
        types = (ScaledCoin,)
        names = ("ScaledCoin",)
        kind = "scaled-coin"
        methods = ("basic", "rdp", "zcdp")
        default_methods = ("basic", "rdp", "zcdp")
        relation = REPLACE_ONE  # a coin flipped by each person: the local model's relation

        def pure_epsilon(self, m):
            return m.epsilon

        def rdp(self, m, orders):
            return randomized_response_rdp(m.epsilon, 2, orders)

        def rho(self, m):
            return m.epsilon**2 / 2

    monkeypatch.setattr(per_release, "ACCOUNTINGS", per_release.ACCOUNTINGS + (ScaledCoinAccounting(),))
    # the curves and the ledger accept it with no other change, and charge it as binary RR
    toy = accounting.epsilon_curve(ScaledCoin(0.5), [1, 10], 1e-6)
    binary = accounting.epsilon_curve(GRR(0.5, 2), [1, 10], 1e-6, methods=["basic", "rdp", "zcdp"])
    assert toy["epsilon"].tolist() == binary["epsilon"].tolist()
    assert accounting.methods_for(ScaledCoin(0.5)) == ("basic", "rdp", "zcdp")
    led = accounting.BudgetLedger(1.0, 1e-6, "rdp", relation=REPLACE_ONE).spend(ScaledCoin(0.1), count=3)
    grr = accounting.BudgetLedger(1.0, 1e-6, "rdp", relation=REPLACE_ONE).spend(GRR(0.1, 2), count=3)
    assert led.spent() == grr.spent()
    with pytest.raises(ValueError, match="methods must be one of 'basic', 'rdp', 'zcdp', got 'pld'"):
        accounting.epsilon_curve(ScaledCoin(0.5), [1], 1e-6, methods=["pld"])
