#!/usr/bin/env python3
"""Independent producer: writes records with confluent-kafka's AvroSerializer under
TopicRecordNameStrategy (schemas must already be registered), or raw bytes.

argv: bootstrap ca.pem registry-url schemas-dir
stdin: JSON lines {"topic", "key", "record": "<simple name>", "value": {...}, "headers": {...}, "timestamp": ms}
       or {"topic", "key", "rawHex": "..."} for a value that is not Avro.
UUID fields (fixed 16) are given as UUID text. Prints nothing; exit 1 on any delivery error.
PRODUCE_COMPRESSION in the environment compresses (see compression()).
"""
import json
import os
import sys
import uuid

from confluent_kafka import Producer
from confluent_kafka.schema_registry import SchemaRegistryClient, topic_record_subject_name_strategy
from confluent_kafka.schema_registry.avro import AvroSerializer
from confluent_kafka.serialization import MessageField, SerializationContext


def uuid_fields(schema):
    """Names of top-level fields whose type is a 16-byte fixed (the bank's Uuid)."""
    names = []
    for f in schema["fields"]:
        t = f["type"]
        if isinstance(t, dict) and t.get("type") == "fixed" and t.get("size") == 16:
            names.append(f["name"])
    return names


def client_certificate():
    """The client's certificate and key (the brokers require one), as `bankops sandbox env` exports them."""
    cert, key = os.environ.get("KAFKA_SSL_CERTIFICATE_LOCATION"), os.environ.get("KAFKA_SSL_KEY_LOCATION")
    return {"ssl.certificate.location": cert, "ssl.key.location": key} if cert and key else {}


def compression():
    """PRODUCE_COMPRESSION (e.g. zstd): compressed batches, and records up to 10 MB before compression (a hostile client's
    large but compressible record, which fits a topic's limit once compressed)."""
    kind = os.environ.get("PRODUCE_COMPRESSION")
    return {"compression.type": kind, "message.max.bytes": 10_000_000} if kind else {}


def main():
    bootstrap, ca, registry, schemas = sys.argv[1:5]
    client = SchemaRegistryClient({"url": registry})
    producer = Producer({"bootstrap.servers": bootstrap, "security.protocol": "SSL", "ssl.ca.location": ca, **client_certificate(),
                         "enable.idempotence": True, "acks": "all", **compression()})
    serializers = {}
    errors = []
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        topic = msg["topic"]
        if "rawHex" in msg:
            value = bytes.fromhex(msg["rawHex"])
        else:
            name = msg["record"]
            if name not in serializers:
                text = open(f"{schemas}/{name}.avsc").read()
                serializers[name] = (AvroSerializer(client, text, conf={
                    "auto.register.schemas": False, "normalize.schemas": True, "subject.name.strategy": topic_record_subject_name_strategy}),
                    uuid_fields(json.loads(text)))
            ser, uuids = serializers[name]
            v = dict(msg["value"])
            for f in uuids:
                v[f] = uuid.UUID(v[f]).bytes
            value = ser(v, SerializationContext(topic, MessageField.VALUE))
        headers = [(k, v.encode()) for k, v in msg.get("headers", {}).items()]
        extra = {"timestamp": msg["timestamp"]} if "timestamp" in msg else {}
        producer.produce(topic, key=msg.get("key", "").encode() if msg.get("key") is not None else None, value=value,
                         headers=headers, **extra, on_delivery=lambda err, m: errors.append(err) if err else None)
    left = producer.flush(30)
    if left:
        errors.append(f"{left} records not delivered within 30 s")
    if errors:
        print(errors, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
