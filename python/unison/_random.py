"""Random numbers: monte_carlo_pi."""
from . import _unison
from ._arrays import _backend, _integer, _stream_of


def monte_carlo_pi(samples, seed=_unison.default_seed, *, backend=None, stream=None):
    """An estimate of pi from `samples` points (the same for a seed on every backend). Returns a
    Python float: waits for the result (on the call's stream only, on a GPU)."""
    fn = "monte_carlo_pi"
    samples = _integer(fn, "samples", samples)
    seed = _seed(fn, seed)
    return _unison.monte_carlo_pi(samples, seed, _backend(fn, backend),
                                  None if stream is None else _stream_of(stream, []))


def _seed(fn, seed):
    seed = _integer(fn, "seed", seed)
    if not 0 <= seed < 2**64:
        raise ValueError(f"unison.{fn}: seed is {seed}, expected 0 to 2**64 - 1")
    return seed
