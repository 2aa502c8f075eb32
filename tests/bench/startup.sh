#!/usr/bin/env bash
# Launcher start-up: cold `./bankops --help` on a fresh clone with an empty cache
# (sbt, dependencies and the build included), then warm runs (nothing changed:
# plain java, no sbt) of `--help` and of `JOB --help` for a few jobs, beside
# `java -version` (the JVM's own floor) in the same run. The target is a median
# of 0.5 s on an idle machine, 0.8 s while a sandbox runs (its brokers share the
# cores): the script says which it found. The first warm run of each records its
# class-data archive and is slower; the median is over the rest as well.
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

# A broker of any sandbox on this machine (its JVM runs kafka.Kafka) makes the machine busy.
if pgrep -f 'kafka\.Kafka ' >/dev/null; then busy="a sandbox running"; target=0.8; else busy=idle; target=0.5; fi
echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $busy: target median <= $target s"

# The median of RUNS runs of CMD..., and its line; `floor` is java -version's.
median() {
  local name=$1 times=() s e sorted m; shift
  for _ in $(seq "$runs"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    times+=("$(echo "$e - $s" | bc)")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -n)
  m=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
  printf '%-16s runs (s): %s median %.2f s' "$name" "$(echo "$sorted" | tr '\n' ' ')" "$m"
  if [ -n "${floor:-}" ]; then
    printf ' (%.1fx java -version; target <= %s: %s)' "$(echo "$m / $floor" | bc -l)" "$target" \
      "$( [ "$(echo "$m <= $target" | bc)" = 1 ] && echo met || echo "NOT met")"
  else floor=$m
  fi
  echo
}
median "java -version" java -version
warm() { median "$*" "$work/clone/bankops" "$@"; }
warm --help
for job in latency replay inspect; do warm "$job" --help; done
if pgrep -f "sbt-launch.*$work" >/dev/null; then echo "warm run started sbt" >&2; exit 1; fi

# The distribution as an operator installs it (tests/dist/installed.sh). On JDK 17 its first run records the class-data
# archive (a dynamic archive names the jars' absolute paths, so JDK 17 cannot map one made elsewhere), then warm runs.
# Where a JDK 25 is found (tests/dist/aot-jdk.sh) the tarball carries an AOT cache trained on it: the same on that JDK.
aot_jdk=$(bash "$root/tests/dist/aot-jdk.sh" || true)
(cd "$work/clone" && ./bankops dist ${aot_jdk:+--aot-jdk "$aot_jdk"} >/dev/null 2>&1) || { echo "./bankops dist failed" >&2; exit 1; }
mkdir -p "$work/opt" && tar -C "$work/opt" -xzf "$work"/clone/target/dist/bankops-*.tar.gz
installed=$(echo "$work"/opt/bankops-*/bin/bankops)
first_and_warm() {
  local label=$1 s e; shift
  s=$(date +%s.%N); "$installed" --help >/dev/null 2>&1; e=$(date +%s.%N)
  printf 'installed --help (%s) first run: %.2f s\n' "$label" "$(echo "$e - $s" | bc)"
  median "installed --help" "$installed" --help
}
XDG_CACHE_HOME=$work/xdg-cache first_and_warm "$("${JAVA_HOME:+$JAVA_HOME/bin/}java" -version 2>&1 | head -1), records its archive"
if [ -n "$aot_jdk" ]; then
  JAVA_HOME=$aot_jdk XDG_CACHE_HOME=$work/xdg-cache-25 BANKOPS_CDS=require first_and_warm "$aot_jdk, its AOT cache"
fi
