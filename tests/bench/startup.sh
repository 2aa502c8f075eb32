#!/usr/bin/env bash
# Launcher start-up: cold `./bankops --help` on a fresh clone with an empty cache
# (sbt, dependencies and the build included), then warm runs (nothing changed:
# plain java, no sbt) of `--help` and of `JOB --help` for a few jobs, each against
# the 0.8 s aimed at (median). The first warm run of each records its class-data
# archive and is slower; the median is over the rest as well.
# Usage: tests/bench/startup.sh [RUNS]   (default 5)
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

# The median of RUNS warm runs of `bankops ARGS`.
warm() {
  local times=() s e sorted
  for _ in $(seq "$runs"); do
    s=$(date +%s.%N); "$work/clone/bankops" "$@" >/dev/null; e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  printf '%-16s warm runs (s): %s median %.2f s (target <= 0.8): %s\n' "$*" "$(echo "$sorted" | tr '\n' ' ')" \
    "$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")" \
    "$( [ "$(echo "$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p") <= 0.8" | bc)" = 1 ] && echo met || echo "NOT met")"
}
warm --help
for job in latency replay inspect; do warm "$job" --help; done
if pgrep -f "sbt-launch.*$work" >/dev/null; then echo "warm run started sbt" >&2; exit 1; fi
