"""The jagged field on NumPy arrays: the same bits on every layout and backend, its share of zeros,
and the errors."""

import numpy as np
import pytest

import unison
from conftest import ON_DEVICE


def test_jagged_field():
    a = unison.jagged_field(np.empty((200, 301), np.float32), seed=11)
    b = unison.jagged_field(np.empty((301, 200), np.float32).T, seed=11)  # another layout
    np.testing.assert_array_equal(a, b)
    assert 0.6 < np.mean(a == 0) < 0.8 and a.min() >= 0 and a.max() < 1
    c = unison.jagged_field(np.empty((200, 301)), seed=11, backend="serial")
    np.testing.assert_array_equal(c, unison.jagged_field(np.empty((200, 301)), seed=11))
    d = unison.jagged_field(np.empty((200, 301), np.float32), seed=12)
    assert not np.array_equal(a, d)


@pytest.mark.parametrize("zero_fraction", [0.0, 0.25, 1.0])
def test_jagged_field_zero_fraction(zero_fraction):
    f = unison.jagged_field(np.empty((97, 61)), seed=5, zero_fraction=zero_fraction)
    share = np.mean(f == 0)
    assert share >= zero_fraction  # (ties at the threshold go to zero)
    assert share <= zero_fraction + 0.01
    if zero_fraction < 1:
        assert f.max() > 0


def test_jagged_field_errors():
    with pytest.raises(ValueError, match="expected 2 dimensions"):
        unison.jagged_field(np.zeros(5))
    f = np.full((8, 9), 7.0, np.float32)
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="zero_fraction"):
            unison.jagged_field(f, zero_fraction=bad)
    if not ON_DEVICE:  # a refused call writes nothing (read back from host memory)
        assert np.all(f == 7.0)
