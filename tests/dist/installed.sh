#!/usr/bin/env bash
# The distribution as an operator installs it (README, "Install: bankops without its source"): unpacked outside any checkout, with no sbt on PATH,
# run through a link on PATH from another working directory. It brings a one-broker sandbox of its own up (its own
# ports and XDG directories), opens an account, reads it back with inspect, and wipes the sandbox.
#   tests/dist/installed.sh target/dist/bankops-VERSION.tar.gz
set -euo pipefail

tarball=$(readlink -f "${1:?usage: tests/dist/installed.sh target/dist/bankops-VERSION.tar.gz}")
fail() { echo "installed: FAILED: $*" >&2; exit 1; }

work=$(mktemp -d)
# As root the sandbox runs PostgreSQL as the postgres user, which must reach the sandbox's directory.
chmod 755 "$work"
trap 'bankops sandbox down --wipe >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mkdir -p "$work/opt" "$work/bin" "$work/somewhere" "$work/config" "$work/data"
tar -C "$work/opt" -xzf "$tarball"
ln -s "$work"/opt/bankops-*/bin/bankops "$work/bin/bankops"

# No sbt, no checkout: PATH holds the link and the system's tools; the downloads' cache is the machine's (XDG_CACHE_HOME
# as it is), the contexts and the sandbox are this test's.
export PATH="$work/bin:/usr/local/bin:/usr/bin:/bin" XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data
unset BANKOPS_SANDBOX_DIR BANKOPS_HOME KAFKA_BROKERS SCHEMA_REGISTRY_URL BANKOPS_COMMAND_CONFIG BANKOPS_JAVA_OPTS
! command -v sbt >/dev/null || fail "sbt is on PATH"
cd "$work/somewhere"

# BANKOPS_EXPECT_AOT=1 (.ci/run, the release): the tarball carries an AOT cache trained on the JDK in JAVA_HOME (the
# launcher's identity of a build: vendor, runtime version, platform), and every job's first run maps it: BANKOPS_CDS=
# require makes the JVM refuse to start without it, and no job may record an archive of its own instead.
aot=
if [ "${BANKOPS_EXPECT_AOT:-}" = 1 ]; then
  aot=$(cat "$work"/opt/bankops-*/lib/aot/jdk 2>/dev/null) || fail "the tarball carries no AOT cache (lib/aot/jdk)"
  release=${JAVA_HOME:?BANKOPS_EXPECT_AOT=1 needs JAVA_HOME}/release
  build=$(for key in IMPLEMENTOR JAVA_RUNTIME_VERSION OS_NAME OS_ARCH; do
    sed -n "s/^$key=\"\(.*\)\"/\1/p" "$release"; done | paste -sd' ' -)
  [ "$build" = "$aot" ] || fail "JAVA_HOME holds $build; the AOT cache was trained on $aot"
  export BANKOPS_CDS=require
  cds_dir=${BANKOPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bankops}/cds
  touch "$work/started"
fi

version=$(bankops --version)
[[ "$version" =~ ^bankops\ [0-9.]+\ \(commit\ [0-9a-f]{12}(-modified)?,\ built\ [0-9T:-]+Z\)$ ]] || fail "--version printed: $version"
echo "installed: $version" >&2

bankops sandbox up --brokers 1 --kafka-port 29092 --controller-port 29093 --registry-port 29081 --db-port 29432 >&2
[ -f "$XDG_DATA_HOME/bankops/sandbox/connection.json" ] || fail "the sandbox is not under XDG_DATA_HOME ($XDG_DATA_HOME/bankops/sandbox)"
[ ! -e .bankops ] || fail "the sandbox wrote .bankops into the working directory"

key=$(cat /proc/sys/kernel/random/uuid)
bankops produce --topic commands --record ConfirmAccountCreation --value "{\"id\":\"$key\",\"a_type\":\"AUTO\"}" >&2
read_back=$(bankops inspect --topic commands --from beginning --to end -o json)
echo "$read_back" | grep -q "\"key\":\"$key\"" || fail "inspect did not read back the record keyed $key: $read_back"
echo "installed: inspect read back the command keyed $key" >&2

bankops sandbox down --wipe >&2
[ ! -e "$XDG_DATA_HOME/bankops/sandbox" ] || fail "sandbox down --wipe left $XDG_DATA_HOME/bankops/sandbox"
if [ -n "$aot" ]; then
  recorded=$(find "$cds_dir" -maxdepth 1 -name '*.jsa' -newer "$work/started" 2>/dev/null || true)
  [ -z "$recorded" ] || fail "a job recorded a class-data archive instead of mapping the AOT cache ($aot): $recorded"
  echo "installed: every job's first run mapped the AOT cache trained on $aot" >&2
fi
echo "installed: ok" >&2
