#!/usr/bin/env python3
"""Where a command's CPU goes, by kind of process: runs COMMAND, samples /proc every 0.3 s until it ends, and prints the
CPU-seconds each kind used meanwhile (brokers, registry, PostgreSQL, each bankops job, the test JVM, Kafka's tools...),
beside the machine's busy and idle CPU-seconds from /proc/stat.

    python3 tests/bench/cpu-by-process.py ./bankops test

A process that was running before COMMAND started counts only what it used after. Each process's last interval (up
to 0.3 s) is missed, and so is one that lives less than a sample: short `sh`, `sed` and the like, and a little of every
short JVM. A process that execs another program (the bankops launcher execs java) is counted under what it runs at
each sample.
"""
import collections
import os
import re
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def kind(pid):
    try:
        args = [a.decode(errors="replace") for a in open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0") if a]
    except OSError:
        return None
    if not args:
        return None
    line = " ".join(args)
    broker = re.search(r"/(kafka-\d+)/", line) if "kafka.Kafka" in line else None
    if "kafka.Kafka" in line:
        return "broker " + (broker.group(1) if broker else "?")
    if "bankops.Main" in line:
        rest = args[args.index("bankops.Main") + 1:]
        return "bankops " + (rest[0] if rest else "")
    if "apicurio" in line.lower() or "quarkus" in line:
        return "registry"
    if os.path.basename(args[0]).startswith("postgres"):
        return "postgres"
    if "sbt.ForkMain" in line or "@/tmp/sbt-args" in line or any(a.startswith("@") and "sbt-args" in a for a in args):
        return "test JVM (sbt's fork)"
    if "xsbt.boot" in line or "sbt-launch" in line:
        return "sbt"
    if os.path.basename(args[0]) == "keytool":
        return "keytool"
    tool = next((a for a in args if a.startswith(("kafka.", "org.apache.kafka."))), None)
    if tool:
        return "Kafka tool " + tool.split(".")[-1]
    return os.path.basename(args[0])[:40]


def cpu(pid):
    try:
        stat = open(f"/proc/{pid}/stat").read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / HZ, fields[19]  # utime + stime, and the start time that tells reuse


def machine():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:8]]
    return sum(f) - f[3] - f[4], f[3] + f[4]  # busy, idle (idle + iowait)


def main(command):
    seen = {}  # (pid, start) -> the CPU-s counted up to
    used = collections.Counter()

    def sample(count):
        for pid in filter(str.isdigit, os.listdir("/proc")):
            c = cpu(pid)
            if c is None:
                continue
            key = (pid, c[1])
            k = kind(pid)  # again at every sample: an exec keeps the pid and the start time
            if k is None:
                continue
            if key not in seen:
                seen[key] = c[0] if not count else 0.0
            used[k] += c[0] - seen[key]
            seen[key] = c[0]

    sample(count=False)
    busy0, idle0 = machine()
    started = time.time()
    child = subprocess.Popen(command)
    while child.poll() is None:
        sample(count=True)
        time.sleep(0.3)
    sample(count=True)
    busy1, idle1 = machine()
    print(f"wall {time.time() - started:.0f} s; the machine: busy {(busy1 - busy0) / HZ:.0f} CPU-s, idle {(idle1 - idle0) / HZ:.0f} CPU-s",
          file=sys.stderr)
    for k, s in used.most_common():
        if s >= 0.5:
            print(f"{s:9.1f}  {k}", file=sys.stderr)
    return child.returncode


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
