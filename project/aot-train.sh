#!/usr/bin/env bash
# Trains the AOT cache a distribution carries (./bankops dist --aot-jdk DIR, project/Distribution.scala): the packed
# launcher runs each job below once, in one JVM on the JDK in DIR (25 or newer; commands/AotTraining.scala), against a
# one-broker sandbox of its own (its own ports and XDG directories), so the cache holds the classes real runs load. The
# cache and the JDK build it belongs to go into ROOT/lib/aot.
#   project/aot-train.sh ROOT JDK_DIR
set -euo pipefail

root=$(readlink -f "${1:?usage: project/aot-train.sh ROOT JDK_DIR}")
jdk=$(readlink -f "${2:?usage: project/aot-train.sh ROOT JDK_DIR}")
fail() { echo "aot-train: $*" >&2; exit 1; }
# The JDK is checked by the launcher: `dist --aot-jdk` before sbt starts, `--aot-training` again as it trains.

work=$(mktemp -d)
# As root the sandbox runs PostgreSQL as the postgres user, which must reach the sandbox's directory.
chmod 755 "$work"
b=$root/bin/bankops
export JAVA_HOME=$jdk XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/data BANKOPS_AOT_TRAIN=$work/aot
unset BANKOPS_SANDBOX_DIR BANKOPS_HOME KAFKA_BROKERS SCHEMA_REGISTRY_URL BANKOPS_COMMAND_CONFIG BANKOPS_JAVA_OPTS BANKOPS_CDS
# The trap's run records nothing in the user's cache (BANKOPS_CDS=off) when the training fails half-way.
trap 'BANKOPS_CDS=off "$b" sandbox down --wipe >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
mkdir -p "$work/aot" "$work/config" "$work/data"
cd "$work"

# Each job once, as an operator runs it (its output is not the point); the demo and latency are left out (minutes
# long, and their classes are the others'). One line a command, its arguments separated by tabs.
key=$(cat /proc/sys/kernel/random/uuid)
job() { local IFS=$'\t'; echo "$*" >> "$work/jobs"; }
job --help
job completion bash
job reference "$work/reference"
job context list
job sandbox up --brokers 1 --kafka-port 29192 --controller-port 29193 --registry-port 29181 --db-port 29532
job config show
job doctor
job topics list
job schemas plan
job plan --environment single-broker
job apply --environment single-broker
job produce --topic commands --record ConfirmAccountCreation --value "{\"id\":\"$key\",\"a_type\":\"AUTO\"}"
job inspect --topic commands --from beginning --to end -o json
job heartbeat --rate 50 --duration 3s
job groups list
job replay --from-topic commands --to-file "$work/commands.jsonl"
job capture --topic commands --out "$work/commands.zip"
job restore "$work/commands.zip" --topic-prefix trained.
job balances validate
job sandbox status
job sandbox down --wipe
# The training JVM's own chatter (JAVA_TOOL_OPTIONS of the JVM writing the cache) is shown only when it fails.
"$b" --aot-training "$work/jobs" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; fail "training failed (above)"; }
grep '^aot-training: ' "$work/stderr" >&2 || true
[ -s "$work/aot/bankops.aot" ] || { cat "$work/stderr" >&2; fail "the training wrote no cache"; }

rm -rf "$root/lib/aot"
mkdir -p "$root/lib/aot"
cp "$work/aot/bankops.aot" "$work/aot/jdk" "$root/lib/aot/"
echo "aot-train: $(du -m "$root/lib/aot/bankops.aot" | cut -f1) MiB cache for $(cat "$root/lib/aot/jdk") in lib/aot" >&2
