# The types of the unison package's functions, for editors and type checkers (mypy, pyright).
# python/tests/test_typing.py checks that every function of __all__ is here with the parameters
# it has (names, kinds, defaults).
from typing import Any, Callable, Literal, Optional, Sequence, Tuple, Union, overload

# An array Unison works on in place: NumPy, CuPy, PyTorch or Numba, or any object that speaks
# DLPack, the CUDA Array Interface or the buffer protocol.
Array = Any
# What an input may also be: an array, or what NumPy takes as one (a number, a list, a tuple).
ArrayLike = Any
Number = Union[int, float]
# The backend a call runs on; None: the arrays' own (OpenMP for host memory, Cuda for a GPU's).
Backend = Optional[Literal["openmp", "serial", "cuda"]]
# The CUDA stream of a device call: a CuPy or PyTorch stream, a raw handle, or None (the
# caller's current stream).
Stream = Any
Mode = Union[Literal["full", "same", "valid"], Literal[0, 1, 2]]
StencilAlgorithm = Literal["automatic", "plain", "tiled", "streaming", "wavefront", "resident"]

__version__: str
__all__: list[str]

def build_info() -> dict[str, Any]: ...
def backends() -> list[str]: ...
def finalize() -> None: ...
def release_temporary_memory() -> None: ...
def temporary_memory_bytes() -> int: ...
def serial_below(elements: Optional[int] = None) -> int: ...

# Element-wise: the result in out, or in a new array of the first input's library.
Casting = Literal["no", "equiv", "safe", "same_kind", "unsafe"]

def add(x: ArrayLike, y: ArrayLike, out: Optional[Array] = None, *, where: Any = True,
        casting: Casting = "same_kind", dtype: Any = None, backend: Backend = None,
        stream: Stream = None) -> Array: ...
def hypot(x: ArrayLike, y: ArrayLike, out: Optional[Array] = None, *,
          where: Any = True, casting: Casting = "same_kind", dtype: Any = None,
          backend: Backend = None, stream: Stream = None) -> Array: ...
def gaussian_pdf(x: ArrayLike, mean: Number = 0.0, sigma: Number = 1.0,
                 out: Optional[Array] = None, *, backend: Backend = None,
                 stream: Stream = None) -> Array: ...
def polar_distance(rho1: ArrayLike, theta1: ArrayLike, rho2: ArrayLike, theta2: ArrayLike,
                   out: Optional[Array] = None, *, backend: Backend = None,
                   stream: Stream = None) -> Array: ...
def zero_suppress(waveform: ArrayLike, threshold: Number, out: Optional[Array] = None, *,
                  backend: Backend = None, stream: Stream = None) -> Array: ...
def clip(x: ArrayLike, lo: Any, hi: Any, out: Optional[Array] = None, *,
         where: Any = True, casting: Optional[Casting] = None, dtype: Any = None,
         backend: Backend = None, stream: Stream = None) -> Array: ...
def make_pulses(t: ArrayLike, noise: ArrayLike, period: Number, amplitude: Number,
                out: Optional[Array] = None, *, backend: Backend = None,
                stream: Stream = None) -> Array: ...
def hidden_layer(greyscales: ArrayLike, weights: ArrayLike, out: Optional[Array] = None, *,
                 fusion: Literal["fused", "separate"] = "fused", backend: Backend = None,
                 stream: Stream = None) -> Array: ...

# Row-wise.
def l2_norm(V: Array, out: Optional[Array] = None, *, backend: Backend = None,
            stream: Stream = None) -> Array: ...
def matmul_core(A: Array, B: Array, out: Optional[Array] = None, *, backend: Backend = None,
                stream: Stream = None) -> Array: ...

# NumPy's form, histogram(x, bins=10, range=None) -> (counts, edges); Unison's,
# histogram(x, xmin, xmax, counts=None, *, bins=None) -> counts.
@overload
def histogram(x: Array, *, bins: Union[int, str, Sequence[float], Array, None] = None,
              range: Optional[Tuple[Number, Number]] = None, weights: Optional[Array] = None,
              density: Optional[bool] = None, backend: Backend = None,
              stream: Stream = None) -> Tuple[Array, Array]: ...
@overload
def histogram(x: Array, xmin: Number, xmax: Number, counts: Optional[Array] = None, *,
              bins: Optional[int] = None, backend: Backend = None,
              stream: Stream = None) -> Array: ...
def histogram_bin_edges(x: Array, bins: Union[int, str, Sequence[float], Array] = 10,
                        range: Optional[Tuple[Number, Number]] = None,
                        weights: Optional[Array] = None, *, backend: Backend = None,
                        stream: Stream = None) -> Array: ...

def monte_carlo_pi(samples: int, seed: int = ..., *, backend: Backend = None,
                   stream: Stream = None) -> float: ...

# Diffusion.
def diffusion_step(f: Array, coeff: Number, f_next: Optional[Array] = None,
                   lapl: Optional[Array] = None, *, algorithm: StencilAlgorithm = "automatic",
                   backend: Backend = None, stream: Stream = None) -> Tuple[Array, Array]: ...
def diffuse(f: Array, steps: int, coeff: Number, lapl: Optional[Array] = None, *,
            laplacian: Literal["every_step", "final_only"] = "every_step",
            algorithm: StencilAlgorithm = "automatic", tile_rows: int = 0, tile_cols: int = 0,
            steps_per_pass: int = 0, backend: Backend = None, stream: Stream = None) -> Array: ...
def diffuse_history(f: Array, steps: int, coeff: Number, history: Array,
                    on_history: Optional[Callable[..., Any]] = None, *, steps_per_pass: int = 0,
                    backend: Backend = None, stream: Stream = None) -> Array: ...
def jagged_field(f: Array, seed: int = ..., zero_fraction: float = ..., *,
                 backend: Backend = None, stream: Stream = None) -> Array: ...

# Convolution and matmul-reduce.
def convolve_extent(n: int, m: int, mode: Mode = "full") -> int: ...
def convolve(x: ArrayLike, k: ArrayLike, mode: Mode = "full", out: Optional[Array] = None, *,
             algorithm: Literal["automatic", "direct", "tiled"] = "automatic",
             backend: Backend = None, stream: Stream = None) -> Array: ...
def matmul_reduce(A: Array, B: Array, out: Optional[Array] = None, *,
                  method: Literal["automatic", "tiled", "gemm", "reassociated"] = "automatic",
                  backend: Backend = None, stream: Stream = None) -> Array: ...
