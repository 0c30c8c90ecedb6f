"""How arrays are taken: the protocols (DLPack versioned and unversioned, the buffer protocol),
every refusal (with its message naming the argument, dtype, shape, strides and device, and
nothing written), backends, threads, and a clean interpreter exit."""

import array
import subprocess
import sys
import threading

import numpy as np
import pytest

import unison
from _dlpack_producer import Producer


def untouched(out, before):
    np.testing.assert_array_equal(out, before)


@pytest.mark.host_only
def test_versioned_dlpack_producer(rng):
    x = rng.standard_normal(101).astype(np.float32)
    y = rng.standard_normal(101).astype(np.float32)
    px, pout = Producer(x), Producer(np.zeros(101, np.float32))
    base = sys.getrefcount(x)
    out = np.zeros(101, np.float32)
    unison.add(px, y, out=out)
    np.testing.assert_array_equal(out, x + y)
    assert px.exports == 1  # taken once, through DLPack
    assert px.last_copy is False  # asked for the array's own memory, never a copy
    assert sys.getrefcount(x) == base  # the capsule's buffer released
    target = np.zeros(101, np.float32)
    unison.add(x, y, out=Producer(target))
    np.testing.assert_array_equal(target, x + y)
    del pout


@pytest.mark.host_only
def test_versioned_dlpack_refusals(rng):
    x = rng.standard_normal(8).astype(np.float64)
    out = np.full(8, 7.0)
    with pytest.raises(ValueError, match=r"out \(float64, shape \(8,\), strides \(1,\) elements, "
                                         r"host, read-only\) is read-only"):
        unison.add(x, 1.0, out=Producer(out, read_only=True))
    with pytest.raises(ValueError, match="is_copied"):
        unison.add(x, 1.0, out=Producer(out, copied=True))
    with pytest.raises(ValueError, match=r"x: its producer exported a copy .*copy=False"):
        unison.add(Producer(x, copied=True), 1.0, out=out)  # an input too: no silent copy
    # a silent copy: the export's strides are not the ones the object states
    with pytest.raises(ValueError, match=r"x .*strides are \(-4,\) bytes; negative strides"):
        unison.add(Producer(x[::-1].astype(np.float32), strides=(-4,)), 1.0,
                   out=np.zeros(8, np.float32))
    with pytest.raises(ValueError, match=r"x .*strides are \(16,\) bytes\), a copy"):
        unison.add(Producer(x[::2].copy(), strides=(16,)), 1.0, out=np.zeros(4))
    with pytest.raises(ValueError, match=r"x .*strides are \(6,\) bytes, not a whole number"):
        unison.add(Producer(x[:1].repeat(2).astype(np.float32), strides=(6,)), 1.0,
                   out=np.zeros(2, np.float32))
    # a negative stride written as an unsigned number (CuPy's reversed views, before its fix):
    # (2^64 - 4) // 4 elements, which wraps back to -1 in 64-bit addresses
    r = x[::-1].astype(np.float32)[::-1]
    with pytest.raises(ValueError, match=r"x .*span more bytes than a 64-bit address"):
        unison.add(Producer(r, export_strides=[(2**64 - 4) // 4], strides=(-4,)), 1.0,
                   out=np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="DLPack version 2.0"):
        unison.add(Producer(x, major=2), 1.0, out=out)
    untouched(out, np.full(8, 7.0))
    # a read-only input is fine
    got = unison.add(Producer(x, read_only=True), 1.0, out=np.empty(8))
    np.testing.assert_array_equal(got, x + 1)


@pytest.mark.host_only
def test_buffer_protocol_objects():
    a = array.array("f", [1, 2, 3])
    out = np.zeros(3, np.float32)
    unison.add(memoryview(a), 1.0, out=out)
    np.testing.assert_array_equal(out, [2, 3, 4])
    unison.add(a, a, out=memoryview(a))  # array.array as the output, in place
    assert list(a) == [2, 4, 6]
    with pytest.raises(ValueError, match="read-only"):
        unison.add(np.ones(3, np.float32), 1.0, out=memoryview(bytes(12)).cast("f"))


@pytest.mark.host_only
def test_read_only_output_refused_nothing_written():
    out = np.full((3, 4), 5.0, np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError) as e:
        unison.add(np.ones((3, 4), np.float32), 1.0, out=out)
    msg = str(e.value)
    for part in ("unison.add", "out", "float32", "shape (3, 4)", "strides (4, 1) elements",
                 "host", "read-only"):
        assert part in msg, msg
    untouched(out, np.full((3, 4), 5.0))


def test_negative_and_fractional_strides_refused():
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    with pytest.raises(ValueError, match="negative strides"):
        unison.add(x[::-1], 1.0, out=out)
    with pytest.raises(ValueError, match="x .*negative strides"):
        unison.add(x[::-1], 1.0, out=out)
    odd = np.lib.stride_tricks.as_strided(np.zeros(16, np.float32), shape=(3,), strides=(6,))
    with pytest.raises(ValueError, match="whole number of elements"):
        unison.add(odd, 1.0, out=np.zeros(3, np.float32))
    untouched(out, np.zeros(10))


def test_misaligned_pointer_refused():
    buf = bytearray(4 * 9)
    x = np.frombuffer(buf, dtype=np.float32, count=8, offset=2)
    out = np.frombuffer(bytearray(4 * 9), dtype=np.float32, count=8, offset=1)
    with pytest.raises(ValueError, match="aligned"):
        unison.add(x, 1.0, out=np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="aligned"):
        unison.add(np.zeros(8, np.float32), 1.0, out=out)


def test_dtypes_converted_only_by_numpys_rules():
    # The functions that are not NumPy's ufuncs convert nothing; add, hypot and clip convert as
    # NumPy's ufuncs do, and refuse a call NumPy computes in a dtype Unison does not.
    x64 = np.ones(5)
    out = np.full(5, 3, np.float32)
    with pytest.raises(TypeError, match=r"x \(float64.*\) and out \(float32\) differ in dtype: "
                                        r"the arrays of a call share one \(Unison converts "
                                        r"nothing\)"):
        unison.gaussian_pdf(x64, out=out)
    with pytest.raises(TypeError, match="NumPy computes this call in complex64"):
        unison.add(np.ones(5, np.complex64), 1.0, out=np.zeros(5, np.complex64))
    with pytest.raises(TypeError, match=r"Cannot cast ufunc 'hypot' output from "
                                        r"dtype\('float64'\) to dtype\('int32'\)"):
        unison.hypot(np.ones(5, np.int32), 1, out=np.zeros(5, np.int32))
    with pytest.raises(TypeError, match="NumPy computes this call in uint8, which Unison does "
                                        "not: expected float32, float64, int32 or int64"):
        unison.add(np.ones(5, np.uint8), 1, out=np.zeros(5, np.uint8))
    with pytest.raises(TypeError, match=r"x \(object\) is not an array_like"):
        unison.add(object(), 1.0, out=np.zeros(2))
    untouched(out, np.full(5, 3))


def test_ranks_and_extents():
    with pytest.raises(ValueError, match="expected 1 or 2 dimensions"):
        unison.gaussian_pdf(np.ones((2, 2, 2)), 1.0)
    with pytest.raises(ValueError, match=r"shapes do not broadcast together: x \(4,\), y \(2, 2\)"):
        unison.add(np.ones(4), np.ones((2, 2)), out=np.zeros(4))
    out = np.zeros(5)
    with pytest.raises(ValueError, match="unison.add: the shapes do not broadcast together"):
        unison.add(np.ones(4), np.ones(5), out=out)
    untouched(out, np.zeros(5))


def test_overlap_refused():
    m = np.arange(20, dtype=np.float64)
    before = m.copy()
    with pytest.raises(ValueError, match="overlap"):
        unison.add(m[:10], 1.0, out=m[5:15])
    untouched(m, before)
    # the columns of one matrix share no element: fine
    a = np.arange(16, dtype=np.float32).reshape(8, 2)
    unison.add(a[:, 1], 1.0, out=a[:, 0])
    np.testing.assert_array_equal(a[:, 0], np.arange(1, 16, 2) + 1)


def test_device_memory_refused_on_a_host_build():
    if "cuda" in unison.backends():
        pytest.skip("this build has Cuda")

    class FakeDevice:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (1 << 20, False),
                                    "version": 3, "strides": None}

    with pytest.raises(ValueError, match="no Cuda backend"):
        unison.add(FakeDevice(), 1.0, out=FakeDevice())


@pytest.mark.host_only
def test_backends():
    x = np.arange(7, dtype=np.float32)
    assert "openmp" in unison.backends() or "serial" in unison.backends()
    for b in unison.backends():
        if b != "cuda":
            np.testing.assert_array_equal(unison.add(x, 1, backend=b), x + 1)
    with pytest.raises(ValueError, match="backend 'cuda' needs arrays in CUDA device memory"):
        unison.add(x, 1, backend="cuda")
    with pytest.raises(ValueError,
                       match="backend is 'gpu', expected None, 'openmp', 'serial', 'cuda'"):
        unison.add(x, 1, backend="gpu")


def test_threads_at_once(rng):
    # host calls release the GIL: several Python threads, each its own arrays
    xs = [rng.standard_normal(200_000).astype(np.float32) for _ in range(4)]
    outs = [np.empty_like(x) for x in xs]
    errors = []

    def work(i):
        try:
            for _ in range(5):
                unison.gaussian_pdf(xs[i], 0.0, 1.0, out=outs[i])
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for x, o in zip(xs, outs):
        np.testing.assert_allclose(o, np.exp(-0.5 * x.astype(np.float64) ** 2) / np.sqrt(2 * np.pi),
                                   rtol=1e-5)


def test_clean_interpreter_exit():
    code = ("import numpy as np, unison\n"
            "x = unison.add(np.ones(1000, np.float32), 1.0)\n"
            "assert x[0] == 2\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "Kokkos" not in r.stderr and "Kokkos" not in r.stdout, r.stderr
    assert r.stderr == "", r.stderr


def test_finalize_is_idempotent_in_a_subprocess():
    code = ("import numpy as np, unison\n"
            "unison.add(np.ones(3), 1.0)\n"
            "unison.finalize(); unison.finalize()\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_serial_below_small_calls_same_bits(rng):
    # small host calls on the default backend run on Serial: the same bits as on OpenMP
    before = unison.serial_below()
    assert before >= 0
    x = rng.standard_normal((37, 29)).astype(np.float32)
    f = rng.standard_normal((40, 50))
    try:
        got = []
        for threshold in (0, 10**9):
            assert unison.serial_below(threshold) in (before, 0, 10**9)
            assert unison.serial_below() == threshold
            g = f.copy()
            lapl = unison.diffuse(g, 7, 0.1)
            got.append([unison.add(x, 1.5), unison.gaussian_pdf(x, 0.3, 1.7), unison.l2_norm(x),
                        unison.histogram(x.ravel(), -2.0, 2.0, bins=13),
                        unison.convolve(x[0], x[1, :5]), g, lapl,
                        unison.matmul_reduce(f[:8, :9], f[:9, :10])])
        for a, b in zip(*got):
            np.testing.assert_array_equal(a, b)
    finally:
        unison.serial_below(before)
    with pytest.raises(ValueError, match=r"unison.serial_below: elements is -1, expected at "
                                         r"least 0"):
        unison.serial_below(-1)
    with pytest.raises(TypeError, match=r"unison.serial_below: elements is 1.5, not an integer"):
        unison.serial_below(1.5)
