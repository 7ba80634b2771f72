"""explorer.central_numeric: what the Central DP page's numeric views say beside their numbers."""

from dpcore import dp_mean
from explorer.columns import numeric_values, suggest_bounds
from tests.apptest import assert_clean, metric, open_page
from tests.test_page_central import _census, _num, _rng


def test_the_means_noise_figures_are_said_to_be_the_sums_with_their_size_on_the_mean():
    at = open_page("central", cen_query="Mean")
    assert_clean(at)
    values, _ = numeric_values(_census("age"))
    lo, hi = suggest_bounds(_census("age"))
    release = dp_mean(values, lo, hi, 1.0, _rng("central"), split=0.5)  # the page's default ε and split
    std, n = release.sum.mechanism.std, len(values)  # Laplace noise on the clipped sum, at ε·split
    assert metric(at, "Laplace noise std") == _num(std)  # the comparison's figure is the sum's ...
    said = [c.value for c in at.caption if c.value.startswith("On a mean, the Laplace noise std")]
    assert len(said) == 1 and f"over {n:,} rows" in said[0]  # ... and the page says so
    assert f"a Laplace noise std of {_num(std)} on the sum is about {_num(std / n)} on the mean" in said[0]
    assert std / n < float(metric(at, "95% error bound").lstrip("±")) < std  # on the mean's scale, not the sum's


def test_a_sums_view_has_no_such_note():
    at = open_page("central", cen_query="Sum")
    assert_clean(at)
    assert not [c for c in at.caption if c.value.startswith("On a mean")]
