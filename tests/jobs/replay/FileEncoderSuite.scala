package bankops.jobs.replay

import cats.effect.IO
import cats.syntax.all._
import org.apache.avro.Schema
import org.apache.avro.generic.{GenericDatumReader, GenericRecord}
import org.apache.avro.io.DecoderFactory

import java.util.Base64

import bankops.services.avro.WireFormat
import bankops.services.contracts.{SchemaFile, SubjectNameStrategy}
import bankops.services.records.RecordLine
import bankops.services.registry.RegistryClient
import bankops.support.{FakeRegistry, IOSuite, Seeded, TopologyFiles}

/** `replay --from-file`'s encoding of a file's lines against a target registry in memory: a line's value in its
  * record's schema as the target holds it (or as `--schema-dir` gives it), `--exact`'s raw bytes, and every line that
  * cannot be sent refused with its reason.
  */
class FileEncoderSuite extends IOSuite with Seeded {
  private def text(name: String): String = os.read(TopologyFiles.schemas / s"$name.avsc")
  private def file(name: String): SchemaFile = {
    val schema = new Schema.Parser().parse(text(name))
    SchemaFile(TopologyFiles.schemas / s"$name.avsc", schema, Nil, text(name))
  }
  private val known = List("Heartbeat", "ConfirmMoneyTransfer").map(file).map(f => f.fullName -> f).toMap

  private def line(json: String): RecordLine = RecordLine.parse(json, 1).fold(e => fail(e), identity)
  private def b64(bytes: Array[Byte]): String = Base64.getEncoder.encodeToString(bytes)

  private def encoder(client: RegistryClient, schemaDir: Option[Map[String, SchemaFile]] = None, exact: Boolean = false) =
    new FileEncoder(client, SubjectNameStrategy.TopicRecord, "beats", schemaDir, known, exact)

  /** The datum a framed value holds, read with the schema registered under its id. */
  private def read(registry: FakeRegistry, value: Array[Byte]): (Int, GenericRecord) = {
    val id = WireFormat.schemaIdOf(value).fold(e => fail(e.reason), identity)
    val schema = new Schema.Parser().parse(registry.schema(id))
    val decoder = DecoderFactory.get().binaryDecoder(value, WireFormat.HeaderSize, value.length - WireFormat.HeaderSize, null)
    id -> new GenericDatumReader[GenericRecord](schema).read(null, decoder)
  }

  test("a line's value is encoded in the subject's latest schema on the target, under its id; simple and full record names alike") {
    FakeRegistry.withClient.use { case (registry, client) =>
      registry.register("beats-nl.openweb.data.Heartbeat", text("Heartbeat"))
      val latest = registry.register("beats-nl.openweb.data.Heartbeat",
        """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[{"name":"beat","type":"long"},{"name":"node","type":"string","default":"n"}]}""")
      val beats = List.fill(100)(random.nextLong())
      val enc = encoder(client)
      beats.zipWithIndex.traverse { case (b, i) =>
        enc.encode(line(s"""{"record": "${if (i % 2 == 0) "Heartbeat" else "nl.openweb.data.Heartbeat"}", "value": {"beat": $b, "node": "x$i"}}"""))
      }.map { values =>
        values.zip(beats).zipWithIndex.foreach { case ((v, b), i) =>
          val (id, datum) = read(registry, v.fold(e => fail(e), identity))
          assertEquals(id, latest)
          assertEquals(datum.get("beat"), Long.box(b): AnyRef)
          assertEquals(datum.get("node").toString, s"x$i")
        }
        assertEquals(registry.requests.count(_.endsWith("/versions/latest")), 1, "the subject is asked for once, not once per line")
      }
    }
  }

