package bankops.jobs.handler

import cats.effect.{ExitCode, IO, Resource, SyncIO}
import cats.syntax.all._
import com.monovore.decline.Opts
import io.circe.Json

import scala.concurrent.duration._

import bankops.base.{Exit, Failure, Flags, Job, OutputFormat, ReadyFile, Shell, Shown}
import bankops.flags.{BankTopicFlags, ConnectionOpts, TopicFlags, TopologyFlags}
import bankops.services.bank.BankNames
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections, Database}
import bankops.services.kafka.{Denied, Doing, KafkaClients}
import bankops.services.registry.{RegistryClient, SchemaResolver}
import bankops.services.contracts.SubjectNameStrategy

/** `bankops handler`: the bank's command handler, exactly once (see [[HandlerLoop]]). */
object HandlerCommand {

  /** The topics the handler reads (`commands`) and writes, by role: built by name in one place, never by position. */
  final case class Topics(commands: String = BankNames.Commands, feedback: String = BankNames.Feedback, balance: String = BankNames.BalanceChanged,
                          deadLetterTopic: Option[String] = None) {
    /** As its flag says: the commands topic's name + .dlq unless named. */
    def deadLetter: String = deadLetterTopic.getOrElse(s"$commands.dlq")
    def written: List[String] = List(feedback, balance, deadLetter)
  }

  /** Every field at its flag's default: built by name, or refined with `copy`. */
  final case class Options(flags: ConnectionFlags = ConnectionFlags(), group: String = BankNames.HandlerGroup, topics: Topics = Topics(),
                           instance: Option[String] = None, strategy: Option[SubjectNameStrategy] = None, maxBatch: Int = 1000,
                           statusEvery: FiniteDuration = 10.seconds, output: Option[OutputFormat] = None, timeout: FiniteDuration = 30.seconds,
                           readyFile: Option[os.Path] = None)

  private val D = Options()

  private val topicOpts: Opts[Topics] = (
    BankTopicFlags.opts(BankTopicFlags.Commands("Topic of the commands", name = "topic"), BankTopicFlags.Feedback("Topic for command feedback"),
      BankTopicFlags.Balance("Topic for BalanceChanged")),
    TopicFlags.option("dead-letter-topic",
      "Topic for records the handler cannot read, kept as they came with headers saying why " +
        "(default: the commands topic's name + .dlq).").orNone
  ).mapN((bank, dlq) =>
    Topics(commands = bank.commands, feedback = bank.feedback, balance = bank.balance, deadLetterTopic = dlq))

  private val opts: Opts[Options] = (
    ConnectionOpts.opts,
    Opts.option[String]("group", s"Consumer group (default ${BankNames.HandlerGroup}); handlers in one group share the partitions.",
      metavar = "GROUP")
      .withDefault(D.group),
    topicOpts,
    Opts.option[String]("instance",
      "This handler's stable name: GROUP-NAME is its Kafka transactional id and static group member id, so a restart " +
        "under the same name takes its partitions back and ends the transaction a crash left open at once (default: host and pid, a dynamic " +
        "member; after a crash its partitions move after 10 s). Names must differ between running handlers.", metavar = "NAME")
      .mapValidated(n =>
        if (n.matches("[A-Za-z0-9._-]+")) n.validNel else s"--instance must be letters, digits, '.', '_' or '-', not '$n'".invalidNel).orNone,
    TopologyFlags.strategy,
    Flags.positive[Int]("max-batch", "Most commands applied in one batch (one database and one Kafka transaction; default 1000).").withDefault(
      D.maxBatch),
    Flags.duration("status-every", "How often to report figures (default 10s).").withDefault(D.statusEvery),
    OutputFormat.opts,
    Flags.timeout(D.timeout),
    Opts.option[String]("ready-file",
      "Write FILE once this handler consumes (its transactions initialised, a batch a crash left prepared settled), as JSON " +
        "with its pid and transactional id; removed when it stops. For a supervisor or a test to wait on.", metavar = "FILE")
      .map(os.Path(_, os.pwd)).orNone
  ).mapN((flags, group, topics, instance, strategy, maxBatch, statusEvery, output, timeout, readyFile) =>
    Options(flags = flags, group = group, topics = topics, instance = instance, strategy = strategy, maxBatch = maxBatch, statusEvery = statusEvery,
      output = output, timeout = timeout, readyFile = readyFile))

