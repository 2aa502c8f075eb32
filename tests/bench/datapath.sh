#!/usr/bin/env bash
# The data path in one run, each bankops job beside the tool operators compare it with, on the same records of the
# same cluster: inspect and capture against `kcat -C -J`; replay topic to topic and restore against a kcat pipe
# (`kcat -C | kcat -P`); replay --to-file and --from-file against kcat consuming to a file and producing from it.
# Kafka's own ConsumerPerformance and ProducerPerformance on the same count are the Java client's references.
# Every figure is a whole process, start-up included, timed by the wall clock; peak RSS is /usr/bin/time's maximum
# resident set. kcat's line-based files split binary Avro values at newline bytes: its topics get other records than
# the source, so its times are floors, not equal work. Topics it creates are deleted at the end.
# kcat's rates move by up to four times from run to run on this machine, so each pair is timed ROUNDS times (default 3),
# the peer and the bankops job one after the other in each round, and the median of the rounds' rates and ratios is
# printed beside their spread; peak RSS is the largest of the rounds'.
# Usage: tests/bench/datapath.sh [RECORDS [ROUNDS]]   (needs kcat: apt-get install kcat; /usr/bin/time: apt-get install time)
set -euo pipefail
records=${1:-1000000}
rounds=${2:-3}
[[ "$records" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "usage: tests/bench/datapath.sh [RECORDS [ROUNDS]]" >&2; exit 2; }
source "$(dirname "$0")/lib.sh"
command -v kcat >/dev/null || { echo "kcat not found (apt-get install kcat)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found (apt-get install time)" >&2; exit 1; }
src=bench-inspect-$records
ensure_commands_topic "$src" "$records"
work=$(mktemp -d)
made=()
cleanup() {
  for t in "${made[@]}"; do
    kafka_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --command-config "$client_props" --delete --topic "$t" \
      >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
# target NAME: a fresh target topic in $dst, deleted at the end (not in a subshell, which would lose `made`).
target() { dst=bench-dp-$$-$1; bench_topic "$dst" 3 ConfirmAccountCreation ConfirmMoneyTransfer >/dev/null; made+=("$dst"); }

declare -A rates rss
# run NAME CMD...: the command's records/s over the whole process, added to NAME's rates, and its peak RSS in MiB (the
# largest of the rounds').
run() {
  local name=$1; shift
  local s e m
  s=$(now)
  /usr/bin/time -o "$work/time" -f '%M' "$@"
  e=$(now)
  rates[$name]+="$(echo "$records / ($e - $s)" | bc -l) "
  m=$(( $(tail -1 "$work/time") / 1024 ))
  (( m > ${rss[$name]:-0} )) && rss[$name]=$m
  return 0
}

# Each bankops job once, on a few records, before any is timed: a job's first run after a build records its class-data
# archive, which takes longer and more memory than any later run.
warm_up ./bankops inspect --topic "$src" --limit 1
warm_up ./bankops capture --topic "$src" --to offset:1000 --out "$work/warm.zip"
target warm
warm_up ./bankops replay --from-topic "$src" --to-topic "$dst" --limit 1000
warm_up ./bankops restore "$work/warm.zip" --topic-prefix "bench-dp-$$-w."
made+=("bench-dp-$$-w.$src")
rm -f "$work/warm.zip"
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("brokers", 1))' \
  "$sandbox/state.json") broker(s); topic $src: $records records, 3 partitions; $rounds round(s)"

for round in $(seq "$rounds"); do
  rm -f "$work/capture.zip" "$work/replay.jsonl"
  run kcat-json bash -c "kcat -C -b '$bootstrap' ${kcat_ssl[*]} -t '$src' -o beginning -e -q -J > /dev/null"
  run consumer-perf java -cp "$kafka_cp" org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$bootstrap" \
    --consumer.config "$client_props" --topic "$src" --messages "$records" --timeout 60000 --group "bench-dp-$$-$round" >/dev/null
  run inspect bash -c "./bankops inspect --topic '$src' --from beginning --to end -o json > /dev/null 2> '$work/inspect.err'"
  run capture ./bankops capture --topic "$src" --out "$work/capture.zip" 2>"$work/capture.err"

  target "pipe-$round"
  run kcat-pipe bash -c "kcat -C -b '$bootstrap' ${kcat_ssl[*]} -t '$src' -o beginning -e -q -K '\t' |
    kcat -P -b '$bootstrap' ${kcat_ssl[*]} -t '$dst' -K '\t' -X acks=all"
  target "replay-$round"
  run replay ./bankops replay --from-topic "$src" --to-topic "$dst" 2>"$work/replay.err"
  run restore ./bankops restore "$work/capture.zip" --topic-prefix "bench-dp-$$-r$round." 2>"$work/restore.err"
  made+=("bench-dp-$$-r$round.$src")

  run kcat-to-file bash -c "kcat -C -b '$bootstrap' ${kcat_ssl[*]} -t '$src' -o beginning -e -q -K '\t' > '$work/kcat.out'"
  run to-file ./bankops replay --from-topic "$src" --to-file "$work/replay.jsonl" 2>"$work/to-file.err"
  target "kcat-from-file-$round"
  run kcat-from-file bash -c "kcat -P -b '$bootstrap' ${kcat_ssl[*]} -t '$dst' -K '\t' -X acks=all < '$work/kcat.out'"
  target "from-file-$round"
  run from-file ./bankops replay --from-file "$work/replay.jsonl" --to-topic "$dst" 2>"$work/from-file.err"
  target "producer-perf-$round"
  run producer-perf java -cp "$kafka_cp" org.apache.kafka.tools.ProducerPerformance --topic "$dst" --num-records "$records" \
    --record-size 100 --throughput -1 --producer.config "$client_props" --producer-props "bootstrap.servers=$bootstrap" acks=all >/dev/null

  # Each bankops job must have done all of it: its own count, read back from its summary or the target topic.
  shown=$(sed -n 's/.*inspect: \([0-9]*\) read.*/\1/p' "$work/inspect.err")
  [ "$shown" = "$records" ] || { echo "inspect read $shown of $records" >&2; exit 1; }
  for t in "bench-dp-$$-replay-$round" "bench-dp-$$-r$round.$src" "bench-dp-$$-from-file-$round"; do
    n=$(topic_records "$t"); [ "$n" = "$records" ] || { echo "$t holds $n of $records records" >&2; exit 1; }
  done
  n=$(wc -l < "$work/replay.jsonl"); [ "$n" = "$records" ] || { echo "replay --to-file wrote $n of $records lines" >&2; exit 1; }
  echo "round $round of $rounds done" >&2
done

# rate NAME: the median of its rounds' rates. ratios A B: each round's rate of A over B's, median first, then all.
rate() { tr ' ' '\n' <<<"${rates[$1]}" | grep . | median; }
ratios() {
  local a b list
  read -ra a <<<"${rates[$1]}"; read -ra b <<<"${rates[$2]}"
  list=$(for i in "${!a[@]}"; do echo "${a[$i]} / ${b[$i]}" | bc -l; done)
  printf '%.2fx (rounds %s)' "$(median <<<"$list")" "$(sort -n <<<"$list" | xargs printf '%.2f ' | sed 's/ $//')"
}
line() { printf '%-32s %9.0f records/s  %5s MiB  %s\n' "$1" "$(rate "$2")" "${rss[$2]:-}" "$3"; }
line "kcat -C -J" kcat-json ""
line "Kafka's ConsumerPerformance" consumer-perf "$(ratios consumer-perf kcat-json) of kcat -C -J"
line "bankops inspect -o json" inspect "$(ratios inspect kcat-json) of kcat -C -J (target 1.00x)"
line "bankops capture" capture "$(ratios capture kcat-json) of kcat -C -J (target 1.00x)"
line "kcat -C | kcat -P" kcat-pipe ""
line "bankops replay topic to topic" replay "$(ratios replay kcat-pipe) of the kcat pipe (target 1.00x)"
line "bankops restore" restore "$(ratios restore kcat-pipe) of the kcat pipe (target 1.00x)"
line "kcat -C to a file" kcat-to-file ""
line "bankops replay --to-file" to-file "$(ratios to-file kcat-to-file) of kcat to a file (target 1.00x)"
line "kcat -P from a file" kcat-from-file ""
line "bankops replay --from-file" from-file "$(ratios from-file kcat-from-file) of kcat from a file (target 1.00x)"
line "Kafka's ProducerPerformance" producer-perf "(100-byte records, acks=all); bankops --from-file at $(ratios from-file producer-perf)"