  test("a subject missing on the target, or a value its schema cannot hold, refuses the line with the reason") {
    FakeRegistry.withClient.use { case (registry, client) =>
      registry.register("beats-nl.openweb.data.Heartbeat", text("Heartbeat"))
      val enc = encoder(client)
      List(
        """{"record": "ConfirmMoneyTransfer", "value": {"id": "x"}}""",
        """{"record": "Heartbeat", "value": {"beat": "soon"}}""",
        """{"record": "Heartbeat", "value": {}}"""
      ).traverse(l => enc.encode(line(l))).map {
        case List(missing, wrongType, noField) =>
          assertEquals(missing, Left("subject beats-nl.openweb.data.ConfirmMoneyTransfer does not exist on the target registry"))
          assert(wrongType.left.exists(_.startsWith("value.")) && wrongType.left.exists(_.contains("beat")), wrongType.toString)
          assert(noField.left.exists(_.startsWith("value.")) && noField.left.exists(_.contains("beat")), noField.toString)
        case other => fail(other.toString)
      }
    }
  }

  test("--schema-dir: the record's .avsc, which must be registered under the target subject; its id when it is") {
    FakeRegistry.withClient.use { case (registry, client) =>
      val dir = Some(known.filter(_._1 == "nl.openweb.data.Heartbeat"))
      val beat = line("""{"record": "Heartbeat", "value": {"beat": 12}}""")
      val transfer = line("""{"record": "nl.openweb.data.ConfirmMoneyTransfer", "value": {}}""")
      for {
        unregistered <- encoder(client, dir).encode(beat)
        id <- IO(registry.register("beats-nl.openweb.data.Heartbeat", text("Heartbeat")))
        registered <- encoder(client, dir).encode(beat)
        noFile <- encoder(client, dir).encode(transfer)
      } yield {
        assertEquals(unregistered,
          Left("nl.openweb.data.Heartbeat's .avsc is not registered under beats-nl.openweb.data.Heartbeat (bankops schemas register)"))
        assertEquals(registered.map(read(registry, _)._1), Right(id))
        assertEquals(noFile, Left("no .avsc for nl.openweb.data.ConfirmMoneyTransfer in --schema-dir"))
      }
    }
  }

  test("--exact sends the raw bytes as they are if they are framed, or if the line says the original was undecodable; refuses the rest") {
    FakeRegistry.withClient.use { case (_, client) =>
      val enc = encoder(client, exact = true)
      (1 to 200).toList.traverse { _ =>
        val payload = Array.fill(random.nextInt(20))(random.nextInt(256).toByte)
        val framed = WireFormat.frame(random.nextInt(1000), payload)
        val unframed = Array[Byte]((1 + random.nextInt(100)).toByte) ++ payload
        (enc.encode(line(s"""{"raw": "${b64(framed)}", "record": "Heartbeat", "value": {"beat": 1}}""")),
          enc.encode(line(s"""{"raw": "${b64(unframed)}", "error": "first byte is not the magic byte"}""")),
          enc.encode(line(s"""{"raw": "${b64(unframed)}"}""")),
          enc.encode(line("""{"record": "Heartbeat", "value": {"beat": 1}}"""))).mapN { (a, b, c, d) =>
          assertEquals(a.map(_.toList), Right(framed.toList))
          assertEquals(b.map(_.toList), Right(unframed.toList))
          assert(c.left.exists(_.startsWith("raw: not a Confluent-framed Avro value (")), c.toString)
          assertEquals(d, Left("--exact needs the raw value bytes (raw), which this line lacks"))
        }
      }
    }
  }

  test("without --exact: a line with raw bytes and no record sends them; a line without either says what it lacks") {
    FakeRegistry.withClient.use { case (_, client) =>
      val enc = encoder(client)
      val raw = Array[Byte](0, 0, 0, 0, 3, 7)
      List(s"""{"raw": "${b64(raw)}"}""", """{"key": "k"}""", """{"record": "Heartbeat"}""").traverse(l => enc.encode(line(l))).map { r =>
        assertEquals(r.map(_.map(_.toList)), List(Right(raw.toList), Left("no record (the Avro record name of value)"), Left("no value")))
      }
    }
  }
}
