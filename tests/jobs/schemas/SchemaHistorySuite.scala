package bankops.jobs.schemas

import cats.effect.IO
import io.circe.Json
import io.circe.parser.parse

import java.time.Instant
import java.util.UUID
import scala.concurrent.duration._

import bankops.support.{IOSuite, SandboxFixture, TestShell}
import bankops.support.OnSandbox

/** `schemas versions/show/diff` against the sandbox's registry, each test on a subject of its own. */
class SchemaHistorySuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private def bankops(args: String*): IO[TestShell.Result] = SandboxFixture.cli(args: _*)

  private def json(line: String): Json = parse(line).fold(e => fail(s"$line: ${e.message}"), identity)

  /** A record of a namespace of its own (the registry shares content between subjects), at v1 or v2 (a field added with a
    * default: compatible).
    */
  final case class Subject(ns: String) {
    val name = s"${ns.drop(5)}-history-$ns.Payment"
    private val meta = """{"name":"meta","type":{"type":"record","name":"Meta","fields":[{"name":"source","type":"string"}]}}"""
    def schema(extra: String = ""): String =
      s"""{"type":"record","name":"Payment","namespace":"$ns","fields":[{"name":"amount","type":"long"},$meta$extra]}"""
    val v1: String = schema()
    val v2: String = schema(""",{"name":"note","type":"string","default":""}""")
  }

  private def fresh: Subject = Subject(s"bank.t${UUID.randomUUID().toString.take(8)}")

  /** The subject with two versions; their ids. The sandbox first: the fixture's registry client must not start it. */
  private def registered(s: Subject): IO[(Int, Int)] =
    for {
      _ <- SandboxFixture.connection
      r <- SandboxFixture.registry
      id1 <- r.register(s.name, s.v1)
      id2 <- r.register(s.name, s.v2)
    } yield (id1, id2)

  test("versions after two registrations: versions, ids and dates (from Apicurio's core API), as JSON and as a table") {
    val s = fresh
    val started = Instant.now().minusSeconds(120)
    for {
      ids <- registered(s)
      out <- bankops("schemas", "versions", s.name, "-o", "json")
      table <- bankops("schemas", "versions", s.name, "-o", "table")
    } yield {
      assertEquals(out.code, 0, out.err)
      val lines = out.outLines.map(json(_).hcursor)
      assertEquals(lines.map(_.get[Int]("version").toOption.get), List(1, 2))
      assertEquals(lines.map(_.get[Int]("id").toOption.get), List(ids._1, ids._2))
      assertEquals(lines.map(_.get[List[Json]]("references").toOption.get), List(Nil, Nil))
      val created = lines.map(_.get[String]("created").toOption.map(Instant.parse))
      assert(created.forall(_.exists(t => t.isAfter(started) && t.isBefore(Instant.now().plusSeconds(60)))), out.out)
      assert(out.err.contains("dates from Apicurio's core API"), out.err)
      assertEquals(table.code, 0, table.err)
      assert(table.outLines.head.startsWith("VERSION  ID"), table.out)
      assert(table.outLines.exists(_.startsWith(s"2        ${ids._2}")), table.out)
    }
  }

  test("show: a version's id, references and schema; the latest without a version") {
    val s = fresh
    for {
      ids <- registered(s)
      first <- bankops("schemas", "show", s"${s.name}@1", "-o", "json")
      latest <- bankops("schemas", "show", s.name, "-o", "table")
    } yield {
      assertEquals(first.code, 0, first.err)
      val c = json(first.out.trim).hcursor
      assertEquals(c.get[Int]("version"), Right(1))
      assertEquals(c.get[Int]("id"), Right(ids._1))
      assertEquals(c.downField("schema").downField("fields").values.map(_.map(_.hcursor.get[String]("name").toOption.get).toList),
        Some(List("amount", "meta")))
      assertEquals(latest.code, 0, latest.err)
      assert(latest.out.contains("version     2") && latest.out.contains(s"id          ${ids._2}"), latest.out)
      assert(latest.out.contains("references  none") && latest.out.contains("\"name\" : \"note\""), latest.out)
    }
  }

  test("diff of a compatible change: the field added, compatible under the subject's level, exit 0") {
    val s = fresh
    for {
      ids <- registered(s)
      table <- bankops("schemas", "diff", s.name, "-o", "table")
      asJson <- bankops("schemas", "diff", s.name, "1", "2", "-o", "json")
    } yield {
      assertEquals(table.code, 0, table.err)
      assert(table.out.contains(s"version 1 (id ${ids._1}) -> version 2 (id ${ids._2})"), table.out)
      assert(table.outLines.exists(l => l.startsWith("note") && l.contains("added") && l.contains("string, default \"\"")), table.out)
      assert(table.out.contains("compatible under BACKWARD (the registry's answer)"), table.out)
      assertEquals(asJson.code, 0, asJson.err)
      val c = json(asJson.out.trim).hcursor
      assertEquals(c.downField("compatibility").get[Boolean]("compatible"), Right(true))
      assertEquals(c.downField("changes").values.map(_.size), Some(1))
    }
  }

  test("diff against an incompatible .avsc: the changes by field path and the reasons, exit 1") {
    val s = fresh
    val file = os.temp(suffix = ".avsc",
      contents =
        s"""{"type":"record","name":"Payment","namespace":"${s.ns}","fields":[{"name":"amount","type":"string"},""" +
          """{"name":"meta","type":{"type":"record","name":"Meta","fields":[{"name":"source","type":"int"}]}},{"name":"x","type":"int"}]}""")
    for {
      _ <- registered(s)
      out <- bankops("schemas", "diff", s.name, file.toString, "-o", "table")
      asJson <- bankops("schemas", "diff", s.name, "1", file.toString, "-o", "json")
    } yield {
      assertEquals(out.code, 1, out.out + out.err)
      assert(out.out.contains(s"version 2"), out.out)
      assert(out.outLines.exists(l => l.startsWith("meta.source") && l.contains("type changed")), out.out)
      assert(out.outLines.exists(l => l.startsWith("note") && l.contains("removed")), out.out)
      assert(out.out.contains("incompatible under BACKWARD (the registry's answer)"), out.out)
      assert(out.out.contains("field amount: type changed from long to string"), out.out)
      assert(out.out.contains("field x added without a default"), out.out)
      assertEquals(asJson.code, 1, asJson.err)
      val verdict = json(asJson.out.trim).hcursor.downField("compatibility")
      assertEquals(verdict.get[Boolean]("compatible"), Right(false))
      assert(verdict.get[List[String]]("reasons").toOption.get.exists(_.startsWith("field meta.source: type changed from string to int")),
        asJson.out)
    }
  }

  test("bad input: an unknown subject, version or file is exit 2 naming it") {
    val s = fresh
    val missing = os.temp.dir() / "none.avsc"
    for {
      _ <- registered(s)
      noSubject <- bankops("schemas", "versions", s"${s.name}-nope")
      noVersion <- bankops("schemas", "show", s"${s.name}@9")
      badVersion <- bankops("schemas", "diff", s.name, "0")
      noFile <- bankops("schemas", "diff", s.name, missing.toString)
      notAvro <- bankops("schemas", "diff", s.name, os.temp(suffix = ".avsc", contents = "{\"type\": \"lng\"}").toString)
      one <- SandboxFixture.registry.flatMap(_.register(s"${s.name}-one", s.v1)) >> bankops("schemas", "diff", s"${s.name}-one")
    } yield {
      assertEquals(noSubject.code, 2, noSubject.err)
      assert(noSubject.err.contains(s"subject ${s.name}-nope does not exist"), noSubject.err)
      assertEquals(noVersion.code, 2, noVersion.err)
      assert(noVersion.err.contains(s"subject ${s.name} has no version 9 (its versions: 1, 2)"), noVersion.err)
      assertEquals(badVersion.code, 2, badVersion.err)
      assert(badVersion.err.contains("version '0': expected a positive number or latest"), badVersion.err)
      assertEquals(noFile.code, 2, noFile.err)
      assert(noFile.err.contains(s"$missing: no such file"), noFile.err)
      assertEquals(notAvro.code, 2, notAvro.err)
      assert(notAvro.err.contains("not a valid Avro schema"), notAvro.err)
      assertEquals(one.code, 2, one.err)
      assert(one.err.contains("has only version 1"), one.err)
      List(noSubject, noVersion, badVersion, noFile, notAvro, one).foreach(r => assertEquals(r.err.linesIterator.count(_.nonEmpty), 1, r.err))
    }
  }
}
