#!/usr/bin/env bash
# `bankops sandbox up` cold (downloads cached, no data) and warm (restart with
# data): wall time and each service's peak RSS (VmHWM). Uses its own sandbox
# directory and ports so a running sandbox is left alone.
# Usage: tests/bench/sandbox-up.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=$(mktemp -d); chmod 755 "$dir"   # as root, PostgreSQL runs as postgres and must reach it
args=(--sandbox-dir "$dir" --kafka-port 39092 --controller-port 39093 --registry-port 38081 --db-port 35432)
trap '"$root/bankops" sandbox down --wipe --sandbox-dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
"$root/bankops" --version >/dev/null   # build outside the timing

rss() {
  local kafka registry pg
  kafka=$(cat "$dir/kafka/pid"); registry=$(cat "$dir/registry/pid"); pg=$(head -1 "$dir/postgres/data/postmaster.pid")
  for s in "kafka $kafka" "registry $registry" "postgres $pg"; do
    set -- $s
    printf '  %-9s peak RSS %s MB\n' "$1" "$(( $(awk '/VmHWM/ {print $2}' "/proc/$2/status") / 1024 ))"
  done
}

measure() {
  local label=$1; shift
  local s e
  s=$(date +%s.%N); "$root/bankops" sandbox up "${args[@]}" 2>/dev/null; e=$(date +%s.%N)
  printf '%s: %.1f s\n' "$label" "$(echo "$e - $s" | bc)"
  rss
}

measure "cold up (no data)"
"$root/bankops" sandbox down --sandbox-dir "$dir" >/dev/null 2>&1
measure "warm up (restart with data)"
