#!/usr/bin/env bash
# `bankops sandbox up` cold (downloads cached, no data) and warm (restart with data), for one broker and for the default
# three: wall time and each service's peak RSS (VmHWM). Uses sandbox directories and ports of its own, so a running
# sandbox is left alone.
# Usage: tests/bench/sandbox-up.sh [BROKER_COUNTS]   (default "1 3")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
counts=${1:-1 3}
"$root/bankops" --version >/dev/null   # build outside the timing

for brokers in $counts; do
  dir=$(mktemp -d); chmod 755 "$dir"   # as root, PostgreSQL runs as postgres and must reach it
  args=(--sandbox-dir "$dir" --kafka-port 39092 --controller-port 39093 --registry-port 38081 --db-port 35432 --brokers "$brokers")
  trap '"$root/bankops" sandbox down --wipe --sandbox-dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT

  rss() {
    local pids=() s
    for s in "$dir"/kafka-*/pid "$dir/registry/pid" "$dir/handler/pid"; do pids+=("$(basename "$(dirname "$s")") $(cat "$s")"); done
    pids+=("postgres $(head -1 "$dir/postgres/data/postmaster.pid")")
    for s in "${pids[@]}"; do
      set -- $s
      printf '  %-9s peak RSS %s MB\n' "$1" "$(( $(awk '/VmHWM/ {print $2}' "/proc/$2/status") / 1024 ))"
    done
  }

  measure() {
    local label=$1 s e
    s=$(date +%s.%N); "$root/bankops" sandbox up "${args[@]}" 2>/dev/null; e=$(date +%s.%N)
    printf '%s broker(s), %s: %.1f s\n' "$brokers" "$label" "$(echo "$e - $s" | bc)"
    rss
  }

  measure "cold up (no data)"
  "$root/bankops" sandbox down --sandbox-dir "$dir" >/dev/null 2>&1
  measure "warm up (restart with data)"
  "$root/bankops" sandbox down --wipe --sandbox-dir "$dir" >/dev/null 2>&1; rm -rf "$dir"
done
