#!/usr/bin/env bash
# Launcher start-up: cold `./bankops --help` on a fresh clone with an empty cache
# (sbt, dependencies and the build included), then warm runs (nothing changed:
# plain java, no sbt). Usage: tests/bench/startup.sh [RUNS]   (default 5)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q "$root" "$work/clone"
export BANKOPS_CACHE=$work/cache

t0=$(date +%s.%N)
"$work/clone/bankops" --help >/dev/null 2>"$work/cold.log"
t1=$(date +%s.%N)
printf 'cold (empty cache, fresh clone): %.1f s\n' "$(echo "$t1 - $t0" | bc)"

times=()
for _ in $(seq "$runs"); do
  s=$(date +%s.%N); "$work/clone/bankops" --help >/dev/null; e=$(date +%s.%N)
  times+=("$(echo "$e - $s" | bc)")
done
if pgrep -f "sbt-launch.*$work" >/dev/null; then echo "warm run started sbt" >&2; exit 1; fi
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
printf 'warm runs (s): %s\n' "$(echo "$sorted" | tr '\n' ' ')"
printf 'warm median: %.2f s\n' "$median"
