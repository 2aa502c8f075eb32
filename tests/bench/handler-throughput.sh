#!/usr/bin/env bash
# The command handler at saturation and its memory at a steady rate, on the sandbox (broker, registry, PostgreSQL and
# the handler on this one machine). Usage: tests/bench/handler-throughput.sh [COMMANDS] [RATE_SECONDS] [STOPS] (COMMANDS=0:
# no step 1; RATE_SECONDS=0: no steps 2 and 3; STOPS=0, no step 4; HANDLER_JAVA_OPTS: extra JVM options for the handler alone; HANDLER_WARMUP: commands
# sent first and reported apart, default 30,000)
#  1. 1,000 accounts are created through the handler; then COMMANDS (default 100,000) commands (a tenth creations,
#     deposits from cash, transfers between the accounts with their tokens, a tenth failing on a wrong token) are
#     produced as fast as `bankops replay --from-file` sends them while the handler runs: throughput is COMMANDS over
#     the time from the first command's timestamp to the last feedback's. HANDLER_WARMUP commands of the same mix go
#     first, measured the same way and reported apart: right after a start the JIT compiles beside the handler.
#  2. Commands at 1,000/s for RATE_SECONDS (default 60) from `bankops heartbeat --kind commands`: the handler's peak
#     RSS (VmHWM) with the launcher's JVM options for it.
#  3. Kafka's own ConsoleConsumer and ProducerPerformance at the same rate with the same JVM options: the floor.
#  4. SIGTERM to exit: the handler started STOPS times (default 5) and stopped 3 s after it declared itself ready, idle
#     and then at 1,000 commands/s; each time from the signal to the process's end, and the longest of each.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
n=${1:-100000}
seconds=${2:-60}
stops=${3:-5}
warm=${HANDLER_WARMUP:-30000}
p=bench-handler-$$
work=$(mktemp -d)
dir=$work/topology; mkdir -p "$dir"; cp "$root"/schemas/*.avsc "$dir/"
rec() { local out=""; for r in "$@"; do out+="${out:+, }{\"type\": \"nl.openweb.data.$r\", \"key\": \"$( [ "$r" = BalanceChanged ] && echo iban || echo id)\"}"; done; echo "$out"; }
cat > "$dir/topology.json" <<JSON
{"topics": {
  "$p-commands": {"partitions": 9, $replication, "records": [$(rec ConfirmAccountCreation ConfirmMoneyTransfer)]},
  "$p-commands.dlq": {"partitions": 1, $replication, "records": []},
  "$p-feedback": {"partitions": 9, $replication, "records": [$(rec AccountCreationConfirmed AccountCreationFailed MoneyTransferConfirmed MoneyTransferFailed)]},
  "$p-balance": {"partitions": 9, $replication, "records": [$(rec BalanceChanged)]}}}
JSON
./bankops apply --topology "$dir/topology.json" >/dev/null
# A database of its own, so the sandbox's bank (balancedb against balance_changed) stays consistent: balancedb's
# schema and its seeded account, copied with PostgreSQL's own tools.
eval "$(./bankops sandbox env --sandbox-dir "$sandbox")"
pg=$(echo "$DB_URL" | sed "s|^jdbc:postgresql://|postgresql://$DB_USER:$DB_PASSWORD@|")
db=$(echo "$p" | tr -- '-' '_')
psql -q "$pg" -c "CREATE DATABASE $db" >/dev/null
benchdb=${pg%/*}/$db
pg_dump -s "$pg" | psql -q "$benchdb" >/dev/null
psql -q "$pg" -c "COPY (SELECT * FROM balance WHERE balance_id = 0) TO STDOUT" | psql -q "$benchdb" -c "COPY balance FROM STDIN"
args=(--topic "$p-commands" --feedback-topic "$p-feedback" --balance-topic "$p-balance" --group "$p" --instance bench
      --db-url "${DB_URL%/*}/$db" -o json --status-every 1s)
warm_up ./bankops handler --help
handler=""
stop_handler() { [ -n "$handler" ] && kill -TERM "$handler" 2>/dev/null && wait "$handler" 2>/dev/null; handler=""; }
trap 'stop_handler; rm -rf "$work"; psql -q "$pg" -c "DROP DATABASE IF EXISTS $db" >/dev/null 2>&1 || true' EXIT
start_handler() { BANKOPS_JAVA_OPTS="${HANDLER_JAVA_OPTS:-}" ./bankops handler "${args[@]}" "$@" >"$work/handler.json" 2>"$work/handler.err" & handler=$!; }
# Waits until the handler has answered WANT commands in all, by its own status lines (once a second): asking Kafka
# with a tool started each second took up to half a core from the run it measures.
await_feedback() {
  local want=$1
  while [ "$(tail -n 1 "$work/handler.json" 2>/dev/null | python3 -c 'import json,sys; print(json.loads(sys.stdin.read() or "{}").get("commands", 0))' 2>/dev/null || echo 0)" -lt "$want" ]; do
    # A handler that exited never answers: say why instead of waiting for ever.
    kill -0 "$handler" 2>/dev/null || { echo "the handler exited: $(tail -n 3 "$work/handler.err")" >&2; exit 1; }
    sleep 0.5
  done
}

start_handler
python3 - "$work/accounts.jsonl" <<'PY'
import json, sys, uuid
with open(sys.argv[1], "w") as f:
    for _ in range(1000):
        i = str(uuid.uuid4())
        f.write(json.dumps({"record": "ConfirmAccountCreation", "key": i, "value": {"id": i, "a_type": "AUTO"}}) + "\n")
PY
./bankops replay --from-file "$work/accounts.jsonl" --to-topic "$p-commands" 2>/dev/null
await_feedback 1000
./bankops inspect --topic "$p-feedback" --record AccountCreationConfirmed -o json 2>/dev/null > "$work/created.jsonl"
python3 - "$work/created.jsonl" "$work/warm.jsonl" "$warm" "$work/load.jsonl" "$n" <<'PY'
import json, random, sys, uuid
accounts = [(v["iban"], v["token"]) for v in (json.loads(l)["value"] for l in open(sys.argv[1]))]
random.seed(1)
for path, count in ((sys.argv[2], sys.argv[3]), (sys.argv[4], sys.argv[5])):
  with open(path, "w") as f:
    for _ in range(int(count)):
          i = str(uuid.uuid4()); k = random.random()
          if k < 0.1:
              rec, value = "ConfirmAccountCreation", {"id": i, "a_type": "MANUAL"}
          else:
              (a, ta), (b, _) = random.sample(accounts, 2)
              frm, token = ("cash", "x") if k < 0.5 else (a, ta if k < 0.9 else "9" * 20)
              rec, value = "ConfirmMoneyTransfer", {"id": i, "token": token, "amount": random.randint(1, 5000), "from": frm, "to": b, "description": "bench"}
          f.write(json.dumps({"record": rec, "key": i, "value": value}) + "\n")
PY
# Sends FILE's N commands and waits until the handler answered ALL in all; prints the commands/s from the first
# command's timestamp to the last feedback's.
saturate() {
  local file=$1 count=$2 all=$3 label=$4 start_ms
  start_ms=$(date +%s%3N)
  ./bankops replay --from-file "$file" --to-topic "$p-commands" 2>"$work/replay.err"
  await_feedback "$all"
  ./bankops inspect --topic "$p-commands" --from "timestamp:$(date -u -d @$(( start_ms / 1000 - 1 )) +%Y-%m-%dT%H:%M:%SZ)" -o json 2>/dev/null \
    > "$work/commands.jsonl"
  ./bankops inspect --topic "$p-feedback" -o json 2>/dev/null > "$work/feedback.jsonl"
  python3 - "$work/commands.jsonl" "$work/feedback.jsonl" "$count" "$label" "$(grep -o 'in [0-9.]* s, [0-9]* records/s' "$work/replay.err" | head -1)" <<'PY'
import json, sys
from datetime import datetime
ts = lambda l: datetime.fromisoformat(json.loads(l)["timestamp"].replace("Z", "+00:00")).timestamp()
first = min(ts(l) for l in open(sys.argv[1]))
last = max(ts(l) for l in open(sys.argv[2]))
n = int(sys.argv[3])
print(f"{sys.argv[4]}: {n} commands from the first command to the last feedback in {last - first:.1f} s = {n / (last - first):.0f} commands/s "
      f"(sending alone: {sys.argv[5]})")
PY
}
if [ "$n" -gt 0 ]; then
# The first commands after a start run while the JIT compiles the handler's code (C2 took 64% of a core beside it):
# reported apart, as `latency` reports its warm-up, and the steady state measured after them.
[ "$warm" -gt 0 ] && saturate "$work/warm.jsonl" "$warm" $(( 1000 + warm )) "saturation right after the start (cold)"
measured_from=$(wc -l < "$work/handler.json")
saturate "$work/load.jsonl" "$n" $(( 1000 + warm + n )) "saturation (target >= 10000)"
hwm=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$handler/status")
echo "handler peak RSS ${hwm} MiB"
stop_handler
# Where a batch's time went at saturation: the handler's per-second status lines whose batches were large (the load).
python3 - "$work/handler.json" "$measured_from" <<'PY'
import json, sys
lines = open(sys.argv[1]).readlines()[int(sys.argv[2]):]
rows = [j["batch"] for j in map(json.loads, lines) if j.get("batch", {}).get("records", 0) >= 200]
n = sum(r["batches"] for r in rows)
if n:
    mean = lambda k: sum(r[k] * r["batches"] for r in rows) / n
    phases = ["databaseMs", "sendsMs", "prepareMs", "kafkaCommitMs", "commitPreparedMs"]
    print(f"saturation phases: {n} batches of {mean('records'):.0f} records on average; per batch " +
          ", ".join(f"{k[:-2]} {mean(k):.1f} ms" for k in phases) + f" (sum {sum(mean(k) for k in phases):.1f} ms; " +
          f"database reads {mean('databaseReadsMs'):.1f} ms, writes {mean('databaseWritesMs'):.1f} ms)")
PY
else
  stop_handler # COMMANDS=0: the steady phase only
fi

# 4. SIGTERM to exit, idle and under load (heartbeat's commands at 1,000/s meanwhile).
stop_times() {
  local label=$1 times="" t0 t1 i
  for i in $(seq "$stops"); do
    rm -f "$work/ready"
    start_handler --ready-file "$work/ready"
    while [ ! -e "$work/ready" ]; do kill -0 "$handler" 2>/dev/null || { echo "the handler exited: $(tail -n 3 "$work/handler.err")" >&2; exit 1; }; sleep 0.1; done
    sleep 3
    t0=$(date +%s%N); kill -TERM "$handler"; wait "$handler" || true; t1=$(date +%s%N); handler=""
    times+="${times:+ }$(( (t1 - t0) / 1000000 ))"
  done
  echo "SIGTERM to exit, $label (target <= 2000 ms): $times ms; longest $(echo "$times" | tr ' ' '\n' | sort -n | tail -1) ms"
}
if [ "$stops" -gt 0 ]; then
  stop_times idle
  ./bankops heartbeat --kind commands --commands-topic "$p-commands" --feedback-topic "$p-feedback" --rate 1000 --duration 10m >/dev/null 2>&1 &
  beat=$!
  stop_times "at 1000 commands/s"
  kill -INT "$beat" 2>/dev/null; wait "$beat" 2>/dev/null || true
fi

[ "$seconds" -gt 0 ] || exit 0
start_handler
sleep 5
./bankops heartbeat --kind commands --commands-topic "$p-commands" --feedback-topic "$p-feedback" --rate 1000 --duration "${seconds}s" -o json 2>/dev/null >"$work/load.json"
sleep 3
hwm=$(awk '/VmHWM/ {print int($2/1024)}' "/proc/$handler/status")
stop_handler
sent=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["records"])' "$work/load.json")
echo "steady: $sent commands at 1000/s for ${seconds} s; handler peak RSS ${hwm} MiB (reported, not a target: its floor follows); its last status: $(tail -1 "$work/handler.json")"

# 3. The floor: Kafka's own console consumer and producer-performance tool, each doing one half of the handler's Kafka
#    work at 1,000 records/s for RATE_SECONDS, with the launcher's JVM options for the handler (read from the launcher).
jvm=$(grep -o 'JAVA_OPTIONS+=(-XX:-UseParallelGC[^)]*' bankops | sed 's/^JAVA_OPTIONS+=(//')
peak() { awk '/VmHWM/ {print int($2/1024)}' "/proc/$1/status"; }
# shellcheck disable=SC2086
MALLOC_ARENA_MAX=2 java $jvm -cp "$kafka_cp" org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$bootstrap" \
  --consumer.config "$client_props" --topic "$p-balance" --group "$p-floor" >/dev/null 2>&1 &
consumer=$!
# shellcheck disable=SC2086
MALLOC_ARENA_MAX=2 java $jvm -cp "$kafka_cp" org.apache.kafka.tools.ProducerPerformance --topic "$p-balance" --num-records $(( seconds * 1000 )) \
  --record-size 100 --throughput 1000 --producer.config "$client_props" --producer-props "bootstrap.servers=$bootstrap" >"$work/perf.out" 2>&1 &
producer=$!
sleep $(( seconds - 2 ))
floor_c=$(peak $consumer); floor_p=$(peak $producer)
wait $producer || true; kill $consumer 2>/dev/null; wait $consumer 2>/dev/null || true
echo "floor: Kafka's ConsoleConsumer alone ${floor_c} MiB and ProducerPerformance alone ${floor_p} MiB peak RSS at 1000/s with the same JVM options; the handler (consumer, transactional producer, PostgreSQL, registry, Avro) ${hwm} MiB"
