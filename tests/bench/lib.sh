# Shared by the benchmark scripts: a running sandbox with the default topology, and Kafka's tools.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
./bankops sandbox status >/dev/null 2>&1 || ./bankops sandbox up >&2
./bankops apply >/dev/null 2>&1 || { echo "bankops apply failed" >&2; exit 1; }
sandbox=$root/.bankops/sandbox
kafka_cp=$(cat "$sandbox/kafka/classpath")
client_props=$sandbox/client.properties
bootstrap=$(./bankops config show -o json | python3 -c 'import json,sys; print(next(l["value"] for l in map(json.loads, sys.stdin) if l["setting"]=="kafka.bootstrap.servers"))')
kafka_tool() { java -cp "$kafka_cp" "$@"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# A topic of the given records (simple names) in a scratch topology next to copies of the .avsc files.
bench_topic() {
  local topic=$1 partitions=$2; shift 2
  local dir; dir=$(mktemp -d)
  cp "$root"/schemas/*.avsc "$dir/"
  local recs=""
  for r in "$@"; do recs+="${recs:+, }{\"type\": \"nl.openweb.data.$r\", \"key\": \"id\"}"; done
  echo "{\"topics\": {\"$topic\": {\"partitions\": $partitions, \"replicationFactor\": 1, \"records\": [$recs]}}}" > "$dir/topology.json"
  ./bankops apply --topology "$dir/topology.json" >/dev/null
}
