#!/usr/bin/env bash
# The original experiment on this machine: `bankops latency` against the sandbox's bank and handler, extra command load
# rising from 0 in steps (default 0:500:5000 commands/s, 32 s each, a probe every 100 ms: 320 probes a step, so a p99
# is one) until the sandbox gives out (3 timed-out probes)
# or the ramp ends, watching the handler and the broker; then Kafka's own end-to-end latency tool (one record at a
# time, produced and consumed) on the same broker as the floor any Kafka round trip here pays, idle and under 1,000
# records/s from Kafka's ProducerPerformance; then Kafka's exactly-once floor, the same probes through a transactional
# relay with no database (TxnFloor.java, Kafka's Java client), idle and under 1,000 records/s.
# Usage: tests/bench/latency.sh [RAMP] [STEP_SECONDS] [CHART] [INTERVAL]   (default 0:500:5000, 32, a temporary .png, 100ms)
# Targets: feedback p99 <= 25 ms at 1,000 commands/s of extra load over >= 300 probes; no timeouts up to 2,000/s.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ramp=${1:-0:500:5000}
seconds=${2:-32}
interval=${4:-100ms}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
chart=${3:-$work/latency.png}
handler=$(cat "$sandbox/handler/pid")
broker=$(cat "$sandbox/kafka-1/pid")
warm_up ./bankops latency --help

./bankops latency --ramp "$ramp" --step-duration "${seconds}s" --interval "$interval" --watch-pid "$handler" --watch-pid "$broker" \
  --chart "$chart" -o json >"$work/latency.jsonl" 2>"$work/latency.err" || true
grep -v '^warning: probe' "$work/latency.err" >&2 || true
python3 - "$work/latency.jsonl" <<'PY'
import json, sys
rows = [j for j in map(json.loads, open(sys.argv[1])) if j["type"] in ("step", "warm-up")]
steps = [j for j in rows if j["type"] == "step"]
print("extra/s  achieved/s  probes  timeouts  feedback p50/p99/max ms   balance p99  db p99   handler cpu% MiB   kafka cpu%   lag max")
for s in rows:
    f, l = s["latencyMs"]["feedback"], s["latencyMs"]
    procs = {p["name"]: p for p in s["processes"]}
    h, k = procs.get("handler", {}), procs.get("kafka", {})
    print(f'{"warm-up" if s["type"] == "warm-up" else s["load"]["asked"]:>7}  {s["load"]["achieved"]:10.0f}  {s["probes"]:6d}  {s["timeouts"]:8d}  '
          f'{f["p50"]:6.1f} / {f["p99"]:6.1f} / {f["max"]:6.1f}    {l["balance"]["p99"]:9.1f}  {l.get("db", {}).get("p99", 0):6.1f}   '
          f'{h.get("cpuPercent", 0):8.0f} {h.get("rssMaxMiB", 0):4.0f}   {k.get("cpuPercent", 0):9.0f}   {s["lag"]["max"]}')
at1000 = [s for s in steps if s["load"]["asked"] == 1000]
upto2000 = [s for s in steps if s["load"]["asked"] <= 2000]
p99 = at1000[0]["latencyMs"]["feedback"]["p99"] if at1000 else None
timeouts = sum(s["timeouts"] for s in upto2000)
reached = max((s["load"]["asked"] for s in steps if s["timeouts"] == 0 and s["load"]["achieved"] >= 0.98 * s["load"]["asked"]), default=0)
n1000 = at1000[0]["probes"] if at1000 else 0
print(f"target: feedback p99 at 1000/s = {p99} ms over {n1000} probes (<= 25, >= 300 probes): {'met' if p99 is not None and p99 <= 25 and n1000 >= 300 else 'NOT met'}")
print(f"target: timeouts up to 2000/s = {timeouts} (0, over {len(upto2000)} steps): {'met' if timeouts == 0 and len(upto2000) >= 5 else 'NOT met'}")
print(f"highest step sustained (load achieved, no timeout): {reached} commands/s")
PY
echo "chart: $chart"
topic=bench-e2e
kafka_tool org.apache.kafka.tools.EndToEndLatency "$bootstrap" "$topic" 2000 all 200 "$client_props" 2>/dev/null | tail -2 |
  sed 's/^/kafka EndToEndLatency (produce, consume, one record at a time, idle broker): /'
# The same with 1,000 records/s of 200 bytes sent meanwhile by Kafka's own ProducerPerformance: one Kafka round trip
# under the step's load, on the same broker. A probe's feedback takes at least two (the command in; the feedback out,
# readable once the transaction's markers are written) plus the database's PREPARE and commit.
load_topic=bench-e2e-load
bench_topic "$load_topic" 3 ConfirmMoneyTransfer
kafka_tool org.apache.kafka.tools.ProducerPerformance --topic "$load_topic" --num-records 60000 --record-size 200 --throughput 1000 \
  --producer.config "$client_props" --producer-props "bootstrap.servers=$bootstrap" >/dev/null 2>&1 &
load=$!
sleep 5
kafka_tool org.apache.kafka.tools.EndToEndLatency "$bootstrap" "$topic" 2000 all 200 "$client_props" 2>/dev/null | tail -2 |
  sed 's/^/kafka EndToEndLatency (the same, with ProducerPerformance at 1000 records\/s meanwhile): /'
kill "$load" 2>/dev/null; wait "$load" 2>/dev/null || true
# Kafka's exactly-once floor: the probes' path with everything but the database, a consume-transform-produce relay with
# Kafka's own Java client that copies a poll's records and offsets in one transaction (tests/bench/TxnFloor.java), timed
# from the send to read_committed visibility as the probes are, idle and with 1,000 records/s of extra load from
# ProducerPerformance. What the handler's feedback adds to these figures is its own work per batch.
case $interval in *ms) interval_ms=${interval%ms} ;; *s) interval_ms=$(( ${interval%s} * 1000 )) ;; *) interval_ms=$interval ;; esac
probes=$(( seconds * 1000 / interval_ms ))
for extra in 0 1000; do
  floor_step "$extra" "$probes" "$interval_ms" >"$work/floor.json"
  python3 - "$work/floor.json" "$extra" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"kafka exactly-once floor (relay, no database) at {sys.argv[2]}/s extra: {r['probes']} probes, {r['timeouts']} timeouts, "
      f"p50/p99/p99.9/max {r['p50']:.1f} / {r['p99']:.1f} / {r['p999']:.1f} / {r['max']:.1f} ms")
PY
done
