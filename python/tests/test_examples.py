"""The Python examples (examples/python) run to the end on NumPy arrays (on CuPy's with
UNISON_TEST_ARRAYS=cupy)."""

import pathlib
import subprocess
import sys

import pytest

from conftest import ON_DEVICE

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.parametrize("name", ["convolution.py", "diffusion.py", "histogram.py"])
def test_example(name):
    r = subprocess.run([sys.executable, str(EXAMPLES / name)] + (["--cupy"] if ON_DEVICE else []),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    print(r.stdout)
