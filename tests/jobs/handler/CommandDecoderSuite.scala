package bankops.jobs.handler

import cats.effect.IO
import cats.syntax.all._

import java.util.UUID
import scala.concurrent.duration._
import scala.util.Random

import bankops.services.avro.WireFormat
import bankops.services.bank.{Atype, ConfirmAccountCreation, ConfirmMoneyTransfer, Heartbeat}
import bankops.services.registry.{RegistryClient, SchemaResolver}
import bankops.support.{FakeRegistry, FuzzFrames, IOSuite, Seeded, TopologyFiles}

/** The handler's decoder of `commands` values against a registry in memory: the two bank commands come back as they
  * were written; everything else is a dead letter with its reason, except an unreachable registry, which is an error (the batch is retried).
  */
class CommandDecoderSuite extends IOSuite with Seeded {
  private def schema(name: String): String = os.read(TopologyFiles.schemas / s"$name.avsc")
  private val Subject = "commands-nl.openweb.data."

  private val Pieces = Vector("a", "Z", "0", " ", "\"", "ü", "€", "中", "\ud83d\ude00")
  private def randomText(random: Random): String = List.fill(random.nextInt(30))(Pieces(random.nextInt(Pieces.size))).mkString

  private def randomCommand(random: Random): Either[ConfirmAccountCreation, ConfirmMoneyTransfer] =
    if (random.nextBoolean()) Left(ConfirmAccountCreation(UUID.randomUUID(), if (random.nextBoolean()) Atype.Auto else Atype.Manual))
    else Right(ConfirmMoneyTransfer(UUID.randomUUID(), randomText(random), random.nextLong(), randomText(random), randomText(random),
        randomText(random)))

