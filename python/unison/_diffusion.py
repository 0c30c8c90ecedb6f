"""The diffusion: diffusion_step, diffuse and diffuse_history."""
from . import _unison
from ._arrays import (
    _CHOICES, _FLOATS, _backend, _check_class, _empty, _input, _integer, _output, _real,
    _require, _stream_of, _word)


_STENCILS = _CHOICES["stencil_algorithm"]


def diffusion_step(f, coeff, f_next=None, lapl=None, *, algorithm="automatic", backend=None,
                   stream=None):
    """One step of the 2-D diffusion of the rank-2 field f: returns (f_next, lapl), new arrays
    of f's library (in f's memory order) unless given. algorithm: "automatic", "plain",
    "tiled", "streaming" or "wavefront" ("resident" runs diffuse's steps, not one)."""
    fn = "diffusion_step"
    f = _input(fn, "f", f)
    coeff = _real(fn, "coeff", coeff)
    algorithm = _word(fn, "algorithm", algorithm, _STENCILS)
    if f_next is None or lapl is None:
        _require(fn, "f", f, _FLOATS, (2,))
    f_next = _check_class(fn, "f_next", f_next) if f_next is not None else \
        _empty(f, f.shape, order_like=f)
    lapl = _check_class(fn, "lapl", lapl) if lapl is not None else _empty(f, f.shape, order_like=f)
    _unison.diffusion_step(f, f_next, lapl, coeff, algorithm, _backend(fn, backend),
                           _stream_of(stream, [f, f_next]))
    return f_next, lapl


def diffuse(f, steps, coeff, lapl=None, *, laplacian="every_step", algorithm="automatic",
            tile_rows=0, tile_cols=0, steps_per_pass=0, backend=None, stream=None):
    """`steps` steps of the diffusion, in place in f; returns lapl, the last step's Laplacian
    (a new array in f's memory order unless given; with steps = 0 nothing changes, and a new
    lapl is zeros). laplacian: "every_step" or "final_only" (temporal blocking: several steps
    per pass). algorithm: as diffusion_step's, or "resident" (CUDA GPUs: every step in one
    launch, the field held in the GPU's registers; "automatic" takes it where the field fits).
    Its second buffer of f's size is temporary memory kept between calls. On the host
    backends Ctrl-C stops a long call between passes (KeyboardInterrupt): f then holds the
    field after some whole number of steps, and lapl is undefined."""
    fn = "diffuse"
    f = _output(fn, "f", f)
    steps = _integer(fn, "steps", steps, 0)
    coeff = _real(fn, "coeff", coeff)
    laplacian = _word(fn, "laplacian", laplacian, _CHOICES["laplacian"])
    algorithm = _word(fn, "algorithm", algorithm, _STENCILS)
    tile_rows = _integer(fn, "tile_rows", tile_rows, 0)
    tile_cols = _integer(fn, "tile_cols", tile_cols, 0)
    steps_per_pass = _integer(fn, "steps_per_pass", steps_per_pass, 0)
    if lapl is None:
        _require(fn, "f", f, _FLOATS, (2,))
        lapl = _empty(f, f.shape, order_like=f, zeros=steps == 0)
    else:
        _output(fn, "lapl", lapl)
    _unison.diffuse(f, steps, coeff, lapl, laplacian, algorithm, tile_rows, tile_cols,
                    steps_per_pass, _backend(fn, backend), _stream_of(stream, [f, lapl]))
    return lapl


def diffuse_history(f, steps, coeff, history, on_history=None, *, steps_per_pass=0,
                    backend=None, stream=None):
    """`steps` steps in place in f, keeping every step's Laplacian a group of
    history.shape[0] steps at a time in the rank-3 history (planes, nx, ny): after each group,
    on_history(first, count) is called (steps count from 1; history[k] holds step first + k's
    Laplacian; f holds the field only when the call returns). Returns history. On the host
    backends Ctrl-C stops the call after a group (KeyboardInterrupt); f is then undefined."""
    fn = "diffuse_history"
    f = _output(fn, "f", f)
    history = _output(fn, "history", history)
    if on_history is not None and not callable(on_history):
        raise TypeError(f"unison.{fn}: on_history is {on_history!r}, not callable")
    _unison.diffuse_history(f, _integer(fn, "steps", steps, 0), _real(fn, "coeff", coeff),
                            history, on_history, _integer(fn, "steps_per_pass", steps_per_pass, 0),
                            _backend(fn, backend), _stream_of(stream, [f, history]))
    return history
