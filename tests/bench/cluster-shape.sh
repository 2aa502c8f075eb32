#!/usr/bin/env bash
# What three brokers cost the bank against one, and against Kafka's own exactly-once floor, all in one run. Each shape
# gets a sandbox of its own (its directory and ports; a running sandbox is left alone) with the bank's topology (three
# replicas and two in sync, or the single-broker environment). On each, in this order:
#   1. saturation: the handler's commands/s over a pre-filled backlog (handler-throughput.sh COMMANDS 0 0, after its
#      warm-up; this also warms the brokers' JIT for what follows);
#   2. Kafka's exactly-once floor (floor_step in lib.sh: a transactional relay on Kafka's Java client, no database), idle
#      and with 1,000 records/s of extra load, >= 300 probes each after 100 not counted;
#   3. the handler's feedback latency as a client sees it (`bankops latency --floor`: probes sent while it runs, 20 s of
#      warm-up, then 0 and 1,000 commands/s of extra load, >= 300 probes a step), after the same steps against the floor
#      `latency --floor` measures first: a relay on the handler's own client and settings, in the same process as its probes;
#   4. where the time goes: the same two latency steps (15 s each) again with Kafka's request log on, each request's
#      time split into queue, local, remote and response (request-times.py), for the handler's requests and the
#      brokers' own (replication, transaction markers). Apart from 2 and 3: the log costs the brokers time.
# Then one table and the targets, each checked against the floor measured on the same cluster in this run.
# Usage: tests/bench/cluster-shape.sh [STEP_SECONDS] [COMMANDS] [BROKER_COUNTS]   (default 32, 100000, "1 3")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-32}; n=${2:-100000}; counts=${3:-1 3}
# The order was COMMANDS STEP_SECONDS once: 100000 as seconds would run for days.
[ "$seconds" -le 600 ] || { echo "cluster-shape.sh: STEP_SECONDS $seconds is over 600 (usage: [STEP_SECONDS] [COMMANDS] [BROKER_COUNTS])" >&2; exit 2; }
probes=$(( seconds * 10 ))
results=$(mktemp -d)
for brokers in $counts; do
  dir=$(mktemp -d); chmod 755 "$dir"
  export BANKOPS_SANDBOX_DIR=$dir BANKOPS_KAFKA_PORT=49192 BANKOPS_CONTROLLER_PORT=49193 BANKOPS_REGISTRY_PORT=48181 BANKOPS_DB_PORT=45532
  trap '"$root/bankops" sandbox down --wipe --sandbox-dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
  "$root/bankops" sandbox up --brokers "$brokers" >/dev/null 2>&1
  out=$results/$brokers; mkdir -p "$out"
  echo "== $brokers broker(s)"
  (
    source "$root/tests/bench/lib.sh"
    "$root/tests/bench/handler-throughput.sh" "$n" 0 0 | tee "$out/saturation.txt"
    for extra in 0 1000; do floor_step "$extra" "$probes" 100 | tee "$out/floor-$extra.json"; done
    latency() { ./bankops latency --load "$1" --interval 100ms --step-duration "$2" --warm-up "$3" --max-timeouts 1000 -o json "${@:4}" 2>/dev/null |
      grep -v '"type":"\(floor-\)\?probe"'; }
    latency 0,1000 "${seconds}s" 20s --floor | tee "$out/handler.jsonl" | grep '"type":"step"' | cut -c1-300
    set_request_log DEBUG
    for extra in 0 1000; do
      since=$(log_time); latency "$extra" 15s 0s >/dev/null; until=$(log_time)
      for who in handler bankops-broker; do
        python3 "$root/tests/bench/request-times.py" "$since" "$until" --principal "User:$who" "$sandbox"/kafka-*/kafka-*.log > "$out/requests-$extra-$who.txt"
      done
    done
    set_request_log WARN
  )
  "$root/bankops" sandbox down --wipe --sandbox-dir "$dir" >/dev/null 2>&1; rm -rf "$dir"
  trap - EXIT
