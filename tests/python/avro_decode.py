#!/usr/bin/env python3
"""Independent check: decode Confluent-framed Avro values with confluent-kafka's AvroDeserializer.

Reads hex-encoded values, one per line, on stdin; prints each decoded record as a JSON line
(bytes and fixed as UUID text when 16 bytes long, else hex). Exit 1 on the first value it cannot decode.
"""
import json
import sys
import uuid

from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext


def plain(v):
    if isinstance(v, bytes):
        return str(uuid.UUID(bytes=v)) if len(v) == 16 else v.hex()
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def main():
    registry, topic = sys.argv[1], sys.argv[2]
    deserializer = AvroDeserializer(SchemaRegistryClient({"url": registry}))
    ctx = SerializationContext(topic, MessageField.VALUE)
    for line in sys.stdin:
        line = line.strip()
        if line:
            print(json.dumps(plain(deserializer(bytes.fromhex(line), ctx)), sort_keys=True))


if __name__ == "__main__":
    main()
