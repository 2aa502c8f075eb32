package bankops.jobs.handler

import cats.effect.{IO, Ref}
import io.circe.Json
import org.apache.kafka.clients.producer.ProducerRecord
import org.apache.kafka.common.header.Header
import org.apache.kafka.common.header.internals.RecordHeader

import java.nio.charset.StandardCharsets.UTF_8
import scala.concurrent.duration._

import bankops.services.avro.WireFormat
import bankops.services.bank.{BankRules, ConfirmMoneyTransfer, Heartbeat}
import bankops.services.kafka.ChunkProducer
import bankops.support.{BankFixture, InProcessHandler, IOSuite, SandboxFixture, Setup}
import bankops.support.BankFixture.{creation, id, transfer}
import bankops.support.OnSandbox

class HandlerSuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 8.minutes

  private def value(j: Json, field: String) = j.hcursor.get[String](field).toOption.get
  private def long(j: Json, field: String) = j.hcursor.get[Long](field).toOption.get

  // In this JVM: these tests neither kill their handler nor signal it.
  private def withHandler[A](bank: BankFixture, instance: String)(body: (InProcessHandler, os.Path) => IO[A]): IO[A] = {
    val log = os.temp(prefix = s"handler-$instance", suffix = ".log")
    bank.runHandler(instance, log).bracket(h => body(h, log))(_.stop.void)
  }

  test("each rule and reason: feedback, database and balance changes as the original handler's; the same commands again change nothing") {
    BankFixture.using("rules") { bank =>
      withHandler(bank, "rules") { (_, log) =>
        val (a, b) = (id(), id())
        val seeded = BankRules.SeededIban
        val outside = BankRules.outsideIban(9999999L)
        for {
          _ <- bank.send(List(creation(a, "AUTO"), creation(b, "MANUAL")))
          created <- bank.awaitFeedback(Set(a, b))
          accounts = bank.accounts(created)
          (ia, ta) = accounts(a)
          (ib, tb) = accounts(b)
          transfers = List(
            transfer(id(), "x", 1000, "cash", ia, "deposit") -> None,
            transfer(id(), ta, 300, ia, ib, "a to b") -> None,
            transfer(id(), tb, 10, ia, ib) -> Some("invalid token"),
            transfer(id(), ta, 100000, ia, ib) -> Some("insufficient funds"),
            transfer(id(), ta, 10, "nobody", ib) -> Some("from is invalid"),
            transfer(id(), ta, 10, ia, ia) -> Some("from and to can't be same for transfer"),
            transfer(id(), "x", 10, outside, BankRules.outsideIban(9999998L)) -> Some("both to and from not known at this bank"),
            transfer(id(), "x", 50, outside, ib, "from outside") -> None,
            transfer(id(), ta, 100, ia, outside, "to outside") -> None,
            transfer(id(), "0" * 20, 5, seeded, ia, "from the seeded account") -> None,
            transfer(id(), "x", -500, "cash", ia, "a negative deposit") -> Some("amount must be positive"),
            transfer(id(), ta, 0, ia, ib, "nothing") -> Some("amount must be positive")
          )
          ids = transfers.map { case (line, _) => value(io.circe.parser.parse(line).toOption.get.hcursor.downField("value").focus.get, "id") }
          _ <- bank.send(transfers.map(_._1))
          feedback <- bank.awaitFeedback(ids.toSet ++ Set(a, b))
          changes <- bank.balanceChanges
          amounts <- bank.query("SELECT iban, amount, type FROM balance")(rs => rs.getString(1) -> (rs.getLong(2), rs.getString(3)))
          cmt <- bank.query("SELECT count(*) FROM cmt")(_.getLong(1))
          validated <- bank.validate
          // The same commands once more: the same feedback again, nothing applied twice.
          _ <- bank.send(List(creation(a, "AUTO"), creation(b, "MANUAL")) ++ transfers.map(_._1))
          again <- bank.readUntil(bank.feedback, 1.second)(bank.feedbackRecords)(_.size >= 28).timeout(90.seconds)
          changesAfter <- bank.balanceChanges
          amountsAfter <- bank.query("SELECT iban, amount, type FROM balance")(rs => rs.getString(1) -> (rs.getLong(2), rs.getString(3)))
        } yield {
          val byId = feedback.groupBy(_._1)
          assertEquals(byId(a).map(_._2), List("AccountCreationConfirmed"))
          assertEquals(value(byId(b).head._3, "a_type"), "MANUAL")
          assert(BankRules.isValidIban(ia) && ta.matches("\\d{20}"), s"$ia $ta")
          ids.zip(transfers.map(_._2)).foreach { case (i, expected) =>
            val (_, record, v) = byId(i).head
            expected match {
              case None => assertEquals(record, "MoneyTransferConfirmed", v.noSpaces)
              case Some(reason) => assertEquals((record, value(v, "reason")), ("MoneyTransferFailed", reason))
            }
          }
          def events(iban: String) = changes.filter(value(_, "iban") == iban).map(c => (long(c, "changed_by"), value(c, "from_to"))).sorted
          assertEquals(events(ia), List((-300L, ib), (-100L, outside), (5L, seeded), (1000L, "cash")).sorted)
          assertEquals(events(ib), List((50L, outside), (300L, ia)).sorted)
          assertEquals(events(seeded), List((-5L, ia)))
          assertEquals(changes.size, 7)
          assertEquals(amounts.toMap.get(ia), Some((605L, "AUTO")))
          assertEquals(amounts.toMap.get(ib), Some((350L, "MANUAL")))
          assertEquals(amounts.toMap.get(seeded).map(_._1), Some(BankRules.SeededAmount - 5))
          assertEquals(cmt, List(12L))
          assertEquals(validated.code, 0, validated.out + validated.err)
          assertEquals(again.size, 28, os.read(log))
          assertEquals(again.groupBy(_._1).map { case (i, fs) => i -> fs.map(f => (f._2, f._3)).distinct.size }.values.toSet, Set(1))
          // The same changes (read across partitions on three brokers, their interleaving differs from read to read).
          assertEquals(changesAfter.map(_.noSpaces).sorted, changes.map(_.noSpaces).sorted)
          assertEquals(amountsAfter.toMap, amounts.toMap)
        }
      }
    }
  }

  /** Accounts with money, then `n` transfers among them (about a tenth with a wrong token, some to and from outside
    * accounts), each with its id as the description so its balance changes can be counted.
    */
  private def load(bank: BankFixture, n: Int, seed: Long): IO[(Map[String, (String, String)], List[(String, String)])] = {
    val creations = List.fill(20)(id())
    for {
      _ <- bank.send(creations.map(creation(_)))
      accounts <- bank.awaitFeedback(creations.toSet).map(bank.accounts)
      deposits = accounts.values.toList.map { case (iban, _) => transfer(id(), "x", 1000000, "cash", iban) }
      _ <- bank.send(deposits)
    } yield {
      val random = new scala.util.Random(seed)
      val list = accounts.values.toVector
      val transfers = List.fill(n) {
        val i = id()
        val (from, token) = list(random.nextInt(list.size))
        val to = if (random.nextInt(10) == 0) BankRules.outsideIban(random.nextInt(1000).toLong) else list(random.nextInt(list.size))._1
        val (f, t) = random.nextInt(20) match {
          case 0 => ("cash", "x")
          case 1 => (from, "9" * 20)
          case _ => (from, token)
        }
        i -> transfer(i, t, 1 + random.nextInt(20000).toLong, f, to, i)
      }
      (accounts, transfers)
    }
  }

  /** Every command has one outcome however often its feedback came; each confirmed transfer has exactly its balance
    * changes (one per local account), a failed one none; every chain is intact and ends at the database's amount.
    */
  private def checkExactlyOnce(bank: BankFixture, accounts: Map[String, (String, String)], transfers: List[(String, String)], logs: String) =
    for {
      feedback <- bank.awaitFeedback(transfers.map(_._1).toSet, 240.seconds)
      changes <- bank.balanceChanges
      validated <- bank.validate
      cmt <- bank.query("SELECT count(*) FROM cmt")(_.getLong(1))
    } yield {
      val outcomes = feedback.groupBy(_._1).map { case (i, fs) => i -> fs.map(f => (f._2, f._3)).distinct }
      assertEquals(outcomes.values.filter(_.size > 1).take(3).toList, Nil, "a command with two different outcomes")
      val local = accounts.values.map(_._1).toSet
      val byDescription = changes.groupBy(value(_, "description"))
      val wrong = transfers.flatMap { case (i, line) =>
        val v = io.circe.parser.parse(line).toOption.get.hcursor.downField("value").focus.get
        val expected = if (outcomes(i).head._1 == "MoneyTransferConfirmed") List(value(v, "from"), value(v, "to")).count(local) else 0
        val got = byDescription.get(i).fold(0)(_.size)
        if (got != expected) Some(s"$i: $got balance changes, expected $expected") else None
      }
      assertEquals(wrong.take(5), Nil, logs)
      assertEquals(validated.code, 0, validated.out.take(2000) + validated.err)
      assertEquals(cmt, List(transfers.size.toLong + accounts.size))
    }

  test("killed with SIGKILL three times under load and restarted: every command applied exactly once, chains intact") {
    BankFixture.using("crash") { bank =>
      val log = os.temp(prefix = "handler-crash", suffix = ".log")
      def start = IO.blocking(bank.spawnHandler("crash", log))
      for {
        first <- start
        loaded <- load(bank, 36000, 1)
        (accounts, transfers) = loaded
        // Up to 4 minutes of load (three restarts fit on a slow machine), stopped once the last restarted handler answered
        // 100 more.
        sending <- bank.load(transfers.map(_._2), rate = 150)
        // Each kill lands while a handler is applying the load: once it consumes and has answered 100 more commands;
        // the answers counted when each kill came.
        kills <- Ref[IO].of(List.empty[(Long, Boolean)])
        last <- (1 to 3).toList.foldLeft(IO.pure(first)) { (running, _) =>
          running.flatMap(h =>
            BankFixture.awaitReady(h, log) >>
              sending.whileApplying(100).flatMap(p => sending.underWay.flatMap(on => kills.update(_ :+ (p._2 -> on)))) >>
              BankFixture.signal(h, "KILL") >> start)
        }
        sent <- BankFixture.awaitReady(last, log) >> sending.whileApplying(100) >> sending.stop
        _ <- checkExactlyOnce(bank, accounts, transfers.take(sent), BankFixture.tail(log)).guarantee(BankFixture.signal(last, "TERM").void)
        atKills <- kills.get
        total <- bank.answered
      } yield {
        assertEquals(os.read(log).linesIterator.count(_.startsWith("handler: applying")), 4)
        // Every kill came mid-load: answers before it, and more after it.
        assert(atKills.size == 3 && atKills.forall { case (n, on) => on && n < total }, s"(answers, load still sent) at the kills $atKills of $total")
      }
    }
  }

  test("two handlers in one group share the partitions; one stopped mid-run (SIGTERM: exit 0); nothing lost or doubled") {
    BankFixture.using("pair") { bank =>
      val (logA, logB) = (os.temp(prefix = "handler-a", suffix = ".log"), os.temp(prefix = "handler-b", suffix = ".log"))
      for {
        // A runs on in this JVM; B, the one stopped, is a process stopped by a real SIGTERM.
        a <- bank.runHandler("a", logA)
        b <- IO.blocking(bank.spawnHandler("b", logB))
        loaded <- load(bank, 36000, 2)
        (accounts, transfers) = loaded
        sending <- bank.load(transfers.map(_._2), rate = 300)
        // Both applying (B's partitions may come a moment after it consumes) and the load being applied when B is
        // stopped; stopped once A alone answered 300 more.
        _ <- BankFixture.awaitReady(a, logA) >> BankFixture.awaitReady(b, logB) >> BankFixture.awaitApplying(logB)
        atStop <- sending.whileApplying(300).map(_._2)
        loadOn <- sending.underWay
        stopped <- BankFixture.signal(b, "TERM")
        sent <- sending.whileApplying(300) >> sending.stop
        _ <- checkExactlyOnce(bank, accounts, transfers.take(sent), BankFixture.tail(logA) + BankFixture.tail(logB))
          .guarantee(a.stop.void)
        total <- bank.answered
      } yield {
        assertEquals(stopped, 0, BankFixture.tail(logB))
        assert(os.read(logB).contains("handler: stopped:"), BankFixture.tail(logB))
        // Stopped, it no longer declares it consumes.
        assert(!os.exists(BankFixture.readyFile(logB)), "the ready file outlived the handler")
        // B applied part of the load before it stopped, and the load went on after it.
        assert(BankFixture.appliedBy(logB) > 0, BankFixture.tail(logB))
        // Each said which partitions it held.
        List(logA, logB).foreach(l => assert(os.read(l).contains("handler: holds partition"), BankFixture.tail(l)))
        assert(loadOn && atStop < total, s"stopped at $atStop answers of $total, the load ${if (loadOn) "still" else "no longer"} sent")
      }
    }
  }

  test("a broker stopped mid-load and started again, one of two handlers killed meanwhile: nothing lost or doubled, balances exact") {
    BankFixture.using("broker") { bank =>
      val (logA, logB) = (os.temp(prefix = "broker-a", suffix = ".log"), os.temp(prefix = "broker-b", suffix = ".log"))
      BankFixture.explained(logA, logB)(for {
        // A, the one killed, is a process; B runs on in this JVM.
        a <- IO.blocking(bank.spawnHandler("a", logA))
        b <- bank.runHandler("b", logB)
        loaded <- load(bank, 27000, 4)
        (accounts, transfers) = loaded
        _ <- BankFixture.awaitReady(a, logA) >> BankFixture.awaitReady(b, logB)
        // The load and the broker's absence with the sandbox to itself; the set-up above and the checks below share it.
        stopped <- aloneFor("a broker stopped and started again under a handler's load")((for {
          // Up to 4.5 minutes of load, stopped once the broker is back and B answered 100 more.
          sending <- bank.load(transfers.map(_._2), rate = 100)
          atStop <- sending.whileApplying(200).map(_._2)
          _ <- Setup.cli("stop a broker", "sandbox", "stop", "kafka-3")
          // A is killed once the two brokers left have answered more of the load.
          atKill <- sending.whileApplying(100).map(_._2)
          loadOn <- sending.underWay
          killed <- BankFixture.signal(a, "KILL")
          _ <- Setup.cli("start the broker", "sandbox", "start", "kafka-3")
          sent <- sending.whileApplying(100) >> sending.stop
        } yield (atStop, atKill, loadOn, killed, sent)).guarantee(SandboxFixture.cli("sandbox", "start", "kafka-3") >> SandboxFixture.inSync))
        (atStop, atKill, loadOn, killed, sent) = stopped
        _ <- checkExactlyOnce(bank, accounts, transfers.take(sent), BankFixture.tail(logA) + BankFixture.tail(logB))
          .guarantee(b.stop.void)
        total <- bank.answered
      } yield {
        assertEquals(killed, 137)
        assert(loadOn && atKill < total,
          s"answers: $atStop at the broker's stop, $atKill at the kill, $total in all; the load ${if (loadOn) "still" else "no longer"} sent")
      })
    }
  }

  List(true -> "dynamic members", false -> "static members (--instance)").foreach { case (dynamic, kind) =>
    test(s"$kind: a handler joins late under load, then its peer is killed with SIGKILL; nothing lost or doubled") {
      BankFixture.create(if (dynamic) "dynamic" else "static").flatMap { bank =>
        val (logA, logB) = (os.temp(prefix = "late-a", suffix = ".log"), os.temp(prefix = "late-b", suffix = ".log"))
        BankFixture.explained(logA, logB)(for {
          a <- IO.blocking(bank.spawnHandler("a", logA, dynamic = dynamic))
          loaded <- load(bank, 36000, 3)
          (accounts, transfers) = loaded
          // Up to 3 minutes of load, stopped once B alone answered 200 more after the kill.
          sending <- bank.load(transfers.map(_._2), rate = 200)
          _ <- BankFixture.awaitReady(a, logA) >> sending.whileApplying(100)
          b <- IO.blocking(bank.spawnHandler("b", logB, dynamic = dynamic))
          // B joined (the group rebalanced) and the two have answered more of the load.
          atKill <- BankFixture.awaitReady(b, logB) >> sending.whileApplying(200).map(_._2)
          loadOn <- sending.underWay
          killed <- BankFixture.signal(a, "KILL")
          sent <- sending.whileApplying(200) >> sending.stop
          _ <- checkExactlyOnce(bank, accounts, transfers.take(sent), BankFixture.tail(logA) + BankFixture.tail(logB))
            .guarantee(BankFixture.signal(b, "TERM").void)
          total <- bank.answered
        } yield {
          assertEquals(killed, 137)
          assert(loadOn && atKill < total, s"killed at $atKill answers of $total, the load ${if (loadOn) "still" else "no longer"} sent")
        })
      }
    }
  }

  List("after-prepare" -> "rolled back", "after-kafka-commit" -> "committed").foreach { case (point, settled) =>
    test(s"a crash $point: the restarted handler finds the prepared batch, $settled by its marker on Kafka, and every command counts once") {
      BankFixture.using("halt") { bank =>
        val log = os.temp(prefix = "handler-halt", suffix = ".log")
        val (a, deposit, move) = (id(), id(), id())
        for {
          // Only the crashing handler is a process (the crash halts its JVM); the others run in this one.
          h <- bank.runHandler("halt", log)
          _ <- bank.send(List(creation(a)))
          accounts <- bank.awaitFeedback(Set(a)).map(bank.accounts)
          _ <- h.stop
          crashing <- IO.blocking(bank.spawnHandler("halt", log, crash = Some(point)))
          _ <- bank.send(List(transfer(deposit, "x", 700, "cash", accounts(a)._1, deposit),
              transfer(move, accounts(a)._2, 200, accounts(a)._1, BankRules.SeededIban, move)))
          code <- IO.blocking { crashing.waitFor(60000); crashing.exitCode() }
          prepared <-
            bank.query("SELECT count(*) FROM pg_prepared_xacts WHERE gid LIKE 'bankops-handler:%' AND database = current_database()")(_.getLong(1))
          restarted <- bank.runHandler("halt", log)
          _ <- (IO.sleep(200.millis) >> IO.blocking(os.read(log))).iterateUntil(_.contains("handler: recovered")).timeout(90.seconds)
          feedback <- bank.awaitFeedback(Set(deposit, move)).guarantee(IO.sleep(2.seconds))
          _ <- restarted.stop
          changes <- bank.balanceChanges
          amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '${accounts(a)._1}'")(_.getLong(1))
          left <- bank.query("SELECT count(*) FROM pg_prepared_xacts WHERE database = current_database()")(_.getLong(1))
          validated <- bank.validate
          text <- IO.blocking(os.read(log))
        } yield {
          assertEquals(code, 137, text)
          assertEquals(prepared, List(1L), text)
          assert(text.contains(if (point == "after-prepare") "not published, rolled back" else "published by Kafka, committed"), text)
          assertEquals(feedback.filter(f => f._1 == deposit || f._1 == move).map(_._2), List("MoneyTransferConfirmed", "MoneyTransferConfirmed"))
          assertEquals(changes.map(c => value(c, "description")).sorted, List(deposit, move, move).sorted)
          assertEquals(amount, List(500L))
          assertEquals(left, List(0L))
          assertEquals(validated.code, 0, validated.out + validated.err)
        }
      }
    }
  }

  // Last of the suite: its part alone (the registry's next id) stops new shared turns until the tests in flight end.
  // Second in the suite, it asked while the demo's minute-and-a-half test ran and the sandbox half idled for 89 s (run 33);
  // last, it asks about when the workflows' latency part does, and one wait serves both.
  test(("garbage, an unknown schema id and another record type go to the dead-letter topic as they came, with headers saying why; " +
    "offsets move past them; once the missing schema is registered, a replay from the dead-letter topic applies that command once")) {
    BankFixture.using("dlq") { bank =>
      withHandler(bank, "dlq") { (h, log) =>
        val (account, after, late) = (id(), id(), id())
        val heartbeat = Heartbeat.codec.schema.toOption.get
        val transferSchema = ConfirmMoneyTransfer.codec.schema.toOption.get
        def produce(values: List[Array[Byte]]) = SandboxFixture.settings.flatMap { settings =>
          ChunkProducer.resource(settings.kafka, 30.seconds).use { p =>
            val header = new RecordHeader("trace", "t-1".getBytes(UTF_8))
            p.send(fs2.Chunk.from(values.map(v => new ProducerRecord(bank.commands, 0, "k".getBytes(UTF_8), v, java.util.List.of[Header](header)))))(
              (_, _, _) => ()).flatten
          }
        }
        def header(j: Json, key: String) = j.hcursor.downField("headers").focus.flatMap(_.asArray).flatMap(_.collectFirst {
          case h if h.hcursor.get[String]("key").toOption.contains(key) => h.hcursor.get[String]("value").toOption.get
        })
        def replayDeadLetters = SandboxFixture.cli("replay", "--from-topic", bank.deadLetters, "--to-topic", bank.commands).flatMap { r =>
          IO.raiseUnless(r.code == 0)(new AssertionError(r.err))
        }
        for {
          registry <- SandboxFixture.registry
          _ <- bank.send(List(creation(account)))
          iban <- bank.awaitFeedback(Set(account)).map(bank.accounts(_)(account)._1)
          beatId <- registry.register(s"${bank.commands}-nl.openweb.data.Heartbeat", heartbeat.toString)
          // Alone from the prediction to the fix: no other test may take the registry's next id meanwhile.
          predicted <- aloneFor("the registry's next id predicted, then given to the late schema")(for {
            // The next id the registry gives out: a deposit framed with it names a schema that does not exist yet.
            fillerId <- registry.register(s"${bank.commands}-filler", s"""{"type": "record", "name": "F${after.replace("-", "")}", "fields": []}""")
            lateId = fillerId + 1
            deposit = ConfirmMoneyTransfer(java.util.UUID.fromString(late), "x", 400, "cash", iban, late)
            bad = List("not avro at all".getBytes(UTF_8), WireFormat.frame(987654, Array[Byte](2, 4)),
              WireFormat.Writer[Heartbeat](beatId).apply(Heartbeat(1)).toOption.get,
              WireFormat.Writer[ConfirmMoneyTransfer](lateId).apply(deposit).toOption.get)
            _ <- produce(bad)
            _ <- bank.send(List(creation(after)))
            _ <- bank.awaitFeedback(Set(after))
            dead <- bank.readUntil(bank.deadLetters, 500.millis)(bank.read(bank.deadLetters))(_.size >= 4).timeout(60.seconds)
            lag <- SandboxFixture.cli("groups", "describe", bank.group, "-o", "json")
            // The fix: the schema the deposit names is registered (a copy of the bank's, with a doc of its own), under that id.
            fixed <- registry.register(s"${bank.commands}-nl.openweb.data.ConfirmMoneyTransfer",
              transferSchema.toString.replace("\"name\":\"ConfirmMoneyTransfer\"",
                "\"name\":\"ConfirmMoneyTransfer\",\"doc\":\"registered late, " + late + "\""),
              normalize = false) // normalized, the doc is dropped and the bank's own schema (and id) found instead
          } yield (lateId, dead, lag, fixed))
          (lateId, dead, lag, fixed) = predicted
          _ = assertEquals(fixed, lateId, "the registry gave the late schema the id the deposit names")
          _ <- replayDeadLetters
          feedback <- bank.awaitFeedback(Set(late))
          _ <- replayDeadLetters
          _ <- bank.readUntil(bank.deadLetters, 500.millis)(bank.read(bank.deadLetters))(_.size >= 4 + 3 + 6).timeout(60.seconds)
          again <- bank.readUntil(bank.feedback, 1.second)(bank.feedbackRecords)(_.count(_._1 == late) >= 2).timeout(60.seconds)
          amount <- bank.query(s"SELECT amount FROM balance WHERE iban = '$iban'")(_.getLong(1))
          validated <- bank.validate
          text <- IO.blocking(os.read(log))
          alive <- h.isAlive
        } yield {
          assertEquals(dead.size, 4, dead.map(_.noSpaces).mkString("\n"))
          val reasons = dead.map(d => header(d, "bankops.dlq.reason").getOrElse(""))
          assertEquals(reasons(0), "first byte is 0x6e, not the magic byte 0x00", reasons.toString)
          assertEquals(reasons(1), "schema id 987654 is unknown to the registry")
          assertEquals(reasons(2), "record type nl.openweb.data.Heartbeat is not a bank command")
          assertEquals(reasons(3), s"schema id $lateId is unknown to the registry")
          assertEquals(dead.flatMap(header(_, "bankops.dlq.offset")).map(_.toLong).distinct.size, 4, "each names its own source offset")
          dead.zipWithIndex.foreach { case (d, i) =>
            assertEquals(header(d, "bankops.dlq.topic"), Some(bank.commands))
            assertEquals(header(d, "bankops.dlq.partition"), Some("0"))
            assert(header(d, "bankops.dlq.offset").exists(_.toLongOption.isDefined), d.noSpaces)
            assert(header(d, "bankops.dlq.time").isDefined, d.noSpaces)
            assertEquals(header(d, "trace"), Some("t-1"), "the record's own headers are kept")
            assertEquals(d.hcursor.get[String]("key").toOption, Some("k"))
            if (i == 2) assertEquals(d.hcursor.get[String]("record").toOption, Some("nl.openweb.data.Heartbeat"), "the value as it came")
          }
          assert(!lag.out.contains("\"lag\":1"), lag.out)
          assertEquals(feedback.filter(_._1 == late).map(_._2).distinct, List("MoneyTransferConfirmed"))
          assertEquals(again.filter(_._1 == late).map(f => (f._2, f._3)).distinct.size, 1)
          assertEquals(amount, List(400L), "replayed twice, applied once")
          assertEquals(validated.code, 0, validated.out + validated.err)
          // Replayed: the 4 (3 refused again), then the dead-letter topic's 7 (6 refused again, the deposit a repeat).
          val warnings = text.linesIterator.filter(_.startsWith(s"warning: dead-lettered ${bank.commands}-")).toList
          assertEquals(warnings.size, 4 + 3 + 6, text)
          assert(text.contains("\"deadLettered\":13"), text)
          assert(alive)
        }
      }
    }
  }
}