  test("every command written in the wire format decodes to the same command, whatever its field values") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val (cac, cmt) = (registry.register(Subject + "ConfirmAccountCreation", schema("ConfirmAccountCreation")),
        registry.register(Subject + "ConfirmMoneyTransfer", schema("ConfirmMoneyTransfer")))
      val commands = List.fill(500)(randomCommand(random))
      val values =
        commands.map(_.fold(c => WireFormat.Writer[ConfirmAccountCreation](cac).apply(c), t => WireFormat.Writer[ConfirmMoneyTransfer](cmt).apply(t))
            .fold(e => fail(e.message), identity))
      val decoder = new CommandDecoder(new SchemaResolver(client))
      decoder.resolve(values).map(_ => assertEquals(values.map(decoder.decode), commands.map(Right(_))))
    }
  }

  test("a value not in the wire format is a dead letter saying why: no value, too short, no magic byte") {
    FakeRegistry.withClient.use { case (_, client) =>
      val decoder = new CommandDecoder(new SchemaResolver(client))
      val values = List(null, Array[Byte](0, 0, 1), Array[Byte](1, 0, 0, 0, 1, 2))
      decoder.resolve(values.filter(_ != null)).map { _ =>
        assertEquals(values.map(decoder.decode),
          List(Left("no value (tombstone)"), Left("3 bytes, shorter than the 5-byte header"),
            Left("first byte is 0x01, not the magic byte 0x00")))
      }
    }
  }

  test("a schema id the registry does not know: a dead letter, asked for again in each batch; once registered, the record decodes") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val transfer = ConfirmMoneyTransfer(UUID.randomUUID(), "t", 5, "cash", "NL66OPEN0000000000", "d")
      val value = WireFormat.Writer[ConfirmMoneyTransfer](4711).apply(transfer).fold(e => fail(e.message), identity)
      val decoder = new CommandDecoder(new SchemaResolver(client))
      val asked = IO(registry.requests.count(_ == "GET /schemas/ids/4711"))
      for {
        _ <- decoder.resolve(List(value, value))
        first <- IO(decoder.decode(value))
        _ <- decoder.resolve(List(value))
        twice <- asked
        _ <- IO(registry.put(4711, schema("ConfirmMoneyTransfer")))
        _ <- decoder.resolve(List(value))
        mended <- IO(decoder.decode(value))
        _ <- decoder.resolve(List(value))
        known <- asked
      } yield {
        assertEquals(first, Left("schema id 4711 is unknown to the registry"))
        assertEquals(twice, 2, "once per batch, not once per record")
        assertEquals(mended, Right(Right(transfer)))
        assertEquals(known, 3, "a known id is not asked for again")
      }
    }
  }

  test("another record type is a dead letter naming it") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val id = registry.register("commands-nl.openweb.data.Heartbeat", schema("Heartbeat"))
      val value = Heartbeat.writer(id)(Heartbeat(7)).fold(e => fail(e.message), identity)
      val decoder = new CommandDecoder(new SchemaResolver(client))
      decoder.resolve(List(value)).map(_ => assertEquals(decoder.decode(value), Left("record type nl.openweb.data.Heartbeat is not a bank command")))
    }
  }

  test("a payload that does not parse under its writer schema is a dead letter naming the schema id, cut anywhere or with bytes over") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val id = registry.register(Subject + "ConfirmMoneyTransfer", schema("ConfirmMoneyTransfer"))
      val value =
        WireFormat.Writer[ConfirmMoneyTransfer](id).apply(ConfirmMoneyTransfer(UUID.randomUUID(), "token", 1234567, "cash", "NL66OPEN0000000000",
            "a description")).fold(e => fail(e.message), identity)
      val broken = (WireFormat.HeaderSize until value.length).map(value.take(_)).toList :+ (value ++ Array[Byte](1, 2))
      val decoder = new CommandDecoder(new SchemaResolver(client))
      decoder.resolve(broken).map(_ =>
        broken.foreach { v =>
          val r = decoder.decode(v)
          assert(r.left.exists(_.startsWith(s"payload does not parse under writer schema $id: ")), s"${v.length} of ${value.length} bytes: $r")
        })
    }
  }

  test("26 bytes whose token declares 10^9 bytes are a dead letter, refused before Avro allocates anything") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val id = registry.register(Subject + "ConfirmMoneyTransfer", schema("ConfirmMoneyTransfer"))
      val value = WireFormat.frame(id, Array.fill[Byte](16)(7) ++ Array(0x80, 0xa8, 0xd6, 0xb9, 0x07).map(_.toByte))
      val decoder = new CommandDecoder(new SchemaResolver(client))
      decoder.resolve(List(value)).map { _ =>
        assertEquals(value.length, 26)
        assertEquals(decoder.decode(value),
          Left(s"payload does not parse under writer schema $id: field token declares 1000000000 bytes, but only 0 bytes remain"))
      }
    }
  }

  test("a JSON schema's id, or Avro text that does not parse, is a dead letter saying so, asked for once, never retried") {
    FakeRegistry.withClient.use { case (registry, client) =>
      registry.put(31, """{"type": "object", "properties": {"id": {"type": "string"}}}""", Some("JSON"))
      registry.put(32, """{"type": "record", "fields": []}""")
      val (json, broken) = (WireFormat.frame(31, Array[Byte](2, 4)), WireFormat.frame(32, Array[Byte](2, 4)))
      val decoder = new CommandDecoder(new SchemaResolver(client))
      for {
        _ <- decoder.resolve(List(json, broken))
        _ <- decoder.resolve(List(json, broken))
        asked <- IO(registry.requests.filter(_.startsWith("GET /schemas/ids/")))
      } yield {
        assertEquals(decoder.decode(json), Left("schema id 31 is no Avro schema the handler can read (a JSON schema)"))
        assert(decoder.decode(broken).left.exists(_.startsWith("schema id 32 is no Avro schema the handler can read (")), decoder.decode(broken))
        assertEquals(asked.sorted, List("GET /schemas/ids/31", "GET /schemas/ids/32"))
      }
    }
  }

  test("fuzz: mutated frames under every kind of schema id end as a command or a dead letter, each read within bounds") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val (cac, cmt) = (registry.register(Subject + "ConfirmAccountCreation", schema("ConfirmAccountCreation")),
        registry.register(Subject + "ConfirmMoneyTransfer", schema("ConfirmMoneyTransfer")))
      val heartbeat = registry.register("commands-nl.openweb.data.Heartbeat", schema("Heartbeat"))
      registry.put(900, """{"type": "object"}""", Some("JSON"))
      registry.put(901, "not a schema")
      val ids = Vector(cac, cmt, heartbeat, 900, 901, 902)
      val valid = List.fill(200)(randomCommand(random)).map(_.fold(c => WireFormat.Writer[ConfirmAccountCreation](cac).apply(c),
          t => WireFormat.Writer[ConfirmMoneyTransfer](cmt).apply(t)).fold(e => fail(e.message), identity)).toVector
      val mutated = List.fill(20000)(FuzzFrames.mutate(valid(random.nextInt(valid.size)), random, ids))
      val decoder = new CommandDecoder(new SchemaResolver(client))
      val threads = java.lang.management.ManagementFactory.getThreadMXBean.asInstanceOf[com.sun.management.ThreadMXBean]
      decoder.resolve(valid ++ mutated).map { _ =>
        valid.foreach(decoder.decode) // each reader made once, outside what is measured
        val outcomes = mutated.map { v =>
          val before = threads.getThreadAllocatedBytes(Thread.currentThread.getId)
          val outcome = decoder.decode(v)
          val used = threads.getThreadAllocatedBytes(Thread.currentThread.getId) - before
          assert(used <= 64L * v.length + 256 * 1024, s"${v.length} bytes took $used bytes to decode: $outcome")
          outcome
        }
        val (dead, commands) = (outcomes.count(_.isLeft), outcomes.count(_.isRight))
        assert(dead > 1000 && commands > 100, s"$dead dead letters, $commands commands: the mutations reach too little")
      }
    }
  }

  test("an unreachable registry is an error of the batch, retried (not a failure that ends the handler), never a dead letter") {
    RegistryClient.resource("http://127.0.0.1:1", Map.empty, None, None, 2.seconds).use { client =>
      val value = WireFormat.frame(9, Array[Byte](2, 4))
      new CommandDecoder(new SchemaResolver(client)).resolve(List(value)).attempt.map {
        case Left(e: RegistryUnreachable) =>
          assert(e.getMessage.contains("schema registry at http://127.0.0.1:1"), e.getMessage)
          assert(!HandlerLoop.fatal(e))
        case other => fail(s"expected the registry to be unavailable, got $other")
      }
    }
  }

  test("batches resolved at the same time all decode") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val id = registry.register(Subject + "ConfirmAccountCreation", schema("ConfirmAccountCreation"))
      val creations = List.fill(50)(ConfirmAccountCreation(UUID.randomUUID(), Atype.Auto))
      val values = creations.map(c => WireFormat.Writer[ConfirmAccountCreation](id).apply(c).fold(e => fail(e.message), identity))
      val decoder = new CommandDecoder(new SchemaResolver(client))
      values.grouped(5).toList.parTraverse(decoder.resolve).map { _ =>
        assertEquals(values.map(decoder.decode), creations.map(c => Right(Left(c))))
      }
    }
  }
}
