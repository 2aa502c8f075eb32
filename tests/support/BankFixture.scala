package bankops.support

import cats.effect.{Deferred, FiberIO, IO, Ref}
import cats.syntax.all._
import io.circe.Json
import io.circe.parser.parse

import java.util.UUID
import scala.concurrent.duration._

import bankops.services.bank.BankTables

/** A bank of a test's own on the sandbox: its commands, feedback and balance topics, its own copy of `balancedb`
  * (so validation sees only its accounts), and command handlers: real processes where a test kills or signals them, else
  * in the test JVM ([[InProcessHandler]]).
  */
final case class BankFixture(commands: String, feedback: String, balance: String, dbUrl: String, group: String) {
  /** The handler's dead-letter topic (its default name). */
  def deadLetters: String = s"$commands.dlq"

  def handlerArgs: List[String] =
    List("handler", "--topic", commands, "--feedback-topic", feedback, "--balance-topic", balance, "--group", group, "--db-url", dbUrl)

  // What a test started on this bank, for [[cleanUp]].
  private val spawned = new java.util.concurrent.ConcurrentLinkedQueue[os.SubProcess]()
  private val inProcess = new java.util.concurrent.ConcurrentLinkedQueue[InProcessHandler]()
  private val loads = new java.util.concurrent.ConcurrentLinkedQueue[BankFixture.Load]()

  /** `bankops handler` in a JVM of its own, stdout and stderr appended to `log`; `dynamic`: a dynamic member, else
    * `--instance instance`. `env` sets fault points (BANKOPS_HANDLER_PAUSE etc.), `args` more options (a later one wins).
    * `patient`: its Kafka transactions get 60 s, not 10, before the coordinator aborts them, for a test that holds it
    * after PREPARE while something slow (a JVM starting) happens.
    */
  def spawnHandler(instance: String, log: os.Path, crash: Option[String] = None, env: Map[String, String] = Map.empty,
                   args: List[String] = Nil, dynamic: Boolean = false, patient: Boolean = false): os.SubProcess = {
    val environment = SandboxFixture.env ++ crash.map("BANKOPS_HANDLER_CRASH" -> _) ++ env
    val handlerProcess =
      Children.spawn(os.proc(Jvm.bankops(handlerCommand(instance, log, args, dynamic, patient))), env = environment,
        stdout = os.PathAppendRedirect(log), stderr = os.PathAppendRedirect(log))
    spawned.add(handlerProcess)
    handlerProcess
  }

  /** As [[spawnHandler]], in the test JVM ([[InProcessHandler]]): for a test that only starts it and asks it to stop
    * (no crash point, no kill, no signal of its own), it skips a JVM's start and warm-up.
    */
  def runHandler(instance: String, log: os.Path, env: Map[String, String] = Map.empty, args: List[String] = Nil,
                 patient: Boolean = false): IO[InProcessHandler] =
    InProcessHandler.start(handlerCommand(instance, log, args, dynamic = false, patient), SandboxFixture.env ++ env, log)
      .flatTap(h => IO(inProcess.add(h)))

  /** `handler …` for this bank as `--instance instance` (or a dynamic member) and the sandbox's handler identity, its
    * status as JSON lines every second and its ready file beside `log`; `args` after (a later one wins).
    */
  private def handlerCommand(instance: String, log: os.Path, args: List[String], dynamic: Boolean, patient: Boolean): List[String] = {
    val member = if (dynamic) Nil else List("--instance", instance)
    // As the sandbox's handler identity, which the fixture's topology grants exactly what a handler of this bank needs.
    val handler = BankFixture.handlerIdentity
    val identity = List("--command-config",
      (if (patient) os.temp(os.read(handler) + "\ntransaction.timeout.ms=60000\n", suffix = ".properties") else handler).toString)
    handlerArgs ++ member ++ identity ++ List("--status-every", "1s", "-o", "json", "--ready-file", BankFixture.readyFile(log).toString) ++ args
  }

  /** Its topics and database, now: for a bank made outside any suite, which no suite's end removes ([[Leftovers]]). */
  def remove: IO[Unit] = {
    val prefix = group.stripSuffix("-handler") // create names the group after the bank's prefix
    SandboxFixture.settings.flatMap(Leftovers.remove(_, _.startsWith(s"$prefix-"), List(Leftovers.database(prefix))))
  }

  /** Ends what the test left running, when it failed too: its loads, and its handlers (killed: what they left
    * prepared is rolled back, as doctor flags a prepared transaction a minute old in any database, in later tests).
    */
  def cleanUp: IO[Unit] = IO.defer {
    import scala.jdk.CollectionConverters._
    loads.asScala.toList.traverse_(_.halt) >>
      IO.blocking(spawned.asScala.filter(_.isAlive()).foreach { p => p.wrapped.destroyForcibly(); p.wrapped.waitFor() }) >>
      inProcess.asScala.toList.parTraverse_(_.end) >>
      rollbackPrepared
  }

  /** Sends `lines` in the background at `rate`, a few seconds' worth at a time, until they run out or the test stops
    * it: a fault test stops the load once its faults are done, so however slow the machine, each fault falls inside it.
    *
    * A chunk whose replay failed is sent once more, whole. A broker's controlled shutdown can leave an idempotent
    * producer's later batches written on the new leader and its earlier ones refused there as out of order; the Java
    * producer then retries them until its delivery timeout (seen in a CI run: 108 s of OutOfOrderSequenceException on
    * the new leader). So the load's replays get a 10 s --timeout (a 40 s delivery timeout) and the chunk goes again: the
    * commands sent twice are the same commands, ids included, which the handler must apply once, as the exactly-once
    * checks assert.
    */
  def load(lines: Seq[String], rate: Int): IO[BankFixture.Load] = {
    val chunks = lines.grouped(rate * 2).toList
    (IO.ref(false), IO.ref(0), IO.deferred[Throwable], IO.ref(Option.empty[FiniteDuration])).flatMapN { (stopping, sent, failed, since) =>
      val attempt = (c: Seq[String]) => send(c, Some(rate), timeout = Some(10.seconds))
      val chunk = (c: Seq[String]) =>
        IO.monotonic.flatMap(t => since.set(Some(t))) >> attempt(c).handleErrorWith(e =>
          IO.println(s"BankFixture.load: a chunk of ${c.size} commands failed, sending it again: ${e.getMessage}") >> attempt(c)) >>
          sent.update(_ + c.size) >> since.set(None)
      chunks.traverse_(c => stopping.get.flatMap(s => IO.unlessA(s)(chunk(c))))
        .onError(e => failed.complete(e).void).start.map { fiber =>
          val load = new BankFixture.Load(this, fiber, stopping, sent, failed, since, lines.size)
          loads.add(load)
          load
        }
    }
  }

  /** How far the handlers' answers have come: the feedback topic's end offsets, summed (it only grows). */
  def answered: IO[Long] = SandboxFixture.written(feedback)

  /** Waits until `more` answers came beyond those there when called, so a fault that follows lands on a load being
    * applied: the answers' count (before, when reached).
    */
  def whileApplying(more: Long, within: FiniteDuration = 90.seconds): IO[(Long, Long)] = {
    // Asked again when a partition's leader is moving (a broker stopped): its end offset cannot be read for a moment.
    val readable = (IO.sleep(100.millis) >> answered.attempt).iterateUntil(_.isRight).map(_.toOption.get)
    readable.timeout(within).flatMap(before => whileAbove(before, more, readable, within))
  }

  private def whileAbove(before: Long, more: Long, readable: IO[Long], within: FiniteDuration): IO[(Long, Long)] =
    readable.iterateUntil(_ >= before + more).timeoutTo(within,
      answered.flatMap(n => IO.raiseError(new AssertionError(s"$n answers on $feedback, not $more beyond $before within $within")))).map(before -> _)

  /** Sends commands (JSON lines as `replay --from-file` reads them) to the commands topic. */
  def send(lines: Seq[String], rate: Option[Int] = None, to: Option[String] = None, timeout: Option[FiniteDuration] = None): IO[Unit] =
    IO.blocking(os.temp(lines.mkString("", "\n", "\n"), suffix = ".jsonl")).flatMap { f =>
      SandboxFixture.cli(List("replay", "--from-file", f.toString, "--to-topic", to.getOrElse(commands)) ++
          rate.toList.flatMap(r => List("--rate", r.toString)) ++ timeout.toList.flatMap(t => List("--timeout", t.toSeconds.toString)): _*)
    }.flatMap(Setup.succeeded("replay the commands")).void

  /** Values as they are (framed or not), keyed by a fresh id each, to the commands topic. */
  def sendValues(values: List[Array[Byte]]): IO[Unit] = SandboxFixture.settings.flatMap { settings =>
    bankops.services.kafka.ChunkProducer.resource(settings.kafka, 30.seconds).use { p =>
      p.send(fs2.Chunk.from(values.map(v =>
            new org.apache.kafka.clients.producer.ProducerRecord[Array[Byte], Array[Byte]](commands, BankFixture.id().getBytes("UTF-8"), v))))(
        (_, _, _) => ()).flatten
    }.void
  }

  /** Every record of a topic as `inspect -o json` prints it. */
  def read(topic: String): IO[List[Json]] =
    Setup.cli(s"inspect $topic", "inspect", "--topic", topic, "-o", "json").map(_.outLines.map(l => parse(l).fold(throw _, identity)))

  /** Every feedback record: (command id, record simple name, value). */
  def feedbackRecords: IO[List[(String, String, Json)]] = read(feedback).map(_.map { j =>
    val c = j.hcursor
    (c.get[String]("key").toOption.get, c.get[String]("record").toOption.get.stripPrefix("nl.openweb.data."), c.downField("value").focus.get)
  })

  /** Every BalanceChanged value, in partition then offset order. */
  def balanceChanges: IO[List[Json]] = read(balance).map(_.flatMap(_.hcursor.downField("value").focus))

  /** Waits until every id has feedback; the feedback so far. */
  def awaitFeedback(ids: Set[String], within: FiniteDuration = 120.seconds): IO[List[(String, String, Json)]] =
    readUntil(feedback, 1.second)(feedbackRecords)(fs => ids.subsetOf(fs.map(_._1).toSet)).timeoutTo(within,
      feedbackRecords.flatMap(fs =>
        IO.raiseError(new AssertionError(s"no feedback for ${(ids -- fs.map(_._1)).size} of ${ids.size} commands within $within"))))

  /** `read` every `every` until `done` holds, `read` being a whole read of `topic` (an `inspect`): it is run again only
    * when the topic's end offsets moved since its last run (one admin call on the test JVM's client), as a wait of a
    * minute was sixty inspects, each with a consumer and TLS handshakes of its own.
    */
  def readUntil[A](topic: String, every: FiniteDuration)(read: IO[A])(done: A => Boolean): IO[A] =
    Ref[IO].of(Option.empty[Long]).flatMap { readAt =>
      val moved = SandboxFixture.written(topic).attempt.flatMap {
        case Right(n) => readAt.getAndSet(Some(n)).map(!_.contains(n))
        case Left(_) => IO.pure(true) // a leader moving (a broker stopped): read, as without the gate
      }
      (IO.sleep(every) >> moved.ifM(read.map(Some(_).filter(done)), IO.none)).untilDefinedM
    }

  def validate: IO[TestShell.Result] = SandboxFixture.cli("balances", "validate", "--topic", balance, "--db-url", dbUrl, "-o", "json")

  /** Waits until a session of this bank's database waits for a lock: a handler's batch held up by rows another
    * transaction (a prepared batch) has written.
    */
  def awaitLockWaiter(within: FiniteDuration = 60.seconds): IO[Unit] = BankFixture.withDb(dbUrl) { c =>
    val deadline = System.nanoTime() + within.toNanos
    def waiting = {
      val rs = c.createStatement().executeQuery(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
      rs.next() && rs.getLong(1) > 0
    }
    while (!waiting) {
      if (System.nanoTime() > deadline) throw new AssertionError(s"no session of $dbUrl waited for a lock within $within")
      Thread.sleep(20)
    }
  }

  /** Rolls back what is left prepared in this bank's database: a test that leaves a batch prepared on purpose settles
    * it, when it fails too (doctor flags a prepared transaction a minute old in any database, in the tests after it).
    */
  def rollbackPrepared: IO[Unit] = query("SELECT gid FROM pg_prepared_xacts WHERE database = current_database()")(_.getString(1))
    .flatMap(gids => BankFixture.withDb(dbUrl)(c => gids.foreach(g => c.createStatement().execute(s"ROLLBACK PREPARED '$g'"))))

  def query[A](sql: String)(row: java.sql.ResultSet => A): IO[List[A]] = BankFixture.withDb(dbUrl) { c =>
    val rs = c.createStatement().executeQuery(sql)
    Iterator.continually(rs).takeWhile(_.next()).map(row).toList
  }

  /** Account number and token of a created account, from its AccountCreationConfirmed. */
  def accounts(feedback: List[(String, String, Json)]): Map[String, (String, String)] = feedback.collect {
    case (id, "AccountCreationConfirmed", v) => id -> (v.hcursor.get[String]("iban").toOption.get, v.hcursor.get[String]("token").toOption.get)
  }.toMap
}

object BankFixture {
  /** The client properties of the sandbox's handler identity, which each bank's topology grants what its handler needs. */
  def handlerIdentity: os.Path =
    bankops.jobs.sandbox.ClientConfig.file(SandboxFixture.layout, bankops.jobs.sandbox.Identities.Handler, scram = false)

  /** A load under way (see [[BankFixture.load]]). */
  final class Load(bank: BankFixture, fiber: FiberIO[Unit], stopping: Ref[IO, Boolean], sent: Ref[IO, Int], failed: Deferred[IO, Throwable],
                   since: Ref[IO, Option[FiniteDuration]], total: Int) {
    /** Whether lines are left to send: a fault test asserts its fault came while they were. */
    def underWay: IO[Boolean] = (stopping.get, sent.get).mapN((s, n) => !s && n < total)

    /** [[BankFixture.whileApplying]], failing at once with the load's own error when a chunk's replay failed: the
      * handlers, given nothing more to apply, would otherwise be blamed for the wait.
      */
    def whileApplying(more: Long): IO[(Long, Long)] =
      IO.race(bank.whileApplying(more),
        failed.get.flatMap(e => IO.raiseError[(Long, Long)](new AssertionError(s"the load stopped: ${e.getMessage}", e))))
        .map(_.merge).handleErrorWith {
          case e: AssertionError => state.flatMap(s => IO.raiseError(new AssertionError(s"${e.getMessage}\n$s", e)))
          case e => IO.raiseError(e)
        }

    /** How far the load came; a chunk that has been sending for long, with where its replay's threads are. */
    private def state: IO[String] = (sent.get, since.get, IO.monotonic).mapN { (n, t, now) =>
      s"the load: $n of $total lines sent" + t.fold("")(t => s", a chunk sending for ${(now - t).toSeconds} s:\n" + BankFixture.replayThreads)
    }

    /** Stops after the chunk being sent; how many lines were sent, the first of those given. */
    def stop: IO[Int] = stopping.set(true) >> fiber.joinWithNever >> sent.get

    /** Stops at once, the chunk being sent cancelled: the test is over. */
    private[BankFixture] def halt: IO[Unit] = stopping.set(true) >> fiber.cancel
  }

  /** A bank of `name` for `test`, what the test left running ended after it ([[BankFixture.cleanUp]]). */
  def using[A](name: String)(test: BankFixture => IO[A]): IO[A] = create(name).flatMap(bank => test(bank).guarantee(bank.cleanUp))

  /** Topics of three partitions each for the bank's records, subjects registered, and a fresh database. */
  def create(name: String): IO[BankFixture] = {
    val prefix = TopologyFixture.unique(name)
    val (commands, feedback, balance) = (s"$prefix-commands", s"$prefix-feedback", s"$prefix-balance")
    def records(names: String*) =
      names.map(n => s"""{"type": "nl.openweb.data.$n", "key": "${if (n == "BalanceChanged") "iban" else "id"}"}""").mkString(", ")
    // Replicated as the bank's own topics are: a broker stopped mid-test takes no partition offline.
    val file = TopologyFiles.write(s"""{"topics": {
      "$commands": {"partitions": 3, "replicationFactor": 3, "config": {"min.insync.replicas": "2"}, "records": [${records("ConfirmAccountCreation", "ConfirmMoneyTransfer")}]},
      "$commands.dlq": {"partitions": 1, "replicationFactor": 3, "config": {"min.insync.replicas": "2"}, "records": []},
      "$feedback": {"partitions": 3, "replicationFactor": 3, "config": {"min.insync.replicas": "2"}, "records": [${records("AccountCreationConfirmed", "AccountCreationFailed", "MoneyTransferConfirmed", "MoneyTransferFailed")}]},
      "$balance": {"partitions": 3, "replicationFactor": 3, "config": {"min.insync.replicas": "2"}, "records": [${records("BalanceChanged")}]}},
      "access": {"User:handler": [
        {"role": "consumer", "topics": ["$commands"], "group": "$prefix-handler"},
        {"role": "consumer", "topics": ["$feedback"]},
        {"role": "transactional-producer", "topics": ["$feedback", "$balance", "$commands.dlq"], "transactionalIdPrefix": "$prefix-handler"}]}}""")
    for {
      _ <- Setup.cli("apply the bank's topology", "apply", "--topology", file.toString)
      url <- database(prefix)
      _ <- withDb(url)(BankTables.install)
    } yield BankFixture(commands, feedback, balance, url, s"$prefix-handler")
  }

  /** An empty database of the test's own on the sandbox's PostgreSQL, named for its unique `prefix` (so [[Leftovers]]
    * drops it when the suite ends); its JDBC URL.
    */
  def database(prefix: String): IO[String] =
    SandboxFixture.settings.map(_.database.url.value).flatMap { base =>
      val db = Leftovers.database(prefix)
      withDb(base)(_.createStatement().execute(s"CREATE DATABASE $db")).as(base.replaceAll("/balancedb", s"/$db"))
    }

  def withDb[A](url: String)(f: java.sql.Connection => A): IO[A] = SandboxFixture.settings.flatMap(withDb(_, url)(f))

  /** With the credentials of `s`, which need not have reached the sandbox through [[SandboxFixture.connection]]. */
  def withDb[A](s: bankops.services.config.ConnectionSettings, url: String)(f: java.sql.Connection => A): IO[A] = IO.blocking {
    val c = java.sql.DriverManager.getConnection(url, s.database.user.value, s.database.password.map(_.value).orNull)
    try f(c)
    finally c.close()
  }

  /** Runs `statements` in one transaction on `c` and prepares it as `gid`, as another deployment's batch nobody here
    * settles; `c` is back in autocommit after.
    */
  def prepare(c: java.sql.Connection, gid: String)(statements: String*): Unit = {
    c.setAutoCommit(false)
    statements.foreach(c.createStatement().execute)
    c.createStatement().execute(s"PREPARE TRANSACTION '$gid'")
    c.setAutoCommit(true)
  }

  def id(): String = UUID.randomUUID().toString

  def creation(id: String, aType: String = "AUTO"): String =
    Json.obj("record" -> Json.fromString("ConfirmAccountCreation"), "key" -> Json.fromString(id),
      "value" -> Json.obj("id" -> Json.fromString(id), "a_type" -> Json.fromString(aType))).noSpaces

  def transfer(id: String, token: String, amount: Long, from: String, to: String, description: String = "test"): String =
    Json.obj("record" -> Json.fromString("ConfirmMoneyTransfer"), "key" -> Json.fromString(id),
      "value" -> Json.obj("id" -> Json.fromString(id), "token" -> Json.fromString(token), "amount" -> Json.fromLong(amount),
        "from" -> Json.fromString(from), "to" -> Json.fromString(to), "description" -> Json.fromString(description))).noSpaces

  /** A handler's fault point `point` held until the test releases it (`BANKOPS_HANDLER_PAUSE=POINT:FILE`): what should
    * happen meanwhile is waited for, however slow the machine, instead of fitting in a timed pause.
    */
  final class Hold(point: String) {
    private val file = os.temp.dir() / "release"
    val env: Map[String, String] = Map("BANKOPS_HANDLER_PAUSE" -> s"$point:$file")
    val release: IO[Unit] = IO.blocking(os.write.over(file, ""))
  }

  def hold(point: String): Hold = new Hold(point)

  /** Stops a spawned handler: SIGTERM (finish the batch, exit 0) or SIGKILL. */
  def signal(p: os.SubProcess, name: String): IO[Int] =
    IO.blocking(os.proc("kill", s"-$name", p.wrapped.pid().toString).call(check = false)) >> IO.blocking { p.waitFor(60000); p.exitCode() }

  /** The highest `commands` a handler's JSON status lines in `log` report: what it applied. */
  def appliedBy(log: os.Path): Long =
    os.read.lines(log).flatMap(l => parse(l).toOption.flatMap(_.hcursor.get[Long]("commands").toOption)).maxOption.getOrElse(0L)

  /** Waits until the handler logging to `log` has applied commands: ready, it may still wait for the group to give
    * it partitions.
    */
  def awaitApplying(log: os.Path, within: FiniteDuration = 90.seconds): IO[Unit] = (IO.sleep(200.millis) >> IO.blocking(appliedBy(log))).iterateUntil(
    _ > 0).timeoutTo(within,
    IO.raiseError(new AssertionError(s"no command applied within $within:\n${tail(log)}"))).void

  /** Where a handler spawned with `log` declares it consumes (`--ready-file`): beside the log. */
  def readyFile(log: os.Path): os.Path = log / os.up / s"${log.last}.ready"

  /** Waits until `handler` declares it consumes: its ready file names its pid (one a crashed handler left names
    * another). Fails at once, with the log, when it ended before that.
    */
  def awaitReady(handler: os.SubProcess, log: os.Path, within: FiniteDuration = 90.seconds): IO[Unit] =
    awaitReady(handler.wrapped.pid(), IO.blocking(handler.isAlive()), IO.blocking(handler.exitCode()), log, within)

  /** As above, for a handler in this JVM: its ready file names this JVM's pid. */
  def awaitReady(handler: InProcessHandler, log: os.Path): IO[Unit] =
    awaitReady(ProcessHandle.current.pid, handler.isAlive, handler.exited(1.second), log, 90.seconds)

  private def awaitReady(pid: Long, alive: IO[Boolean], exitCode: IO[Int], log: os.Path, within: FiniteDuration): IO[Unit] = {
    val file = readyFile(log)
    val ready = IO.blocking(os.isFile(file) && parse(os.read(file)).toOption.flatMap(_.hcursor.get[Long]("pid").toOption).contains(pid))
      .flatMap { mine =>
        if (mine) IO.pure(true)
        else alive.ifM(IO.pure(false),
          exitCode.flatMap(code =>
            IO.raiseError(new AssertionError(s"handler $pid ended (exit $code) before it was consuming:\n${tail(log)}"))))
      }
    (IO.sleep(100.millis) >> ready).iterateUntil(identity).timeoutTo(within,
      IO.raiseError(new AssertionError(s"handler $pid not consuming within $within:\n${tail(log)}"))).void
  }

  /** Waits until the log has a line containing `text`. */
  def awaitLog(log: os.Path, text: String, within: FiniteDuration = 90.seconds): IO[Unit] =
    (IO.sleep(100.millis) >> IO.blocking(os.read(log))).iterateUntil(_.contains(text)).timeoutTo(within,
      IO.raiseError(new AssertionError(s"no '$text' in the log within $within:\n${tail(log)}"))).void

  /** The stacks of this JVM's threads that run a replay (the fixture's load runs in process) or a Kafka producer. */
  def replayThreads: String = {
    import scala.jdk.CollectionConverters._
    Thread.getAllStackTraces.asScala.collect {
      case (t, frames) if t.getName.contains("producer") || frames.exists(_.getClassName.startsWith("bankops.jobs.replay")) =>
        (s"  ${t.getName} (${t.getState})" +: frames.take(25).map(f => s"    at $f")).mkString("\n")
    }.mkString("\n")
  }

  /** `io`, a failed assertion of it told with the handlers' logs: what they did while it waited. */
  def explained[A](logs: os.Path*)(io: IO[A]): IO[A] = io.adaptError { case e: AssertionError =>
    new AssertionError((e.getMessage :: logs.toList.map(l => s"== ${l.last}:\n${tail(l)}")).mkString("\n"), e)
  }

  /** Lines of a handler log, for assertion messages. */
  def tail(log: os.Path): String = if (!os.exists(log)) ""
  else {
    // The once-a-second status lines would bury what matters: the handler's own lines (warnings, errors) are kept.
    val (status, said) = os.read.lines(log).partition(l => parse(l).toOption.exists(_.hcursor.downField("commands").succeeded))
    (said.takeRight(40) ++ status.takeRight(5)).mkString("\n")
  }

  def all[A](ios: List[IO[A]]): IO[List[A]] = ios.sequence
}
