"""Checks published_stencils.py's reading of EBISU's and AN5D's output without a GPU: stand-in
programs print each code's result lines (their format as the programs print them, from a run of
each on a GPU), and the times per step, the peers' names and the refusals are compared with what
those lines say. Prints "check_published: N checks, 0 failures" on success; exits 1 otherwise."""
import os
import stat
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import published_stencils  # noqa: E402

# EBISU: one tab-separated line (the last but one field: milliseconds for all its launches of 9
# steps). AN5D: "Average: ... GFLOPS, ... ms" (milliseconds for all -t steps).
EBISU = r"""#!/bin/sh
for a in "$@"; do case $a in --iter=*) it=${a#--iter=};; --bdim=*) b=${a#--bdim=};; esac; done
[ -n "$EBISU_FAIL" ] && { echo "Cuda failure peer.cu:12: 'out of memory'"; }
ms=$(awk -v it="$it" -v b="$b" 'BEGIN { printf "%.6f", it * (b == 128 ? 0.002 : 0.001) }')
printf '900\t1\t%s\t%s\t%s\t9\t%s\t238\t<9,14,1>\t0.955/1\t128.004/227.000\t128/89\t%s\t425.9\t\n' \
  "$1" "$2" "$it" "$b" "$ms"
"""
AN5D = r"""#!/bin/sh
t=$4
[ -n "$AN5D_FAIL" ] && { echo "CUDA error: out of memory"; exit 134; }
echo "[Device warm-up]"; echo "2.0696 ms"; echo; echo "[Device execution]"
ms=$(awk -v t="$t" 'BEGIN { printf "%.4f", t * 0.003 }')
echo "      0:  3395.8106 GFLOPS, $ms ms"
echo "Average:  3395.8106 GFLOPS, $ms ms"
"""


def program(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def main():
    checks, failures = 0, []

    def check(ok, what):
        nonlocal checks
        checks += 1
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as root:
        program(os.path.join(root, "ebisu", "2d5pt_ebisu.exe"), EBISU)
        program(os.path.join(root, "an5d", "bin", "j2d5pt-float-256-10-256"), AN5D)
        os.environ["UNISON_PUBLISHED_STENCILS"] = root
        rows = []
        published_stencils.time_published(8192, "diffusion/sizes/final_only/8192x8192",
                                          lambda *r: rows.append(r))
        # 1 us a step (EBISU, 256 threads), 2 (128 threads), 3 (AN5D): times in milliseconds
        want = {"ebisu_bdim256": 1e-3, "ebisu_bdim128": 2e-3, "an5d_256_10_256": 3e-3}
        check(sorted(r[1] for r in rows) == sorted(want), f"peers {[r[1] for r in rows]}")
        for case, peer, ms in rows:
            check(case == "diffusion/sizes/final_only/8192x8192", f"case {case}")
            check(abs(ms - want.get(peer, -1)) < 1e-9, f"{peer}: {ms} ms a step")
        # Failures of either program: skipped, nothing recorded.
        os.environ["EBISU_FAIL"] = os.environ["AN5D_FAIL"] = "1"
        rows = []
        published_stencils.time_published(2000, "x", lambda *r: rows.append(r))
        check(rows == [], f"failed runs recorded: {rows}")
        del os.environ["EBISU_FAIL"], os.environ["AN5D_FAIL"]
        # Without the variable, or with an empty folder: no peers.
        del os.environ["UNISON_PUBLISHED_STENCILS"]
        check(published_stencils.programs() == [], "peers without UNISON_PUBLISHED_STENCILS")
        with tempfile.TemporaryDirectory() as empty:
            os.environ["UNISON_PUBLISHED_STENCILS"] = empty
            check(published_stencils.programs() == [], "peers in an empty folder")
    for f in failures:
        print("check_published: FAILED:", f)
    print(f"check_published: {checks} checks, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
