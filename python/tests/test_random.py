"""monte_carlo_pi on every backend."""
import numpy as np
import pytest

import unison


def test_monte_carlo_pi():
    a = unison.monte_carlo_pi(1_000_001, seed=7)
    assert abs(a - np.pi) < 0.01
    assert unison.monte_carlo_pi(1_000_001, seed=7, backend="serial") == a  # every backend alike
    with pytest.raises(ValueError, match="samples"):
        unison.monte_carlo_pi(0)
