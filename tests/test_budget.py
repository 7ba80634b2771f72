"""The ledger on screen (explorer.budget): how the sidebar writes what was spent."""

import pytest

from explorer.budget import small_number
from tests.apptest import open_page


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
