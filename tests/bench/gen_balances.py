#!/usr/bin/env python3
"""Scale data for `balances validate`: N accounts with K BalanceChanged events each on a topic
(Confluent wire format, hand-encoded Avro, keyed by iban with Kafka's Java partitioner), and the
matching balance rows as CSV (iban,token,amount,type,lmt) for COPY.

argv: bootstrap ca.pem registry-url topic accounts events-per-account out.csv
"""
import json
import struct
import sys
import urllib.request

from confluent_kafka import Producer


def zigzag(n):
    n = (n << 1) ^ (n >> 63)
    out = bytearray()
    while n & ~0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def avro_string(s):
    b = s.encode()
    return zigzag(len(b)) + b


def iban(n):
    digits = "%010d" % n
    check = 98 - int("24251423" + digits + "232100") % 97
    return "NL%02dOPEN%s" % (check, digits)


def main():
    bootstrap, ca, registry, topic, accounts, per, out = sys.argv[1:8]
    accounts, per = int(accounts), int(per)
    subject = f"{topic}-nl.openweb.data.BalanceChanged"
    with urllib.request.urlopen(f"{registry}/subjects/{subject}/versions/latest") as r:
        schema_id = json.load(r)["id"]
    header = b"\x00" + struct.pack(">I", schema_id)
    producer = Producer({"bootstrap.servers": bootstrap, "security.protocol": "SSL", "ssl.ca.location": ca,
                         "ssl.certificate.location": ca.replace("ca.pem", "operator.pem"), "ssl.key.location": ca.replace("ca.pem", "operator.key"),
                         "partitioner": "murmur2_random", "linger.ms": 20, "batch.size": 1000000,
                         "queue.buffering.max.messages": 2000000, "acks": "all", "enable.idempotence": True})
    cash, desc = avro_string("cash"), avro_string("deposit")
    with open(out, "w") as csv:
        for a in range(1, accounts + 1):
            account = iban(a)
            key = account.encode()
            head = avro_string(account)
            balance = 0
            for e in range(per):
                change = 100 * (e + 1)
                balance += change
                value = header + head + zigzag(balance) + zigzag(change) + cash + desc
                while True:
                    try:
                        producer.produce(topic, value, key)
                        break
                    except BufferError:
                        producer.poll(0.05)
            csv.write(f"{account},00000000000000000000,{balance},AUTO,-50000\n")
            if a % 10000 == 0:
                producer.poll(0)
    producer.flush(120)


if __name__ == "__main__":
    main()
