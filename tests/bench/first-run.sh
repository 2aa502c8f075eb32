#!/usr/bin/env bash
# A job's first run against its later ones, as an operator meets them after unpacking the distribution: each job below
# once on an empty cache, then RUNS more times (the median), against a one-broker sandbox of the script's own. On the
# default JDK the first run records the job's class-data archive; on the JDK 25 the tarball's AOT cache was trained on
# (tests/dist/aot-jdk.sh finds it) the first run maps that cache. `java -version` is the floor, in the same run.
#   tests/bench/first-run.sh [TARBALL] [RUNS]   (default: ./bankops dist [--aot-jdk] now; 3 runs)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${2:-3}
aot_jdk=$(bash "$root/tests/dist/aot-jdk.sh" || true)
if [ -n "${1:-}" ]; then tarball=$(readlink -f "$1")
else
  (cd "$root" && ./bankops dist ${aot_jdk:+--aot-jdk "$aot_jdk"} >/dev/null 2>&1) || { echo "./bankops dist failed" >&2; exit 1; }
  tarball=$(echo "$root"/target/dist/bankops-*.tar.gz)
fi
work=$(mktemp -d)
chmod 755 "$work"
mkdir -p "$work/opt" "$work/config" "$work/data"
tar -C "$work/opt" -xzf "$tarball"
b=$(echo "$work"/opt/bankops-*/bin/bankops)
export XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
unset BANKOPS_SANDBOX_DIR BANKOPS_HOME KAFKA_BROKERS SCHEMA_REGISTRY_URL BANKOPS_COMMAND_CONFIG BANKOPS_JAVA_OPTS BANKOPS_CDS
trap 'XDG_CACHE_HOME=$work/cache-up "$b" sandbox down --wipe >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cd "$work"
# The sandbox's downloads come from the machine's cache; its own start is not timed (its archive goes elsewhere).
"$b" sandbox up --brokers 1 --kafka-port 29292 --controller-port 29293 --registry-port 29281 --db-port 29632 >/dev/null 2>&1 ||
  { echo "sandbox up failed" >&2; exit 1; }
if [ "$(pgrep -fc 'kafka\.Kafka ' || true)" -gt 1 ]; then busy="another sandbox running too"
else busy="this script's one-broker sandbox running"; fi
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $busy; first run, then the median of $runs"

seconds() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || return 1; e=$(date +%s.%N); echo "$e - $s" | bc; }
key=$(cat /proc/sys/kernel/random/uuid)
jobs=(
  "--help"
  "topics list"
  "produce --topic commands --record ConfirmAccountCreation --value {\"id\":\"$key\",\"a_type\":\"AUTO\"}"
  "inspect --topic commands --from beginning --to end -o json"
  "groups list"
)
measure() {
  local label=$1 cache=$2 line first later m
  printf '%s (java -version %.2f s)\n' "$label" "$(seconds java -version)"
  for line in "${jobs[@]}"; do
    read -r -a argv <<< "$line"
    first=$(XDG_CACHE_HOME=$cache seconds "$b" "${argv[@]}") || { echo "bankops $line failed" >&2; exit 1; }
    later=()
    for _ in $(seq "$runs"); do later+=("$(XDG_CACHE_HOME=$cache seconds "$b" "${argv[@]}")"); done
    m=$(printf '%s\n' "${later[@]}" | sort -n | sed -n "$(( (runs + 1) / 2 ))p")
    printf '  %-14s first %5.2f s   later %5.2f s   first/later %.2fx\n' "${argv[0]} ${argv[1]:-}" "$first" "$m" \
      "$(echo "$first / $m" | bc -l)"
  done
}
measure "$(java -version 2>&1 | head -1): its archive recorded on the first run" "$work/cache-17"
if [ -n "$aot_jdk" ]; then
  JAVA_HOME=$aot_jdk PATH="$aot_jdk/bin:$PATH" measure "$("$aot_jdk/bin/java" -version 2>&1 | head -1): the tarball's AOT cache" "$work/cache-25"
  JAVA_HOME=$aot_jdk PATH="$aot_jdk/bin:$PATH" BANKOPS_CDS=off measure "the same JDK 25, no cache at all (BANKOPS_CDS=off)" "$work/cache-off"
fi
