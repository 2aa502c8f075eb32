#!/usr/bin/env python3
"""Independent reader: every record of a topic, from the beginning to the end offsets at start,
decoded with confluent-kafka's AvroDeserializer; one JSON line per record (UUIDs as text), with its headers
(UTF-8 text), the schema id in its frame and the full name of the record that id names (null for a tombstone).

argv: bootstrap ca.pem registry-url topic
"""
import json
import os
import sys

from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

from avro_decode import plain


def client_certificate():
    """The client's certificate and key (the brokers require one), as `bankops sandbox env` exports them."""
    cert, key = os.environ.get("KAFKA_SSL_CERTIFICATE_LOCATION"), os.environ.get("KAFKA_SSL_KEY_LOCATION")
    return {"ssl.certificate.location": cert, "ssl.key.location": key} if cert and key else {}


def main():
    bootstrap, ca, registry, topic = sys.argv[1:5]
    client = SchemaRegistryClient({"url": registry})
    deserializer = AvroDeserializer(client)
    consumer = Consumer({"bootstrap.servers": bootstrap, "security.protocol": "SSL", "ssl.ca.location": ca, **client_certificate(),
                         "group.id": "bankops-test-reader", "enable.auto.commit": False})
    partitions = consumer.list_topics(topic, timeout=30).topics[topic].partitions
    ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=30)[1] for p in partitions}
    pending = {p for p, end in ends.items() if end > 0}
    consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
    ctx = SerializationContext(topic, MessageField.VALUE)
    while pending:
        msg = consumer.poll(10)
        if msg is None:
            sys.exit("timed out waiting for records")
        if msg.error():
            sys.exit(str(msg.error()))
        raw = msg.value()
        value = deserializer(raw, ctx) if raw is not None else None
        schema_id = int.from_bytes(raw[1:5], "big") if raw is not None else None
        record = None
        if schema_id is not None:
            parsed = json.loads(client.get_schema(schema_id).schema_str)
            record = parsed["name"] if "." in parsed["name"] else parsed.get("namespace", "") + "." + parsed["name"]
        headers = [[k, v.decode() if v is not None else None] for k, v in (msg.headers() or [])]
        print(json.dumps({"partition": msg.partition(), "offset": msg.offset(),
                          "key": msg.key().decode() if msg.key() is not None else None, "value": plain(value),
                          "headers": headers, "schemaId": schema_id, "record": record}, sort_keys=True))
        if msg.offset() + 1 >= ends[msg.partition()]:
            pending.discard(msg.partition())
    consumer.close()


if __name__ == "__main__":
    main()
