#!/usr/bin/env python3
"""How long each suite ran in a whole test run, from its log: munit's times of the suite's tests summed (a test's wait
for its turn on the sandbox included), longest first, as rows for project/TestShards.scala's `seconds`.

    ./bankops test > /tmp/test.log 2>&1
    tests/bench/suite-seconds.py /tmp/test.log

A suite's fixture is not timed by munit: where one is long (ContextSuite starts a second sandbox), add it by hand.
"""
import re
import sys


def main(path, at_least=5):
    suite, seconds = None, {}
    for line in open(path, encoding="utf-8", errors="replace"):
        line = re.sub(r"\x1b\[[0-9;]*m", "", line).rstrip()
        header = re.match(r"^(bankops\.\S+):$", line)
        if header:
            suite = header.group(1)
            continue
        timed = re.match(r"^\s*\+ .* ([0-9.]+)s$", line)
        if suite and timed:
            seconds[suite] = seconds.get(suite, 0.0) + float(timed.group(1))
    for name, s in sorted(seconds.items(), key=lambda kv: (-kv[1], kv[0])):
        if s >= at_least:
            print(f'    "{name}" -> {round(s)},')


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: suite-seconds.py SBT_TEST_LOG")
    main(sys.argv[1])
