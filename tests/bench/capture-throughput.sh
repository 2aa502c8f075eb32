#!/usr/bin/env bash
# Throughput of `bankops capture` (a topic's records into an archive: JSON lines with decoded values and raw bytes,
# ZIP-compressed, SHA-256 per file) against kcat writing the same records to a file (`kcat -C -e`, raw values, no
# decoding), and of `bankops restore` against kcat producing that file onto a new topic; same broker, same run. kcat
# splits its file at newline bytes, which binary Avro values hold: its topic gets other records, its time is a floor.
# Usage: tests/bench/capture-throughput.sh [RECORDS] [ROUNDS]   (needs kcat: apt-get install kcat)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
records=${1:-200000}
rounds=${2:-3}
command -v kcat >/dev/null || { echo "kcat not found (apt-get install kcat)" >&2; exit 1; }
src=bench-inspect-$records
ensure_commands_topic "$src" "$records"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
kc=(); cb=(); kp=(); rb=()
warm_up ./bankops capture --topic "$src" --to offset:1000 --out "$work/warm.zip"
for round in $(seq "$rounds"); do
  s=$(now); kcat -C -b "$bootstrap" "${kcat_ssl[@]}" -t "$src" -o beginning -e -q -K $'\t' > "$work/kcat.out"; e=$(now)
  kc+=("$(echo "$records / ($e - $s)" | bc -l)")
  rm -f "$work/capture.zip"
  s=$(now); ./bankops capture --topic "$src" --out "$work/capture.zip" 2>"$work/capture.err"; e=$(now)
  cb+=("$(echo "$records / ($e - $s)" | bc -l)")
  dst=bench-restore-kcat-$$-$round
  bench_topic "$dst" 3 ConfirmAccountCreation ConfirmMoneyTransfer
  s=$(now); kcat -P -b "$bootstrap" "${kcat_ssl[@]}" -t "$dst" -K $'\t' -X acks=all < "$work/kcat.out"; e=$(now)
  kp+=("$(echo "$records / ($e - $s)" | bc -l)")
  s=$(now); ./bankops restore "$work/capture.zip" --topic-prefix "bench-r$$-$round." 2>"$work/restore.err"; e=$(now)
  rb+=("$(echo "$records / ($e - $s)" | bc -l)")
  printf 'round %d: to a file: kcat %.0f records/s, bankops capture %.0f records/s (bytes: kcat %d, archive %d)\n' "$round" "${kc[-1]}" \
    "${cb[-1]}" "$(stat -c %s "$work/kcat.out")" "$(stat -c %s "$work/capture.zip")"
  printf 'round %d: onto a topic: kcat %.0f records/s, bankops restore %.0f records/s (restored %d of %d)\n' "$round" "${kp[-1]}" "${rb[-1]}" \
    "$(topic_records "bench-r$$-$round.$src")" "$records"
done
kcm=$(printf '%s\n' "${kc[@]}" | median); cbm=$(printf '%s\n' "${cb[@]}" | median)
kpm=$(printf '%s\n' "${kp[@]}" | median); rbm=$(printf '%s\n' "${rb[@]}" | median)
printf 'median records/s: kcat to a file %.0f, bankops capture %.0f, ratio %.2f\n' "$kcm" "$cbm" "$(echo "$cbm / $kcm" | bc -l)"
printf 'median records/s: kcat onto a topic %.0f, bankops restore %.0f, ratio %.2f\n' "$kpm" "$rbm" "$(echo "$rbm / $kpm" | bc -l)"
