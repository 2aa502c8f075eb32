#!/usr/bin/env bash
# `balances validate` at scale: ACCOUNTS accounts with EVENTS_PER events each (default 1M x 5 = 5M events)
# generated into the sandbox once, then validated with the heap capped at 1 GiB; prints wall time,
# events/s, peak RSS and how the time splits between Kafka, PostgreSQL and the comparison.
# Usage: tests/bench/balances-scale.sh [ACCOUNTS] [EVENTS_PER] [ROUNDS]
set -euo pipefail
source "$(dirname "$0")/lib.sh"
accounts=${1:-1000000}
per=${2:-5}
rounds=${3:-2}
topic=bench-balances-$accounts-$per
table=bench_balance_${accounts}_${per}
eval "$(./bankops sandbox env)"
registry=$SCHEMA_REGISTRY_URL
psql_url=$(echo "$DB_URL" | sed 's/^jdbc://')
export PGPASSWORD=$DB_PASSWORD
existing=$(kafka_tool org.apache.kafka.tools.GetOffsetShell --bootstrap-server "$bootstrap" --command-config "$client_props" --topic "$topic" 2>/dev/null \
  | awk -F: '{s+=$3} END {print s+0}' || true)
if [ "$existing" -lt $(( accounts * per )) ]; then
  echo "generating $accounts accounts x $per events on $topic and table $table ..." >&2
  dir=$(mktemp -d)
  cp "$root"/schemas/*.avsc "$dir/"
  echo "{\"topics\": {\"$topic\": {\"partitions\": 9, \"replicationFactor\": 1, \"records\": [{\"type\": \"nl.openweb.data.BalanceChanged\", \"key\": \"iban\"}]}}}" > "$dir/topology.json"
  ./bankops apply --topology "$dir/topology.json" >/dev/null
  python3 "$root/tests/bench/gen_balances.py" "$bootstrap" "$sandbox/tls/ca.pem" "$registry" "$topic" "$accounts" "$per" "$dir/rows.csv"
  psql "$psql_url" -U "$DB_USER" -q -c "DROP TABLE IF EXISTS $table" \
    -c "CREATE TABLE $table (iban text, token text, amount bigint, type text, lmt bigint)" \
    -c "\\copy $table FROM '$dir/rows.csv' WITH (FORMAT csv)"
  rm -rf "$dir"
fi
BANKOPS_JAVA_OPTS="-Xmx1g" warm_up ./bankops balances validate --topic "$topic" --table "$table" -o json
for round in $(seq "$rounds"); do
  s=$(date +%s.%N)
  BANKOPS_JAVA_OPTS="-Xmx1g" /usr/bin/time -f '%M' -o /tmp/bankops-bal-rss \
    ./bankops balances validate --topic "$topic" --table "$table" -o json > /tmp/bankops-bal.json 2>/dev/null || true
  e=$(date +%s.%N)
  tail -1 /tmp/bankops-bal.json | python3 -c "
import json,sys
s=json.load(sys.stdin)['summary']; wall=$e-$s
print('round $round: %d accounts, %d events in %.1f s wall (%.0f events/s), findings %d, heap capped at 1 GiB, peak RSS %d MiB; Kafka %.1f s, PostgreSQL %.1f s, comparison %.2f s' % (
  s['accountsChecked'], s['events'], wall, s['events']/wall, s['findings'], $(cat /tmp/bankops-bal-rss)/1024, s['seconds']['kafka'], s['seconds']['postgres'], s['seconds']['compare']))"
done
