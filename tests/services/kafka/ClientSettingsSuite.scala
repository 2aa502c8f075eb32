package bankops.services.kafka

import scala.concurrent.duration._

import bankops.services.config.{KafkaSettings, Source, Sourced}

/** What a command-config file may change in the clients bankops makes: tuning, yes; what a read or a write means, no. */
class ClientSettingsSuite extends munit.FunSuite {
  private def kafka(file: (String, String)*) = KafkaSettings(Sourced("h:1", Source.Default), None, file.toMap)

  test("a reader's fetch sizes are the file's when it sets them, bankops' defaults when it does not") {
    val mine = KafkaClients.consumerSettings(kafka("max.partition.fetch.bytes" -> "1048576", "fetch.max.bytes" -> "4194304",
        "max.poll.records" -> "500"), 30.seconds).properties
    assertEquals(List("max.partition.fetch.bytes", "fetch.max.bytes", "max.poll.records").map(mine.get),
      List(Some("1048576"), Some("4194304"), Some("500")))
    val defaults = KafkaClients.consumerSettings(kafka(), 30.seconds).properties
    assertEquals(List("max.partition.fetch.bytes", "max.poll.records", "fetch.min.bytes", "fetch.max.wait.ms").map(defaults.get),
      List(Some("4194304"), Some("2000"), Some("65536"), Some("100")))
  }

  test("what a read means and how long a fetch waits are not the file's: read_committed, no commits, no reset, 100 ms") {
    val props = KafkaClients.consumerSettings(kafka("isolation.level" -> "read_uncommitted", "enable.auto.commit" -> "true",
        "auto.offset.reset" -> "earliest", "allow.auto.create.topics" -> "true", "fetch.min.bytes" -> "10000000",
        "fetch.max.wait.ms" -> "600000"), 30.seconds).properties
    assertEquals(List("isolation.level", "enable.auto.commit", "auto.offset.reset", "allow.auto.create.topics", "fetch.min.bytes",
        "fetch.max.wait.ms").map(props.get),
      List(Some("read_committed"), Some("false"), Some("none"), Some("false"), Some("65536"), Some("100")))
  }

  test("a writer's batching is the file's when it sets it; acks=all and idempotence whatever it says") {
    val props = KafkaClients.producerSettings(kafka("linger.ms" -> "50", "batch.size" -> "16384", "buffer.memory" -> "8388608",
        "acks" -> "1", "enable.idempotence" -> "false"), 30.seconds).properties
    assertEquals(List("linger.ms", "batch.size", "buffer.memory").map(props.get), List(Some("50"), Some("16384"), Some("8388608")))
    assertEquals(List("acks", "enable.idempotence").map(props.get), List(Some("all"), Some("true")))
  }
}
