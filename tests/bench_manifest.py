"""unison-bench's manifest (--list --json) against the cases it registers (--list), and against
what the suite promises of them: every case names a family of the registry, a function and a
kind; the peaks always run; --workloads keeps the other cases to its families; the sweeps are
there only when asked for; no exploration probe.

    python3 bench_manifest.py UNISON_BENCH
"""
import json
import os
import re
import subprocess
import sys

FAMILIES = {"elementwise", "rowwise", "convolve", "diffusion", "matmul", "random", "histogram",
            "examples"}
KINDS = {"workload", "peak", "crossover", "sizes"}
FIELDS = {"name", "family", "function", "kind", "with_copies", "api", "headline", "backends", "sizes",
          "bytes", "flops", "units"}


def run(bench, *args):
    out = subprocess.run([bench, "--scale=0.001", *args], check=True, capture_output=True,
                         text=True, env={**os.environ, "OMP_PROC_BIND": "false"})
    return out.stdout


def manifest(bench, *args):
    return json.loads(run(bench, "--list", "--json", *args))["cases"]


def timeless(name):
    """The name without the diffusion's seed-run steps ("/steps<N>"), which each process chooses
    by timing a pilot run: on a loaded machine two processes may choose differently."""
    return re.sub(r"/steps\d+(?=/|$)", "", name)


def listed(bench, *args):
    # (Google Benchmark's names carry the run's settings: ".../iterations:1/repeats:3/...")
    return {timeless(line.strip().split("/iterations:")[0])
            for line in run(bench, "--list", *args).splitlines() if line.strip()}


def main():
    bench = sys.argv[1]
    failures = []

    def expect(ok, what):
        if not ok:
            failures.append(what)

    for args in ([], ["--crossover", "--sizes"], ["--workloads=histogram", "--sizes"]):
        cases = manifest(bench, *args)
        expect(cases, f"{args}: an empty manifest")
        names = [c["name"] for c in cases]
        expect(len(names) == len(set(names)), f"{args}: a case listed twice")
        # The same cases, on the same backends, as Google Benchmark registered.
        full = {timeless(f"{c['name']}/{b}") for c in cases for b in c["backends"]}
        other = listed(bench, *args)
        expect(full == other, f"{args}: the manifest and --list differ: {sorted(full ^ other)[:5]}")
        for c in cases:
            what = f"{args}: {c.get('name')}"
            expect(set(c) == FIELDS, f"{what}: fields {sorted(c)}")
            expect(c["family"] in FAMILIES, f"{what}: family {c['family']!r}")
            expect(c["kind"] in KINDS, f"{what}: kind {c['kind']!r}")
            expect(c["function"] != "", f"{what}: no function")
            expect(c["kind"] == "peak" or c["api"], f"{what}: times no public function (api)")
            expect(c["backends"], f"{what}: no backend")
            expect(c["sizes"] and all(v > 0 for v in c["sizes"].values()), f"{what}: sizes")
            expect(c["bytes"] > 0 or c["flops"] > 0 or c["kind"] == "workload",
                   f"{what}: a peak that counts nothing")
            expect(c["with_copies"] == c["name"].endswith("/with_copies"), f"{what}: with_copies")
            if c["kind"] == "peak":
                expect(c["function"] in {"copy", "read", "add", "fma"}, f"{what}: a peak of {c['function']}")
        kinds = {c["kind"] for c in cases}
        expect("peak" in kinds, f"{args}: no peak")
        expect(("crossover" in kinds) == ("--crossover" in args), f"{args}: crossover cases")
        if "--workloads=histogram" in args:
            expect({c["family"] for c in cases if c["kind"] != "peak"} == {"histogram"},
                   f"{args}: cases of other families")
        if not args:
            expect({c["family"] for c in cases if c["kind"] == "workload"} == FAMILIES,
                   f"{args}: families without a case")
            # The report's headline: one workload case a family, with the data on the device,
            # but for the small examples, which no tutorial's tool runs beside.
            for family in FAMILIES:
                head = [c for c in cases if c["family"] == family and c["headline"]]
                expect(len(head) == (0 if family == "examples" else 1),
                       f"{family}: headline cases {[c['name'] for c in head]}")
                expect(all(c["kind"] == "workload" and not c["with_copies"] for c in head),
                       f"{family}: a headline case that is no workload at the device")
    for f in failures:
        print("FAIL:", f)
    print(f"bench_manifest: {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
