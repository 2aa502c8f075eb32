#!/usr/bin/env bash
# Heartbeat maximum throughput against Kafka's ProducerPerformance, same broker, same run.
# Both: acks=all, idempotence, linger.ms=10, batch.size=256 KiB, buffer.memory 32 MiB, SSL through the sandbox's client
# properties; ProducerPerformance sends records the size of bankops' (key + framed Avro value).
# bankops' figure includes Avro encoding. Usage: tests/bench/heartbeat-throughput.sh [RECORDS] [ROUNDS]  (15 rounds: ~5 min; the machine drifts, so rounds are many)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
records=${1:-1000000}
rounds=${2:-15}
# A heartbeat is a 24-byte ISO-8601 key plus a 5-byte frame and a varint beat (3 bytes below 2^20).
size=32
pp=(); hb=(); rss=()
warm_up ./bankops heartbeat --rate 0 --count 1
run_pp() {
  local out
  out=$(kafka_tool org.apache.kafka.tools.ProducerPerformance --topic heartbeat --num-records "$records" --record-size $size \
    --throughput -1 --producer.config "$client_props" \
    --producer-props bootstrap.servers="$bootstrap" acks=all enable.idempotence=true linger.ms=10 batch.size=262144 2>/dev/null | tail -1)
  pp+=("$(echo "$out" | sed -n 's/.*sent, \([0-9.]*\) records\/sec.*/\1/p')")
  echo "round $round ProducerPerformance: $out"
}
run_hb() {
  local json
  json=$(/usr/bin/time -f '%M' -o /tmp/bankops-hb-rss ./bankops heartbeat --rate 0 --count "$records" -o json 2>/dev/null)
  hb+=("$(echo "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["recordsPerSecond"])')")
  rss+=("$(cat /tmp/bankops-hb-rss)")
  echo "round $round bankops heartbeat:    $json (peak RSS $(( $(cat /tmp/bankops-hb-rss) / 1024 )) MiB)"
}
# Who goes first alternates: the broker is still flushing the previous run's records when the second starts.
for round in $(seq "$rounds"); do
  if (( round % 2 )); then run_pp; run_hb; else run_hb; run_pp; fi
done
ppm=$(printf '%s\n' "${pp[@]}" | median)
hbm=$(printf '%s\n' "${hb[@]}" | median)
rssm=$(printf '%s\n' "${rss[@]}" | median)
# Rounds alternate the two tools, so each round is a fair pair; on a machine whose speed drifts (a shared VM)
# the median of the per-round ratios is the steadier figure. Both are printed.
ratios=(); for i in "${!pp[@]}"; do ratios+=("$(echo "${hb[$i]} / ${pp[$i]}" | bc -l)"); done
printf 'per-round ratios:'; printf ' %.2f' "${ratios[@]}"; echo
printf 'median records/s: ProducerPerformance %.0f, bankops heartbeat %.0f (ratio of medians %.2f); median per-round ratio %.2f (target >= 0.90); bankops peak RSS %d MiB\n' \
  "$ppm" "$hbm" "$(echo "$hbm / $ppm" | bc -l)" "$(printf '%s\n' "${ratios[@]}" | median)" $(( rssm / 1024 ))
# Pacing: a 10 s run at a set rate must hold it within 2%.
for rate in 1000 20000; do
  json=$(./bankops heartbeat --rate $rate --duration 10s -o json 2>/dev/null)
  echo "$json" | python3 -c "import json,sys; s=json.load(sys.stdin); print('rate %d for 10 s: %d records, %.1f records/s, %.2f%% of target (target within 2%%)' % ($rate, s['records'], s['recordsPerSecond'], s['recordsPerSecond'] * 100 / $rate))"
done
