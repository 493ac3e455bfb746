#!/usr/bin/env python3
"""Compares mpi_calls.tbl with the MPI_ functions an MPI library exports (item 2 of issue 11).

Every exported MPI_ function must be in the table or match a line of left_out.tbl (a regular
expression and the reason it is not wrapped). Exits 1 listing each function that is neither,
and each left-out pattern that matches a function the table has (a contradiction).

Usage: table_coverage.py TABLE LEFT_OUT LIBMPI.so [LIBMPI.so...]
"""
import re
import subprocess
import sys
from pathlib import Path


def table_names(path):
    """Call names of the table and of the tables it includes ('@include FILE if COND')."""
    names = set()
    for line in Path(path).read_text().splitlines():
        if line.startswith("@include "):
            names |= table_names(Path(path).parent / line.split()[1])
        elif line.strip() and not line.lstrip().startswith("#"):
            names.add(line.split("|")[0].strip())
    return names


def left_out(path):
    rules = []
    for lineno, line in enumerate(Path(path).read_text().splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pattern, _, reason = line.partition(" | ")
        if not reason.strip():
            raise SystemExit(f"{path}:{lineno}: field reason: missing")
        rules.append((re.compile(pattern.strip()), reason.strip()))
    return rules


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                         check=True).stdout
    return {f[2] for f in (l.split() for l in out.splitlines())
            if len(f) == 3 and f[1] in "TW" and f[2].startswith("MPI_")}


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    table, rules = table_names(argv[1]), left_out(argv[2])
    bad = 0
    for lib in argv[3:]:
        syms = exported(lib)
        missing = sorted(s for s in syms - table if not any(r.search(s) for r, _ in rules))
        wrapped_and_left = sorted(s for s in table if any(r.search(s) for r, _ in rules))
        print(f"{lib}: {len(syms)} MPI_ functions exported, {len(syms & table)} wrapped, "
              f"{len(syms - table) - len(missing)} left out with a reason, {len(missing)} neither")
        for s in missing:
            print(f"  not in the table and not left out: {s}")
        for s in wrapped_and_left:
            print(f"  in the table but also matched by left_out.tbl: {s}")
        bad += len(missing) + len(wrapped_and_left)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
