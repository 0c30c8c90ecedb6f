"""Unison in other processes and under Ctrl-C: a child forked after import never hangs (its
host calls run on one thread, said once by a RuntimeWarning), multiprocessing pools of every
start method, and Ctrl-C in a long call. Each case runs in a subprocess with a timeout, so that
a hang fails the test instead of stopping the suite."""

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.host_only

# Every child process of these tests must end within this: a hang is a failure.
TIMEOUT = 120


def run(code, **kwargs):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=TIMEOUT, **kwargs)


def test_fork_after_import_runs_on_one_thread_and_says_so_once():
    code = r"""
import os, warnings, numpy as np, unison
x = np.arange(100001, dtype=np.float64)
unison.add(x, 1.0)  # OpenMP's threads exist in the parent
pid = os.fork()
if pid == 0:
    code = 1
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        a = unison.add(x, 1.0)
        b = unison.gaussian_pdf(x[:7], 0.0, 1.0)
        f = np.ones((64, 80), np.float32)
        lapl = unison.diffuse(f, 3, 0.1)
        pi = unison.monte_carlo_pi(10001, seed=5)
        h = unison.histogram(x, 0.0, 1e5, bins=10)
        ok = (np.array_equal(a, x + 1.0) and b.shape == (7,) and h.sum() == 100000
              and pi == unison.monte_carlo_pi(10001, seed=5, backend="serial"))
        runtime = [str(v.message) for v in w if issubclass(v.category, RuntimeWarning)]
        if ok and len(runtime) == 1 and "forked" in runtime[0] and "one thread" in runtime[0]:
            code = 0
        else:
            print(ok, runtime, flush=True)
    os._exit(code)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0, status
assert np.array_equal(unison.add(x, 1.0), x + 1.0)  # the parent keeps its threads
print("parent fine")
"""
    r = run(code)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "parent fine" in r.stdout


def test_fork_before_any_call():
    # the threads exist from import on: a child of a parent that never called Unison
    code = r"""
import os, numpy as np, unison, warnings
warnings.simplefilter("ignore", RuntimeWarning)
pid = os.fork()
if pid == 0:
    os._exit(0 if np.array_equal(unison.add(np.ones(5000), 1.0), np.full(5000, 2.0)) else 1)
_, status = os.waitpid(pid, 0)
assert os.waitstatus_to_exitcode(status) == 0
"""
    r = run(code)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_multiprocessing_pools(method):
    code = f"""
import multiprocessing as mp, warnings
import numpy as np, unison

def work(n):
    warnings.simplefilter("ignore", RuntimeWarning)
    x = np.linspace(0.0, 1.0, n)
    return float(unison.add(x, 2.0).sum()), float(unison.l2_norm(x.reshape(1, -1))[0])

if __name__ == "__main__":
    unison.add(np.ones(10), 1.0)
    with mp.get_context("{method}").Pool(3) as pool:
        got = pool.map(work, [1000, 2001, 50000, 7])
    want = [work(n) for n in [1000, 2001, 50000, 7]]
    assert got == want, (got, want)
    print("pool fine")
"""
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"unison_pool_{method}_{os.getpid()}.py")
    with open(path, "w") as f:
        f.write(code)
    try:
        r = subprocess.run([sys.executable, path], capture_output=True, text=True,
                           timeout=TIMEOUT)
    finally:
        os.unlink(path)
    assert r.returncode == 0 and "pool fine" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("call", ["diffuse", "final_only", "diffuse_history", "monte_carlo_pi"])
def test_ctrl_c_stops_a_long_call(call):
    # a call of minutes on any machine; SIGINT once it has started
    body = {
        "diffuse": "unison.diffuse(f, 10**7, 0.1)",
        "final_only": "unison.diffuse(f, 10**7, 0.1, laplacian='final_only')",
        "diffuse_history": "unison.diffuse_history(f, 10**7, 0.1, np.empty((64, 512, 512), "
                           "np.float32))",
        "monte_carlo_pi": "unison.monte_carlo_pi(10**15)",
    }[call]
    code = f"""
import sys, time, numpy as np, unison
f = np.ones((512, 512), np.float32)
print("start", flush=True)
t = time.perf_counter()
try:
    {body}
except KeyboardInterrupt:
    print("interrupted", time.perf_counter() - t, bool(np.isfinite(f).all()), flush=True)
    sys.exit(3)
print("finished", flush=True)
"""
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert p.stdout.readline().strip() == "start"
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 3, out + err
    words = out.split()
    assert words[0] == "interrupted" and words[2] == "True", out + err