  def run(o: Options)(shell: Shell): IO[ExitCode] =
    o.readyFile.traverse_(ReadyFile.check("--ready-file", _)) >> Connections.load(o.flags, shell).flatMap { settings =>
      RegistryClient.resource(settings, o.timeout).use(registry => serve(o, settings, registry, shell))
    }

  private def serve(o: Options, settings: ConnectionSettings, registry: RegistryClient, shell: Shell): IO[ExitCode] = {
    val strategy = o.strategy.getOrElse(SubjectNameStrategy.TopicRecord)
    val overridden = HandlerCommand.OwnKeys.filter(settings.kafka.properties.contains).toList.sorted
    for {
      // The keys the handler's exactly-once rests on are its own: a client properties file that set them would have
      // overridden them silently (another group's transactional id, auto-commit, read_uncommitted).
      _ <- IO.raiseWhen(overridden.nonEmpty)(Failure.BadInput(
          s"the client properties (${settings.kafka.commandConfig.fold("--command-config")(c => s"${c.value} from ${c.source.describe}")}) set " +
            s"${overridden.mkString(", ")}, which the handler sets itself (--group, --instance, exactly once): remove them"))
      // A batch's database work is cut off after BatchBudget: a shorter transaction timeout would fence the handler first.
      _ <- settings.kafka.properties.get("transaction.timeout.ms").filterNot(_.toLongOption.exists(_ >= 10000)).traverse_(t =>
        IO.raiseError(Failure.BadInput(s"the client properties set transaction.timeout.ms=$t: the handler needs 10000 or more (a batch's " +
            s"database work may take ${LedgerDb.BatchBudget.toSeconds} s)")))
      _ <- KafkaClients.partitionCounts(settings.kafka, o.topics.commands :: o.topics.written, o.timeout,
        Some(Doing.writing(List(o.topics.balance, o.topics.deadLetter)).andReading(List(o.topics.commands, o.topics.feedback))))
      outputs <- Outputs.resolve(registry, strategy, o.topics)
      // Reached once at start, so an unreachable database is one line naming it (exit 3); later it reconnects on its own.
      _ <- Database.session(settings.database, "handler", o.timeout).use_
      instance = o.instance.getOrElse(s"${java.net.InetAddress.getLocalHost.getHostName}-${ProcessHandle.current.pid}")
      json = OutputFormat.resolve(o.output, shell) == OutputFormat.Json
      // What the handler does, for the line naming what Kafka's authorizer refused: it reads its commands in its group
      // and recovers prepared batches by reading the feedback topic; it writes its outputs in transactions.
      transactionalId = s"${o.group}-$instance"
      applying = Doing.writingTransactionally(transactionalId, o.topics.written, Some(o.group))
      polling = Doing.readingInGroup(o.group, List(o.topics.commands)).copy(transactionalId = Some(transactionalId))
      code <- (instanceLock(o, settings) >> shell.stops(heard(shell)),
        KafkaClients.groupConsumer(settings.kafka, o.group, o.instance.map(i => s"${o.group}-$i"), o.timeout, o.maxBatch),
        KafkaClients.javaConsumer(settings.kafka, o.timeout, few = Some(1)),
        KafkaClients.javaConsumer(settings.kafka, o.timeout, few = Some(1), uncommitted = true)).tupled.use {
        case (stopping, consumer, markers, passedMarkers) =>
          val decoder = new CommandDecoder(new SchemaResolver(registry))
          val log = (line: String) => shell.err.println(line)
          val parts = HandlerParts(consumer, new KafkaOutcome(markers, o.topics.feedback, passedMarkers), decoder, outputs, new HandlerStats, log,
            HandlerFaults(shell.env, log), stopping, HandlerFaults.draws(shell.env))
          val report = (previous: HandlerStatus, now: HandlerStatus) =>
            if (json) shell.println(now.json(previous).noSpaces) else shell.info(s"handler: ${now.line(previous)}")
          HandlerLoop.resource(HandlerNames(o.group, o.topics.commands), parts, producer(settings, s"${o.group}-$instance", o.timeout),
            ledgerDb(settings, o.timeout, stopping)).use { loop =>
            IO.blocking(loop.start()).as(true).recover { case _: HandlerStopping => false }.adaptError(Denied.tag(polling)).flatMap {
              case false => shell.info("handler: stopped before it started (SIGTERM)").as(Exit.Ok)
              case true =>
                // Declared once it consumes, removed when it stops; the line says the same to a person.
                val ready =
                  o.readyFile.fold(Resource.unit[IO])(ReadyFile.held("--ready-file", _, "transactionalId" -> Json.fromString(transactionalId),
                      "group" -> Json.fromString(o.group), "topic" -> Json.fromString(o.topics.commands)))
                ready.surround(shell.info(
                  s"handler: applying ${o.topics.commands} as group ${o.group} (transactional id ${o.group}-$instance), " +
                    s"publishing to ${o.topics.feedback} and ${o.topics.balance}") >>
                  HandlerRunner(loop, decoder, IO(stopping()), o.statusEvery, report, shell, polling, applying))
            }
          }
      }.adaptError(KafkaClients.denied(settings.kafka, applying)).adaptError(KafkaClients.unreachable(settings.kafka, o.timeout)).adaptError {
        case e if HandlerLoop.overrun(e) =>
          Failure.Unavailable(
            s"Kafka fenced transactional id ${o.group}-$instance ${HandlerLoop.OverrunRetries + 1} times in a row: its transactions outlive " +
              "transaction.timeout.ms (a stalled host or database), or another process uses the id: this one stops", e)
        case e if HandlerLoop.fenced(e) =>
          Failure.Unavailable(
            s"another handler took this one's place as ${o.group}-$instance (Kafka fenced its transactional id or member id): this one stops", e)
      }
    } yield code
  }

