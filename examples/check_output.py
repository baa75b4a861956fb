#!/usr/bin/env python3
"""Runs an example and compares what it prints with examples/expected/NAME.txt.

Usage: check_output.py EXAMPLE EXPECTED.txt [ARGS...]

Lines are compared word by word: numbers within 1e-3 (absolute), other words exactly. Lines of
EXPECTED.txt that start with '#' say how the values were worked out and are skipped. Exit 77
(skipped) when the example exits 77 (an input it needs is not installed)."""
import subprocess
import sys


def words(line):
    out = []
    for w in line.split():
        try:
            out.append(float(w))
        except ValueError:
            out.append(w)
    return out


def main():
    exe, expected_path, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    run = subprocess.run([exe] + args, capture_output=True, text=True, timeout=300)
    sys.stderr.write(run.stderr)
    if run.returncode == 77:
        print("skipped: " + run.stderr.strip())
        return 77
    if run.returncode != 0:
        print(f"{exe} exited {run.returncode}")
        return 1
    got = [l for l in run.stdout.splitlines() if l.strip()]
    with open(expected_path, encoding="utf-8") as f:
        want = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")]
    bad = 0
    for i in range(max(len(got), len(want))):
        g = words(got[i]) if i < len(got) else None
        w = words(want[i]) if i < len(want) else None
        same = g is not None and w is not None and len(g) == len(w) and all(
            abs(a - b) <= 1e-3 if isinstance(a, float) and isinstance(b, float) else a == b
            for a, b in zip(g, w))
        if not same:
            bad += 1
            print(f"line {i + 1}: expected {want[i] if w is not None else '(nothing)'!r}, "
                  f"got {got[i] if g is not None else '(nothing)'!r}")
    print(run.stdout, end="")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
