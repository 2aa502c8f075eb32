package bankops.jobs.handler

import cats.effect.IO
import cats.syntax.all._
import io.circe.Json

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import scala.concurrent.duration._
import scala.util.Random

import bankops.services.avro.WireFormat
import bankops.services.registry.RegistryClient
import bankops.support.{BankFixture, FuzzFrames, IOSuite, OnSandbox, PythonClients, Repo, SandboxFixture}
import bankops.support.BankFixture.{creation, id, transfer}

/** Records any client allowed to write `commands` may send, which stopped the bank before: each ends as a dead letter
  * with its reason, and the commands after them are answered, exactly once, with nothing left prepared.
  */
class HandlerHostileSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 5.minutes

  private def transferSchema = os.read(Repo.root / "schemas" / "ConfirmMoneyTransfer.avsc")

  /** The id the bank's own ConfirmMoneyTransfer has under the test bank's commands subject. */
  private def transferId(bank: BankFixture): IO[Int] = SandboxFixture.settings.flatMap(RegistryClient.resource(_).use(
      _.schemaId(s"${bank.commands}-nl.openweb.data.ConfirmMoneyTransfer", transferSchema, register = false)
        .map(_.fold(l => fail(s"the bank's transfer schema is not registered: $l"), identity))))

  /** A JSON Schema registered on the same registry, as another team's would be: its id. */
  private def jsonSchemaId(subject: String): IO[Int] = SandboxFixture.settings.flatMap { s =>
    val body = Json.obj("schemaType" -> Json.fromString("JSON"),
      "schema" -> Json.fromString("""{"type": "object", "properties": {"id": {"type": "string"}}}""")).noSpaces
    IO.blocking {
      val request = HttpRequest.newBuilder(URI.create(s"${s.registry.url.value}/subjects/$subject/versions"))
        .header("Content-Type", "application/vnd.schemaregistry.v1+json").POST(HttpRequest.BodyPublishers.ofString(body)).build()
      val answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString())
      assertEquals(answer.statusCode, 200, answer.body)
      io.circe.parser.parse(answer.body).flatMap(_.hcursor.get[Int]("id")).fold(e => fail(s"${answer.body}: $e"), identity)
    }
  }

  private def raw(bank: BankFixture, value: Array[Byte], headers: Map[String, String] = Map.empty, key: String = id()) =
    Json.obj("topic" -> Json.fromString(bank.commands), "key" -> Json.fromString(key),
      "rawHex" -> Json.fromString(value.map("%02x".format(_)).mkString),
      "headers" -> Json.obj(headers.map { case (k, v) => k -> Json.fromString(v) }.toSeq: _*)).noSpaces

  private def header(j: Json, name: String): Option[String] =
    j.hcursor.downField("headers").focus.flatMap(_.asArray).getOrElse(Vector.empty)
      .find(_.hcursor.get[String]("key").contains(name)).flatMap(_.hcursor.get[String]("value").toOption)

  /** The partition of the bank's three that the default partitioner gives a command keyed by `key`. */
  private def partition(key: String) =
    org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(key.getBytes("UTF-8"))) % 3

  /** Accounts a and b; a held by another deployment's prepared transaction (gid) that nobody settles, and a deposit to
    * it; `count` other deposits keyed into the other partitions (commands are keyed by their id).
    */
  private final class HeldAccount(bank: BankFixture, count: Int) {
    val (a, b, gid, heldDeposit) = (id(), id(), s"another-deployment:${id()}", id())
    val others: List[String] = Iterator.continually(id()).filter(partition(_) != partition(heldDeposit)).take(count).toList
    val release: IO[Unit] = bank.query(s"SELECT count(*) FROM pg_prepared_xacts WHERE gid = '$gid'")(_.getLong(1)).flatMap(n =>
      if (n == List(1L)) BankFixture.withDb(bank.dbUrl)(_.createStatement().execute(s"ROLLBACK PREPARED '$gid'")).void else IO.unit)

    /** Opens a and b, holds a, sends the deposit to it: the accounts by creation id. */
    def start: IO[Map[String, (String, String)]] =
      for {
        _ <- bank.send(List(creation(a), creation(b)))
        ibans <- bank.awaitFeedback(Set(a, b)).map(bank.accounts)
        _ <- BankFixture.withDb(bank.dbUrl)(BankFixture.prepare(_, gid)(s"UPDATE balance SET updated_at = now() WHERE iban = '${ibans(a)._1}'"))
        _ <- bank.send(List(transfer(heldDeposit, "x", 500, "cash", ibans(a)._1, heldDeposit)))
      } yield ibans
  }

  private def prepared(bank: BankFixture) =
    bank.query("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")(_.getLong(1))

  test("26 bytes declaring a 10^9-byte token, a JSON Schema's id and a header key of 1 MB in UTF-8 are dead letters with " +
    "their reasons; the deposit after them is answered") {
    BankFixture.using("hostile") { bank =>
      val log = os.temp(prefix = "hostile", suffix = ".log")
      val (account, after) = (id(), id())
      for {
        h <- IO.blocking(bank.spawnHandler("h", log))
        _ <- bank.send(List(creation(account)))
        iban <- bank.awaitFeedback(Set(account)).map(bank.accounts(_)(account)._1)
        transfers <- transferId(bank)
        json <- jsonSchemaId(s"${bank.commands}-json-value")
        bomb = WireFormat.frame(transfers, Array.fill[Byte](16)(7) ++ Array(0x80, 0xa8, 0xd6, 0xb9, 0x07).map(_.toByte))
        // 350,000 chars, 1,050,000 bytes: compressed, the record fits the topic; its dead letter must be cut to fit.
        // One key: one partition, so the dead letters come in the order sent.
        key = id()
        _ <- PythonClients.produce(List(raw(bank, bomb, key = key), raw(bank, WireFormat.frame(json, Array[Byte](2, 4)), key = key),
            raw(bank, "plain".getBytes("UTF-8"), Map("\u20ac" * 350000 -> "x"), key)), Some("zstd"))
        _ <- bank.send(List(transfer(after, "x", 250, "cash", iban, after)))
        feedback <- bank.awaitFeedback(Set(after), 60.seconds).guarantee(BankFixture.signal(h, "TERM").void)
        dead <- bank.read(bank.deadLetters)
        amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$iban'")(_.getLong(1))
        left <- prepared(bank)
        validated <- bank.validate
      } yield {
        assertEquals(feedback.filter(_._1 == after).map(_._2), List("MoneyTransferConfirmed"), BankFixture.tail(log))
        assertEquals(amount, List(250L))
        val reasons = dead.map(d => header(d, "bankops.dlq.reason").getOrElse(""))
        assertEquals(reasons.size, 3, dead.toString.take(2000))
        assertEquals(reasons(0),
          s"payload does not parse under writer schema $transfers: field token declares 1000000000 bytes, but only 0 bytes remain")
        assertEquals(reasons(1), s"schema id $json is no Avro schema the handler can read (a JSON schema)")
        assert(reasons(2).startsWith("first byte is 0x70"), reasons(2))
        assert(header(dead(2), "bankops.dlq.truncated").exists(_.contains("the headers dropped")), dead(2).noSpaces.take(500))
        assert(!os.read(log).contains("batch failed"), BankFixture.tail(log))
        assert(!os.read(log).contains("OutOfMemoryError"), BankFixture.tail(log))
        assertEquals(left, List(0L))
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      }
    }
  }

  test("fuzz: 2,000 mutated frames amid 100 commands: every command answered once, balances exact, nothing prepared") {
    val seed = sys.env.get("BANKOPS_TEST_SEED").flatMap(_.toLongOption).getOrElse(System.nanoTime())
    val random = new Random(seed)
    BankFixture.using("fuzzed") { bank =>
      val log = os.temp(prefix = "fuzzed", suffix = ".log")
      val accounts = List.fill(10)(id())
      val other = id()
      for {
        h <- IO.blocking(bank.spawnHandler("f", log))
        _ <- bank.send((other :: accounts).map(creation(_)))
        ibans <- bank.awaitFeedback((other :: accounts).toSet).map(bank.accounts)
        transfers <- transferId(bank)
        // The mutations start from deposits to an account of their own: one that still decodes moves only that account.
        template = WireFormat.Writer[bankops.services.bank.ConfirmMoneyTransfer](transfers).apply(bankops.services.bank.ConfirmMoneyTransfer(
            java.util.UUID.randomUUID(), "t", 100, "cash", ibans(other)._1, "fuzz")).fold(e => fail(e.message), identity)
        poison = List.fill(2000)(FuzzFrames.mutate(template, random, Vector(transfers, transfers + 1, Int.MaxValue)))
        deposits = accounts.flatMap(a => List.fill(9)(id() -> (a, 1 + random.nextInt(1000).toLong)))
        _ <- (PythonClients.produce(poison.map(raw(bank, _))),
          bank.send(deposits.map { case (i, (a, amount)) => transfer(i, "x", amount, "cash", ibans(a)._1, i) })).parTupled
        feedback <- bank.awaitFeedback(deposits.map(_._1).toSet, 120.seconds).guarantee(BankFixture.signal(h, "TERM").void)
        amounts <- bank.query("SELECT iban, amount FROM balance")(r => r.getString(1) -> r.getLong(2)).map(_.toMap)
        left <- prepared(bank)
        validated <- bank.validate
      } yield {
        val clue = s"seed $seed (BANKOPS_TEST_SEED=$seed replays it): ${BankFixture.tail(log)}"
        val answers = feedback.groupBy(_._1)
        deposits.foreach { case (i, _) => assertEquals(answers.get(i).map(_.map(_._2)), Some(List("MoneyTransferConfirmed")), clue) }
        accounts.foreach(a => assertEquals(amounts(ibans(a)._1), deposits.collect { case (_, (`a`, n)) => n }.sum, clue))
        assert(!os.read(log).contains("batch failed"), clue)
        assertEquals(left, List(0L), clue)
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err + clue)
      }
    }
  }

  test("an account held by a prepared transaction nobody settles holds back its command's partition only: the line names " +
    "the gid, the other partitions' deposits are answered meanwhile, and the held one once the transaction ends") {
    BankFixture.using("holdback") { bank =>
      val log = os.temp(prefix = "holdback", suffix = ".log")
      val held = new HeldAccount(bank, 6)
      import held.{a, b, gid, heldDeposit, others, release}
      (for {
        h <- bank.runHandler("h", log)
        ibans <- held.start
        _ <- bank.send(others.map(i => transfer(i, "x", 10, "cash", ibans(b)._1, i)))
        during <- bank.awaitFeedback(others.toSet, 60.seconds)
        stillPrepared <- bank.query(s"SELECT count(*) FROM pg_prepared_xacts WHERE gid = '$gid'")(_.getLong(1))
        _ <- release
        after <- bank.awaitFeedback(Set(heldDeposit), 60.seconds).guarantee(h.stop.void)
        amounts <- bank.query("SELECT iban, amount FROM balance")(r => r.getString(1) -> r.getLong(2)).map(_.toMap)
        left <- prepared(bank)
        validated <- bank.validate
      } yield {
        val lines = os.read(log)
        assert(!during.exists(_._1 == heldDeposit), "the held deposit was answered while its account was held")
        assertEquals(stillPrepared, List(1L), "the other partitions went on while the account was still held")
        assert(lines.contains(s"holding back partition ${partition(heldDeposit)} of ${bank.commands}"), BankFixture.tail(log))
        assert(lines.contains(s"${ibans(a)._1} by prepared transaction $gid"), BankFixture.tail(log))
        assertEquals(after.filter(_._1 == heldDeposit).map(_._2), List("MoneyTransferConfirmed"), BankFixture.tail(log))
        assertEquals(amounts(ibans(a)._1), 500L)
        assertEquals(amounts(ibans(b)._1), 60L)
        assertEquals(left, List(0L))
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      }).guarantee(release)
    }
  }

  test("a handler killed while it holds a partition back: the member that takes the partition over holds it back too, " +
    "naming the gid, answers the other partitions meanwhile, and the held deposit once when the transaction ends") {
    BankFixture.using("holdkill") { bank =>
      val (log1, log2) = (os.temp(prefix = "holdkill1", suffix = ".log"), os.temp(prefix = "holdkill2", suffix = ".log"))
      val account = new HeldAccount(bank, 4)
      import account.{a, b, gid, heldDeposit, others, release}
      val held = s"holding back partition ${partition(heldDeposit)} of ${bank.commands}"
      (for {
        h1 <- IO.blocking(bank.spawnHandler("k1", log1))
        ibans <- account.start
        _ <- BankFixture.awaitLog(log1, held)
        // A second member joins (the group rebalances) and the first dies without a word: its partitions, the held one
        // among them, reach the second once its session times out, with nothing of the held one committed.
        h2 <- bank.runHandler("k2", log2)
        _ <- BankFixture.awaitReady(h2, log2)
        killed <- BankFixture.signal(h1, "KILL")
        _ <- BankFixture.awaitLog(log2, held)
        _ <- bank.send(others.map(i => transfer(i, "x", 10, "cash", ibans(b)._1, i)))
        during <- bank.awaitFeedback(others.toSet, 60.seconds)
        _ <- release
        _ <- bank.awaitFeedback(Set(heldDeposit), 60.seconds).guarantee(h2.stop.void)
        feedback <- bank.feedbackRecords
        amounts <- bank.query("SELECT iban, amount FROM balance")(r => r.getString(1) -> r.getLong(2)).map(_.toMap)
        left <- prepared(bank)
        validated <- bank.validate
      } yield {
        val logs = BankFixture.tail(log1) + "\n" + BankFixture.tail(log2)
        assertEquals(killed, 137, "the first handler was killed")
        assert(!during.exists(_._1 == heldDeposit), "the held deposit was answered while its account was held")
        assert(os.read(log2).contains(s"${ibans(a)._1} by prepared transaction $gid"), logs)
        assertEquals(feedback.filter(_._1 == heldDeposit).map(_._2), List("MoneyTransferConfirmed"), logs)
        assertEquals(amounts(ibans(a)._1), 500L)
        assertEquals(amounts(ibans(b)._1), 40L)
        assertEquals(left, List(0L))
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      }).guarantee(release)
    }
  }

  test("a command id applied before whose outcome was purged (cid kept) is a dead letter saying so, not redone for ever") {
    BankFixture.using("purged") { bank =>
      val log = os.temp(prefix = "purged", suffix = ".log")
      val (account, after) = (id(), id())
      for {
        h <- bank.runHandler("p", log)
        _ <- bank.send(List(creation(account)))
        iban <- bank.awaitFeedback(Set(account)).map(bank.accounts(_)(account)._1)
        _ <- BankFixture.withDb(bank.dbUrl)(_.createStatement().execute(s"DELETE FROM cac WHERE uuid = '$account'"))
        _ <- bank.send(List(creation(account)))
        _ <- bank.send(List(transfer(after, "x", 70, "cash", iban, after)))
        feedback <- bank.awaitFeedback(Set(after), 60.seconds).guarantee(h.stop.void)
        dead <- bank.read(bank.deadLetters)
        accounts <- bank.query("SELECT count(*) FROM balance")(_.getLong(1))
        left <- prepared(bank)
        validated <- bank.validate
      } yield {
        assertEquals(feedback.filter(_._1 == account).map(_._2), List("AccountCreationConfirmed"), BankFixture.tail(log))
        assertEquals(feedback.filter(_._1 == after).map(_._2), List("MoneyTransferConfirmed"), BankFixture.tail(log))
        assertEquals(dead.map(header(_, "bankops.dlq.reason")),
          List(Some(CommandsPurged.reason(java.util.UUID.fromString(account)))), BankFixture.tail(log))
        assertEquals(accounts, List(2L), "the seeded account and the one created once")
        assertEquals(left, List(0L))
        assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      }
    }
  }

  test("the bank's commands topic takes no compressed batch: the broker stores it uncompressed, so a record that " +
    "inflates past the topic's limit is refused at the door and a handler's poll decompresses nothing") {
    val declared = bankops.services.contracts.TopologyFile.load(Repo.root / "schemas" / "topology.json").fold(fail(_), identity)
      .topics.find(_.name == "commands").getOrElse(fail("no commands topic in schemas/topology.json")).config
    val topic = bankops.support.TopologyFixture.unique("plain-commands")
    val file = bankops.support.TopologyFiles.write(bankops.support.TopologyFiles.topology((topic, 1, declared, "ConfirmMoneyTransfer", "id")))
    def line(bytes: Int) = Json.obj("topic" -> Json.fromString(topic), "key" -> Json.fromString(id()),
      "rawHex" -> Json.fromString("78" * bytes)).noSpaces
    for {
      _ <- bankops.support.Setup.cli("apply the topic", "apply", "--topology", file.toString)
      small <- PythonClients.produce(List(line(100 * 1024)), Some("zstd")).attempt
      bomb <- PythonClients.produce(List(line(4 * 1024 * 1024)), Some("zstd")).attempt
      stored <- SandboxFixture.records(topic)
    } yield {
      assertEquals(declared.get("compression.type"), Some("uncompressed"))
      assert(small.isRight, small.toString)
      assert(bomb.left.exists(_.getMessage.contains("MSG_SIZE_TOO_LARGE")), bomb.toString)
      assertEquals(stored.map(_.value.length), List(100 * 1024))
    }
  }
}
