#!/usr/bin/env python3
"""Where a whole test run's time went, from the turns its tests took on the sandbox.

    BANKOPS_TEST_TIMELINE=/tmp/turns.tsv ./bankops test
    tests/bench/test-timeline.py /tmp/turns.tsv

Prints the span, the seconds tests held the sandbox alone (nothing else ran) and shared (by how many at once), and
each suite's seconds held (project/TestShards.scala orders suites by their whole time instead: tests/bench/suite-seconds.py).
A shared test's part alone (OnSandbox.aloneFor, a line of its own named "[alone] why") counts as alone, not as that
test's shared time.
"""
import sys
from collections import defaultdict


def union(intervals, at_least=1):
    """Seconds during which at least `at_least` of the intervals overlap."""
    events = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    held, last, total = 0, None, 0
    for t, d in events:
        if held >= at_least:
            total += t - last
        held += d
        last = t
    return total / 1000


def without(interval, cuts):
    """The pieces of `interval` outside every one of `cuts`."""
    pieces = [interval]
    for ca, cb in cuts:
        pieces = [p for a, b in pieces for p in ((a, min(b, ca)), (max(a, cb), b)) if p[0] < p[1]]
    return pieces


def main(path):
    rows = []
    for line in open(path):
        suite, test, alone, asked, had, done = line.rstrip("\n").split("\t")
        rows.append((suite, test, alone == "true", int(asked), int(had), int(done)))
    if not rows:
        sys.exit(f"{path}: no tests recorded")
    start, end = min(r[3] for r in rows), max(r[5] for r in rows)
    alone = [r for r in rows if r[2]]
    shared = [piece for r in rows if not r[2] for piece in without((r[4], r[5]), [(a[4], a[5]) for a in alone])]
    print(f"span {(end - start) / 1000:.0f} s, {len(rows)} tests on the sandbox")
    print(f"alone: {sum(r[5] - r[4] for r in alone) / 1000:.0f} s held by {len(alone)} tests, "
          f"{sum(r[4] - r[3] for r in alone) / 1000:.0f} s waited for")
    print("shared: " + ", ".join(f"{union(shared, n):.0f} s with {n}+ at once" for n in (1, 2, 3)))
    print(f"no test holding: {(end - start) / 1000 - union([(r[4], r[5]) for r in rows]):.0f} s")
    held = defaultdict(float)
    for r in rows:
        if not r[1].startswith("[alone] "):  # within its test's own line
            held[r[0]] += (r[5] - r[4]) / 1000
    print("seconds held, by suite:")
    for suite, s in sorted(held.items(), key=lambda kv: -kv[1]):
        print(f"  {s:6.0f}  {suite}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tests/bench/test-timeline.py TIMELINE.tsv")
    main(sys.argv[1])
