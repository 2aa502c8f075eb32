package bankops.jobs.replay

import bankops.services.avro.WireFormat
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.registry.{RegistryError, SchemaResolver}
import bankops.support.{FakeRegistry, IOSuite, Seeded, TopologyFiles}

/** Replay's schema id translation between two registries in memory: only the frame's id changes, to the id the
  * target has (or gives) the same schema under the target subject.
  */
class IdTranslatorSuite extends IOSuite with Seeded {
  private def schema(name: String): String = os.read(TopologyFiles.schemas / s"$name.avsc")

  private val twoRegistries = for { source <- FakeRegistry.withClient; target <- FakeRegistry.withClient } yield (source, target)

  test("the frame's id becomes the target's, every payload byte stays; unframed values pass unchanged") {
    twoRegistries.use { case ((source, sourceClient), (target, targetClient)) =>
      source.put(310, schema("Heartbeat"))
      source.put(452, schema("ConfirmMoneyTransfer"))
      val translator = new IdTranslator(new SchemaResolver(sourceClient), targetClient, SubjectNameStrategy.TopicRecord, "beats")
      val values = List.fill(300) {
        val payload = Array.fill(random.nextInt(40))(random.nextInt(256).toByte)
        random.nextInt(3) match {
          case 0 => WireFormat.frame(310, payload)
          case 1 => WireFormat.frame(452, payload)
          case _ => Array[Byte](1) ++ payload // not the wire format: as it was
        }
      }
      val copies = values.map(_.clone())
      translator.prepare(values).map { _ =>
        val ids = Map(310 -> target.versions("beats-nl.openweb.data.Heartbeat"), 452 -> target.versions("beats-nl.openweb.data.ConfirmMoneyTransfer"))
        assertEquals(ids.values.map(_.size).toList, List(1, 1), "each schema registered once under the target subject")
        values.foreach { v =>
          val out = translator(v)
          WireFormat.schemaIdOf(v) match {
            case Right(id) =>
              assertEquals(WireFormat.schemaIdOf(out), Right(ids(id).head))
              assertEquals(out.drop(WireFormat.HeaderSize).toList, v.drop(WireFormat.HeaderSize).toList)
            case Left(_) => assertEquals(out.toList, v.toList)
          }
        }
        assertEquals(values.map(_.toList), copies.map(_.toList), "the values given are not changed in place")
      }
    }
  }

  test("a schema the target already holds under the subject keeps its id there: no new version") {
    twoRegistries.use { case ((source, sourceClient), (target, targetClient)) =>
      source.put(7, schema("Heartbeat"))
      val existing = target.register("beats-value", schema("Heartbeat"))
      val translator = new IdTranslator(new SchemaResolver(sourceClient), targetClient, SubjectNameStrategy.Topic, "beats")
      translator.prepare(List(WireFormat.frame(7, Array[Byte](2)))).map { _ =>
        assertEquals(WireFormat.schemaIdOf(translator(WireFormat.frame(7, Array[Byte](2)))), Right(existing))
        assertEquals(target.versions("beats-value"), Vector(existing))
      }
    }
  }

  test("the subject follows the strategy; each source id is looked up once, however many values and batches carry it") {
    twoRegistries.use { case ((source, sourceClient), (target, targetClient)) =>
      source.put(21, schema("Heartbeat"))
      val translator = new IdTranslator(new SchemaResolver(sourceClient), targetClient, SubjectNameStrategy.Record, "beats")
      val batch = List.fill(50)(WireFormat.frame(21, Array[Byte](4)))
      (translator.prepare(batch) >> translator.prepare(batch) >> translator.prepare(batch)).map { _ =>
        assertEquals(target.versions("nl.openweb.data.Heartbeat").size, 1)
        assertEquals(source.requests.count(_ == "GET /schemas/ids/21"), 1, source.requests.toString)
        assertEquals(target.requests.count(_.startsWith("POST /subjects/nl.openweb.data.Heartbeat")), 2, "one look-up, one registration")
      }
    }
  }

  test("an id the source registry does not know fails the preparation with the registry's answer") {
    twoRegistries.use { case ((_, sourceClient), (_, targetClient)) =>
      val translator = new IdTranslator(new SchemaResolver(sourceClient), targetClient, SubjectNameStrategy.TopicRecord, "beats")
      translator.prepare(List(WireFormat.frame(99, Array[Byte](2)))).attempt.map {
        case Left(e: RegistryError) => assertEquals((e.status, e.errorCode), (404, Some(40403)))
        case other => fail(s"expected the registry's 404, got $other")
      }
    }
  }
}