done
python3 - "$results" $counts <<'PY'
import json, os, re, sys
results, counts = sys.argv[1], sys.argv[2:]
shape = {}
for b in counts:
    d = os.path.join(results, b)
    sat = re.search(r"saturation \(target[^)]*\): .* = (\d+) commands/s", open(os.path.join(d, "saturation.txt")).read())
    steps = [j for j in map(json.loads, open(os.path.join(d, "handler.jsonl"))) if j["type"] == "step"]
    shape[b] = {
        "saturation": int(sat.group(1)) if sat else None,
        "floor": {x: json.load(open(os.path.join(d, f"floor-{x}.json"))) for x in (0, 1000)},
        "handler": {s["load"]["asked"]: s for s in steps},
    }
print()
print("shape       saturation/s   floor p50/p99 ms (0/s)   (1000/s)       handler feedback p50/p99 ms (0/s)   (1000/s)      probes")
print("                             (TxnFloor: Kafka's own client, a process apart)")
for b, s in shape.items():
    f, h = s["floor"], s["handler"]
    fb = lambda x: h[x]["latencyMs"]["feedback"] if x in h else {"p50": float("nan"), "p99": float("nan")}
    print(f"{b} broker(s) {s['saturation'] or 0:>12}   {f[0]['p50']:6.1f} / {f[0]['p99']:6.1f}        {f[1000]['p50']:6.1f} / {f[1000]['p99']:6.1f}"
          f"      {fb(0)['p50']:6.1f} / {fb(0)['p99']:6.1f}                  {fb(1000)['p50']:6.1f} / {fb(1000)['p99']:6.1f}"
          f"   {min([f[0]['probes'], f[1000]['probes']] + [x['probes'] for x in h.values()])}")
print()
print("shape       latency --floor p50/p99 ms (0/s)   (1000/s)       handler p99 / that floor's p99 (0/s)   (1000/s)")
print("            (the handler's client and settings, in the probes' process, measured just before the handler)")
for b, s in shape.items():
    h = s["handler"]
    fl = lambda x: h[x]["floor"]["latencyMs"]["feedback"] if x in h and "floor" in h[x] else {"p50": float("nan"), "p99": float("nan")}
    ratio = lambda x: h[x].get("p99OverFloor") if x in h else None
    print(f"{b} broker(s)  {fl(0)['p50']:6.1f} / {fl(0)['p99']:6.1f}                  {fl(1000)['p50']:6.1f} / {fl(1000)['p99']:6.1f}"
          f"          {ratio(0)}                                   {ratio(1000)}")
for b in counts:
    for extra in (0, 1000):
        for who in ("handler", "bankops-broker"):
            print(f"\n-- {b} broker(s), {extra}/s extra, requests of User:{who} (Kafka's request log, a run apart)")
            print(open(os.path.join(results, b, f"requests-{extra}-{who}.txt")).read().rstrip())
print()
def check(name, value, limit, unit=""):
    ok = value is not None and limit is not None and value <= limit
    print(f"target: {name}: {value if value is not None else 'n/a'}{unit} <= {f'{limit:.1f}' if limit is not None else 'n/a'}{unit}: {'met' if ok else 'NOT met'}")
def at_least(name, value, want):
    print(f"target: {name}: {value} >= {want}: {'met' if value is not None and value >= want else 'NOT met'}")
if "1" in shape and "3" in shape:
    check("floor p99 idle, three brokers vs 2x one broker", shape["3"]["floor"][0]["p99"], 2 * shape["1"]["floor"][0]["p99"], " ms")
for b, s in shape.items():
    for extra, factor in ((0, 1.25), (1000, 1.5)):
        h = s["handler"].get(extra)
        check(f"{b} broker(s): handler feedback p99 at {extra}/s vs {factor}x the floor", h and h["latencyMs"]["feedback"]["p99"],
              factor * s["floor"][extra]["p99"], " ms")
    for extra, factor in ((0, 1.25), (1000, 1.5)):
        h = s["handler"].get(extra)
        check(f"{b} broker(s): handler feedback p99 at {extra}/s vs {factor}x the floor of latency --floor", h and h["latencyMs"]["feedback"]["p99"],
              h and "floor" in h and factor * h["floor"]["latencyMs"]["feedback"]["p99"], " ms")
    at_least(f"{b} broker(s): saturation commands/s", s["saturation"], 10000 if b == "3" else 15000)
PY
rm -rf "$results"
