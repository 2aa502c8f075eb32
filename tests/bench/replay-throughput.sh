#!/usr/bin/env bash
# Topic-to-topic throughput of `bankops replay` against a kcat pipe (`kcat -C ... -e | kcat -P ...`),
# both over SSL, same broker, same source topic, same run. The kcat pipe splits on delimiters and drops
# timestamps and headers; bankops keeps everything and waits for every acknowledgement (acks=all).
# Usage: tests/bench/replay-throughput.sh [RECORDS] [ROUNDS]   (needs kcat: apt-get install kcat)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
records=${1:-500000}
rounds=${2:-3}
command -v kcat >/dev/null || { echo "kcat not found (apt-get install kcat)" >&2; exit 1; }
src=bench-inspect-$records
ensure_commands_topic "$src" "$records"
kc=(); bk=()
warm=bench-replay-warm-$$
bench_topic "$warm" 3 ConfirmAccountCreation ConfirmMoneyTransfer
warm_up ./bankops replay --from-topic "$src" --to-topic "$warm" --limit 1000
for round in $(seq "$rounds"); do
  dst_k=bench-replay-kcat-$$-$round; dst_b=bench-replay-bankops-$$-$round
  bench_topic "$dst_k" 3 ConfirmAccountCreation ConfirmMoneyTransfer
  bench_topic "$dst_b" 3 ConfirmAccountCreation ConfirmMoneyTransfer
  s=$(now)
  kcat -C -b "$bootstrap" "${kcat_ssl[@]}" -t "$src" -o beginning -e -q -K $'\t' | kcat -P -b "$bootstrap" "${kcat_ssl[@]}" -t "$dst_k" -K $'\t' -X acks=all
  e=$(now); kc+=("$(echo "$records / ($e - $s)" | bc -l)")
  s=$(now); ./bankops replay --from-topic "$src" --to-topic "$dst_b" 2>/tmp/bankops-replay.err; e=$(now)
  bk+=("$(echo "$records / ($e - $s)" | bc -l)")
  printf 'round %d: kcat pipe %.0f records/s; bankops replay %.0f records/s (%s)\n' "$round" "${kc[-1]}" "${bk[-1]}" "$(tail -1 /tmp/bankops-replay.err)"
  # What landed: the pipe splits binary Avro values at newline bytes, so its target holds other records than the source.
  printf 'round %d: records on the target: kcat pipe %d, bankops %d (source %d)\n' "$round" "$(topic_records "$dst_k")" "$(topic_records "$dst_b")" "$records"
done
# Reference: Kafka's own Java consumer reading the same records (no writing), wall clock, JVM start included.
s=$(now)
kafka_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bootstrap" --consumer.config "$client_props" \
  --topic "$src" --messages "$records" --timeout 60000 --group "bench-replay-$$" >/dev/null 2>&1
e=$(now); cpr=$(echo "$records / ($e - $s)" | bc -l)
kcm=$(printf '%s\n' "${kc[@]}" | median); bkm=$(printf '%s\n' "${bk[@]}" | median)
printf 'reference: ConsumerPerformance only reading the source: %.0f records/s wall clock = %.2f x the kcat pipe\n' "$cpr" "$(echo "$cpr / $kcm" | bc -l)"
printf 'median records/s: kcat pipe %.0f, bankops replay %.0f, ratio %.2f (target >= 1.00)\n' "$kcm" "$bkm" "$(echo "$bkm / $kcm" | bc -l)"
