#!/usr/bin/env python3
"""Compares the Cuda kernels of two builds byte for byte, for a change meant to move code without
changing it.

    tools/cubin-diff.py BEFORE_DIR AFTER_DIR [N]

BEFORE_DIR, AFTER_DIR: folders of sm_XX cubins (every *.cubin in each is pooled: a source split
into several files compares as one). Each kernel's machine code is its cubin's .text.<kernel>
section; kernels are matched by mangled name with the per-file hashes of anonymous namespaces
(_GLOBAL__N__..., _INTERNAL_...) read away. Prints how many are identical, differ, or are found on
one side only, and the first N (default 8) of each list. No CUDA tools are needed to compare.

A translation unit's cubin, without a GPU: its command from the build's compile_commands.json
(CMAKE_EXPORT_COMPILE_COMMANDS=ON) with `-c SRC -o OBJ` and `--generate-code=...` replaced by
`-arch=sm_90 -cubin SRC -o NAME.cubin` (nvcc compiles the device code only).
"""

import collections
import glob
import re
import struct
import sys


def kernels(path):
    """The .text.<kernel> sections of a 64-bit little-endian ELF cubin: {name: bytes}."""
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        sys.exit(f"cubin-diff: {path} is not a 64-bit ELF cubin")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    found = {}
    for name_offset, _, _, _, offset, size, *_ in headers:
        start = names + name_offset
        name = data[start:data.index(b"\0", start)].decode()
        if name.startswith(".text."):
            found[name[len(".text."):]] = data[offset:offset + size]
    return found


def normalised(name):
    """The name with the per-file hashes of anonymous namespaces (and their lengths) read away."""
    name = re.sub(r"\d*_GLOBAL__N__[0-9a-f]+_\w+?_cpp_[0-9a-f]+", "ANON", name)
    return re.sub(r"\d*_INTERNAL_[0-9a-f]+_\w+?_cpp_[0-9a-f]+", "INTERNAL", name)


def pooled(folder):
    """Every cubin's kernels in folder, and how many names were found in more than one file."""
    files = sorted(glob.glob(folder + "/*.cubin"))
    if not files:
        sys.exit(f"cubin-diff: no .cubin in {folder}")
    found, repeated = {}, 0
    for path in files:
        for name, code in kernels(path).items():
            name = normalised(name)
            if name in found:
                repeated += 1
                if found[name] != code:
                    print(f"  other code under the same name in {path}: {name[:120]}")
            found[name] = code
    return found, repeated


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    before, repeated_before = pooled(sys.argv[1])
    after, repeated_after = pooled(sys.argv[2])
    shown = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    same = [k for k in before if k in after and before[k] == after[k]]
    differ = [k for k in before if k in after and before[k] != after[k]]
    only_before = [k for k in before if k not in after]
    only_after = [k for k in after if k not in before]
    print(f"{len(before)} kernels before, {len(after)} after (names in more than one file: "
          f"{repeated_before} before, {repeated_after} after): {len(same)} identical, {len(differ)} "
          f"differ, {len(only_before)} only before, {len(only_after)} only after")
    if only_after:
        codes = collections.Counter(before[k] for k in only_before)
        twins = sum(1 for k in only_after if codes[after[k]])
        print(f"of the {len(only_after)} only after, {twins} have byte-identical code among the "
              "only-before kernels")
    for label, names in (("differs", differ), ("only before", only_before), ("only after", only_after)):
        for name in names[:shown]:
            print(f"  {label}: {name[:160]}")


if __name__ == "__main__":
    main()
