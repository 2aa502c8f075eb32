#!/usr/bin/env bash
# Decode throughput of `bankops inspect` against Kafka's ConsumerPerformance (raw bytes, no decoding)
# on the same topic in the same run, and time to the first record against ConsoleConsumer.
# Usage: tests/bench/inspect-throughput.sh [RECORDS] [ROUNDS]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
records=${1:-500000}
rounds=${2:-3}
topic=bench-inspect-$records
ensure_commands_topic "$topic" "$records"
warm_up ./bankops inspect --topic "$topic" --limit 1
echo "topic $topic: $records mixed ConfirmAccountCreation/ConfirmMoneyTransfer records, 3 partitions"
cp=(); bk=(); cf=(); bf=()
for round in $(seq "$rounds"); do
  s=$(now)
  out=$(kafka_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bootstrap" --consumer.config "$client_props" \
    --topic "$topic" --messages "$records" --timeout 60000 --group "bench-$$-$round" 2>/dev/null | tail -1)
  e=$(now)
  own=$(echo "$out" | awk -F', *' '{print $6}')
  # Wall clock for both tools (JVM start included), as the bankops figure is; ConsumerPerformance's own figure excludes it.
  rate=$(echo "$records / ($e - $s)" | bc -l)
  cp+=("$rate")
  s=$(now); ./bankops inspect --topic "$topic" --from beginning --to end --output json > /dev/null 2>/tmp/bankops-inspect.err; e=$(now)
  n=$(sed -n 's/.*inspect: \([0-9]*\) read.*/\1/p' /tmp/bankops-inspect.err)
  bk+=("$(echo "$n / ($e - $s)" | bc -l)")
  printf 'round %d: ConsumerPerformance %.0f records/s wall clock (its own figure, start-up excluded: %.0f); bankops inspect %d records in %.2f s = %.0f records/s (JVM start included)\n' \
    "$round" "$rate" "$own" "$n" "$(echo "$e - $s" | bc -l)" "${bk[-1]}"
  s=$(now); kafka_tool org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$bootstrap" --consumer.config "$client_props" \
    --topic "$topic" --from-beginning --max-messages 1 >/dev/null 2>&1; e=$(now); cf+=("$(echo "$e - $s" | bc -l)")
  s=$(now); ./bankops inspect --topic "$topic" --limit 1 -o json >/dev/null 2>&1; e=$(now); bf+=("$(echo "$e - $s" | bc -l)")
  printf 'round %d: first record: ConsoleConsumer %.2f s, bankops inspect --limit 1 %.2f s\n' "$round" "${cf[-1]}" "${bf[-1]}"
done
cpm=$(printf '%s\n' "${cp[@]}" | median); bkm=$(printf '%s\n' "${bk[@]}" | median)
printf 'median records/s, wall clock: ConsumerPerformance %.0f, bankops inspect (decoding, JSON out) %.0f, ratio %.2f (target >= 0.50)\n' "$cpm" "$bkm" "$(echo "$bkm / $cpm" | bc -l)"
printf 'median time to first record: ConsoleConsumer %.2f s, bankops %.2f s\n' "$(printf '%s\n' "${cf[@]}" | median)" "$(printf '%s\n' "${bf[@]}" | median)"
