"""The seed field: jagged_field."""
from . import _unison
from ._arrays import _backend, _output, _real, _stream_of
from ._random import _seed


def jagged_field(f, seed=_unison.default_seed, zero_fraction=_unison.jagged_default_zero_fraction,
                 *, backend=None, stream=None):
    """The deterministic "jagged image" into the rank-2 f (the same bits on every backend and
    layout); returns f."""
    fn = "jagged_field"
    f = _output(fn, "f", f)
    _unison.jagged_field(f, _seed(fn, seed), _real(fn, "zero_fraction", zero_fraction),
                         _backend(fn, backend), _stream_of(stream, [f]))
    return f
