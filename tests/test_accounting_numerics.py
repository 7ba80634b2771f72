import numpy as np
import pytest

from dpcore.accounting._numerics import as_ks, as_orders


def test_as_ks():
    np.testing.assert_array_equal(as_ks([3, 1.0, 2]), [3, 1, 2])
    np.testing.assert_array_equal(as_ks(5), [5])
    with pytest.raises(ValueError, match=r"ks must be an integer in \[1, 10000000\], got -2"):
        as_ks(np.array([1, -2]), "ks")
    with pytest.raises(ValueError, match=r"k must be an integer, got 1.5"):
        as_ks([1.5])
    with pytest.raises(ValueError, match="at least one"):
        as_ks([])
    with pytest.raises(TypeError, match="k must be an integer, got True"):
        as_ks([True])


def test_as_orders():
    np.testing.assert_array_equal(as_orders([1.5, 2]), [1.5, 2.0])
    with pytest.raises(ValueError, match=r"orders must be in \(1, inf\), got nan"):
        as_orders([2.0, float("nan")])
    with pytest.raises(ValueError, match="at least one"):
        as_orders([])
