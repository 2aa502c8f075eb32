#!/usr/bin/env bash
# Kafka's exactly-once floor on this cluster with the handler's Kafka client (kafka-clients 3.9.1, which fs2-kafka
# pins: transaction version 1, a round trip to add a transaction's partitions before its first records) against the
# brokers' own (4.1.2: transaction version 2, the partitions added by the produce itself), alternately in one run, on
# the sandbox's cluster (lib.sh). Usage: tests/bench/txn-client.sh [ROUNDS] [PROBES] [EXTRA]   (default 3, 300, 0)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
rounds=${1:-3}; count=${2:-300}; extra=${3:-0}
handler_cp=$(cat "$root/.bankops/build/classpath")
for r in $(seq "$rounds"); do
  for client in "handler's" "brokers'"; do
    cp=$([ "$client" = "handler's" ] && echo "$handler_cp" || echo "$kafka_cp")
    result=$(FLOOR_CP=$cp floor_step "$extra" "$count" 100) || exit 1
    echo "round $r, on the $client client, ${extra}/s extra: $result"
  done
done