  /** The handler's transactional producer, its transactions initialized: that ends one our previous producer left open.
    * A producer whose initialization fails is closed, not leaked.
    */
  private def producer(settings: ConnectionSettings, transactionalId: String, timeout: FiniteDuration): Resource[SyncIO, HandlerLoop.Producer] =
    Resource.make(SyncIO(KafkaClients.transactionalProducer(settings.kafka, transactionalId, timeout)))(p =>
      SyncIO(scala.util.Try(p.close(java.time.Duration.ofSeconds(5)))).void).evalTap(p => SyncIO(p.initTransactions()))

  /** Said as the first SIGTERM or Ctrl-C arrives, while the batch in hand is finished. */
  private def heard(shell: Shell)(signal: String): Unit = shell.err.println(s"handler: $signal: stopping once the batch in hand is finished")

  /** A connection for the batches. A row lock is waited for 5 s at most: a dead handler's prepared batch holds its accounts
    * until recovery settles it.
    */
  private def ledgerDb(settings: ConnectionSettings, timeout: FiniteDuration, stopping: () => Boolean): Resource[SyncIO, LedgerDb] =
    // Set in autocommit, before LedgerDb opens its transactions: a SET inside one would be undone by its rollback.
    Resource.make(SyncIO(Database.open(settings.database, "handler", timeout)))(c => SyncIO(scala.util.Try(c.close())).void)
      .evalTap(c => SyncIO(c.createStatement().execute("SET lock_timeout = '5s'")))
      .map(new LedgerDb(_, stopping))

  /** Held while a handler with a stable name runs (see [[HandlerLoop.instanceKey]]): a second one is refused at start. */
  private def instanceLock(o: Options, settings: ConnectionSettings): Resource[IO, Unit] = o.instance match {
    case None => Resource.unit
    case Some(name) =>
      Database.session(settings.database, "handler", o.timeout).evalMap { c =>
        IO.blocking {
          val st = c.prepareStatement("SELECT pg_try_advisory_lock(?)")
          st.setLong(1, HandlerLoop.instanceKey(o.group, name))
          val rs = st.executeQuery()
          rs.next() && rs.getBoolean(1)
        }.flatMap(held =>
          IO.raiseUnless(held)(Failure.BadInput(s"another handler is running as --instance $name of group ${o.group} " +
              "(it holds that name's lock in the database): stop it first, or give this one another name")))
      }
  }

  /** Client properties the handler sets itself and a command-config may not set. */
  val OwnKeys: Set[String] = Set("group.id", "group.instance.id", "transactional.id", "isolation.level", "enable.auto.commit",
    "enable.idempotence")

  /** The handler serves until it is stopped; it says what it does on stderr as it runs, and its report is how it stopped. */
  val job: Job[Options, ExitCode] = Job(
    "handler",
    "The bank's command handler: applies commands to PostgreSQL and publishes feedback and balance changes, exactly " +
      "once; records it cannot read go to a dead-letter topic.",
    "bankops handler --group bankops-command-handler --instance handler-1",
    opts
  )((o, shell) => run(o)(shell), (_, code) => Shown.exit(code))
}
