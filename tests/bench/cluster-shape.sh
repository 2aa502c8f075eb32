#!/usr/bin/env bash
# What three brokers cost the bank against one, in the same run: for each shape a sandbox of its own (its directory
# and ports; a running sandbox is left alone) with the bank's topology (three replicas and two in sync, or the
# single-broker environment), then the handler at saturation (handler-throughput.sh COMMANDS 0) and the feedback
# latency with 1,000 commands/s of extra load (latency.sh 0:1000:1000 STEP_SECONDS).
# Usage: tests/bench/cluster-shape.sh [COMMANDS] [STEP_SECONDS] [BROKER_COUNTS]   (default 100000, 32, "1 3")
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${1:-100000}; seconds=${2:-32}; counts=${3:-1 3}
for brokers in $counts; do
  dir=$(mktemp -d); chmod 755 "$dir"
  export BANKOPS_SANDBOX_DIR=$dir BANKOPS_KAFKA_PORT=49192 BANKOPS_CONTROLLER_PORT=49193 BANKOPS_REGISTRY_PORT=48181 BANKOPS_DB_PORT=45532
  trap '"$root/bankops" sandbox down --wipe --sandbox-dir "$dir" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
  "$root/bankops" sandbox up --brokers "$brokers" >/dev/null 2>&1
  echo "== $brokers broker(s)"
  "$root/tests/bench/handler-throughput.sh" "$n" 0
  "$root/tests/bench/latency.sh" 0:1000:1000 "$seconds"
  "$root/bankops" sandbox down --wipe --sandbox-dir "$dir" >/dev/null 2>&1; rm -rf "$dir"
done
