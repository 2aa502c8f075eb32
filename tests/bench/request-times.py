#!/usr/bin/env python3
"""Where a broker's requests spend their time, from Kafka's own request log (kafka.request.logger at DEBUG: one JSON
line per completed request, with the request and the times Kafka's RequestChannel measured).

    request-times.py SINCE UNTIL [--principal User:NAME] LOG...

SINCE and UNTIL are the log's own timestamps (e.g. "2026-11-26 02:28:16,821"): only requests completed between them
count; --principal keeps one client's requests (e.g. User:handler).

Prints one row per kind of request over all the given brokers' logs: how many, the total time's p50 and p99, and the
mean of each part Kafka splits it into: queue (waiting for a request handler thread), local (the leader's own work,
e.g. appending to its log), remote (waiting in a purgatory: a Produce with acks=all for the followers, a Fetch for
data or its max wait, an EndTxn... for the transaction log's replication), and response (queued and sent back). Fetches
are split by who asks (a follower replicating, a read_committed or plain consumer) and by whether they returned records
or waited out their maxWaitMs empty, since a long poll that waits is not a cost but a fetch that returns late is.
"""
import json, sys
from collections import defaultdict

since, until, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
principal = None
if logs[:1] == ["--principal"]:
    principal, logs = logs[1], logs[2:]
rows = defaultdict(list)
for path in logs:
    with open(path, errors="replace") as f:
        for line in f:
            i = line.find("Completed request:")
            if i < 0 or not since <= line[1:24] <= until:
                continue
            try:
                r = json.loads(line[i + len("Completed request:"):line.rindex("} (kafka.request.logger)") + 1])
            except ValueError:
                continue
            # The controllers' own traffic (KRaft's metadata fetches, as the same broker principal) is not the data's.
            if (principal and r.get("principal") != principal) or r.get("listener") == "CONTROLLER":
                continue
            api = r["requestHeader"]["requestApiKeyName"]
            req, resp = r.get("request"), r.get("response")
            req, resp = (req if isinstance(req, dict) else {}), (resp if isinstance(resp, dict) else {})
            if api == "FETCH":
                who = "follower" if "replicaState" in req or req.get("replicaId", -1) >= 0 else (
                    "read_committed" if req.get("isolationLevel") == 1 else "consumer")
                data = any(p.get("recordsSizeInBytes", p.get("records", 0)) for t in resp.get("responses", []) for p in t.get("partitions", []))
                api = f"FETCH {who} {'data' if data else 'empty'}"
            elif api == "PRODUCE":
                api = f"PRODUCE acks={req.get('acks')}{' txn' if req.get('transactionalId') else ''}"
            rows[api].append(r)


# Over 100 or fewer requests a p99 is their maximum.
def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else float("nan")


def mean(values):
    return sum(values) / len(values) if values else float("nan")


print(f"{'request':<34} {'count':>6}  {'total p50':>9} {'p99':>7}   mean ms: {'queue':>6} {'local':>6} {'remote':>7} {'response':>8}")
for api in sorted(rows, key=lambda a: -sum(r["totalTimeMs"] for r in rows[a])):
    rs = rows[api]
    total = [r["totalTimeMs"] for r in rs]
    parts = [mean([r.get(k, 0) for r in rs]) for k in ("requestQueueTimeMs", "localTimeMs", "remoteTimeMs")]
    response = mean([r.get("responseQueueTimeMs", 0) + r.get("sendTimeMs", 0) for r in rs])
    print(f"{api:<34} {len(rs):6d}  {pct(total, .5):9.1f} {pct(total, .99):7.1f}   {'':8} {parts[0]:6.1f} {parts[1]:6.1f} {parts[2]:7.1f} {response:8.1f}")
