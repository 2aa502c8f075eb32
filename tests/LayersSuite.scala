package bankops

import bankops.support.Repo

/** The layers of commands/ import only downward: base, then services (in the order below), then jobs, then the
  * job list and Main; a job never imports another job. Read from the sources, so a new import that points the
  * wrong way fails here rather than in review.
  */
class LayersSuite extends munit.FunSuite {
  import LayersSuite._

  test("commands/ imports only downward, and no job imports another job") {
    val root = Repo.root / "commands"
    val files = os.walk(root).filter(_.ext == "scala").map(p => p.relativeTo(root).toString -> os.read(p)).toMap
    assert(files.size > 50, files.keys)
    assertEquals(violations(files), Nil)
  }

  test("no top-layer file runs a job by building its command line; no bank topic or group name is written outside services/bank") {
    val root = Repo.root / "commands"
    val files = os.walk(root).filter(_.ext == "scala").map(p => p.relativeTo(root).toString -> os.read(p)).toMap
    assertEquals(commandLines(files), Nil)
    assertEquals(bankNames(files), Nil)
  }

  test("those checks find a job run through the CLI and a literal topic name") {
    val files = Map(
      "Demo.scala" -> "package bankops\nval x = Cli.run(List(\"balances\", \"validate\"), shell, Jobs.all)\n",
      "Main.scala" -> "package bankops\nCli.run(args, shell, Jobs.all)\n",
      "jobs/latency/LatencyOptions.scala" ->
        "package bankops.jobs.latency\nval t = TopicFlags.option(\"feedback-topic\", \"x\").withDefault(\"command_feedback\")\n",
      "jobs/heartbeat/HeartbeatCommand.scala" -> "package bankops.jobs.heartbeat\nval job = Job(\n  \"heartbeat\",\n  \"x\")\n",
      "services/bank/BankNames.scala" -> "package bankops.services.bank\nval Feedback = \"command_feedback\"\n"
    )
    assertEquals(commandLines(files), List("Demo.scala: runs a job through the CLI (Cli.run / Jobs.all): call its typed entry point"))
    assertEquals(bankNames(files), List("jobs/latency/LatencyOptions.scala: \"command_feedback\" is a bank name: use services.bank.BankNames"))
  }

  test("services/ prints nothing and chooses no exit code") {
    val root = Repo.root / "commands"
    val files = os.walk(root).filter(_.ext == "scala").map(p => p.relativeTo(root).toString -> os.read(p)).toMap
    assertEquals(servicesShowing(files), Nil)
  }

  test("services/ parses no command line: decline lives in flags/ and the jobs") {
    val root = Repo.root / "commands"
    val files = os.walk(root).filter(_.ext == "scala").map(p => p.relativeTo(root).toString -> os.read(p)).toMap
    assertEquals(servicesParsing(files), Nil)
    assertEquals(
      servicesParsing(Map(
          "services/kafka/StartAt.scala" -> "package bankops.services.kafka\nimport com.monovore.decline.Argument\n",
          "services/load/LoadKind.scala" -> "package bankops.services.load\n/** decline's Opts, said in a comment */\n",
          "flags/SourceOpts.scala" -> "package bankops.flags\nimport com.monovore.decline.Opts\n"
        )),
      List("services/kafka/StartAt.scala: parses the command line (com.monovore.decline): its flags go in flags/"))
  }

  test("that check finds a service that prints, emits or picks an exit code, and leaves jobs and comments alone") {
    val files = Map(
      "services/plan/TopicSync.scala" ->
        "package bankops.services.plan\ndef p(shell: Shell) = shell.info(\"x\") >> OutputFormat.emit(f, shell)(Nil, \"\")\n",
      "services/plan/SchemaFlow.scala" -> "package bankops.services.plan\nimport cats.effect.{ExitCode, IO}\ndef e = Exit.Difference\n",
      "services/plan/AccessSync.scala" -> "package bankops.services.plan\ndef code(e: Throwable): Int = Failure.ExitUnavailable\n",
      "services/kafka/Doc.scala" -> "package bankops.services.kafka\n/** shell.info is the job's: ExitCode too */\nval x = 1 // Exit.Ok\n",
      "jobs/topics/TopicsCommand.scala" -> "package bankops.jobs.topics\nshell.info(\"x\").as(ExitCode.Success)\n"
    )
    assertEquals(servicesShowing(files),
      List(
        "services/plan/AccessSync.scala: chooses an exit code (Failure.ExitUnavailable): the job does",
        "services/plan/SchemaFlow.scala: chooses an exit code (ExitCode): the job does",
        "services/plan/SchemaFlow.scala: chooses an exit code (Exit.Difference): the job does",
        "services/plan/TopicSync.scala: prints (shell.info): return it as data for the job to show",
        "services/plan/TopicSync.scala: prints (OutputFormat.emit): return it as data for the job to show"
      ))
  }

  test("services/records makes no Kafka client: it decodes, filters and writes what services/kafka reads") {
    val root = Repo.root / "commands"
    val files = os.walk(root).filter(_.ext == "scala").map(p => p.relativeTo(root).toString -> os.read(p)).toMap
    assert(files.keys.exists(_.startsWith("services/records/")), files.keys)
    assertEquals(recordsClients(files), Nil)
  }

  test("that check finds a client in services/records, and leaves a consumer's record, comments and services/kafka alone") {
    val files = Map(
      "services/records/Reader.scala" ->
        "package bankops.services.records\nimport org.apache.kafka.clients.consumer.{ConsumerRecord, KafkaConsumer}\nimport fs2.kafka.KafkaProducer\n",
      "services/records/Decoder.scala" ->
        "package bankops.services.records\nimport org.apache.kafka.clients.consumer.ConsumerRecord\n/** not a KafkaConsumer */\nval s = \"Admin\"\n",
      "services/kafka/TopicReader.scala" -> "package bankops.services.kafka\nimport org.apache.kafka.clients.consumer.KafkaConsumer\n"
    )
    assertEquals(recordsClients(files),
      List(
        "services/records/Reader.scala: makes a Kafka client (KafkaConsumer): clients live in services/kafka",
        "services/records/Reader.scala: makes a Kafka client (fs2.kafka): clients live in services/kafka",
        "services/records/Reader.scala: makes a Kafka client (KafkaProducer): clients live in services/kafka"
      ))
  }

  test("the check finds what points the wrong way") {
    val files = Map(
      "base/Shell.scala" -> "package bankops.base\nimport bankops.services.config.Secrets\n",
      "services/avro/WireFormat.scala" -> "package bankops.services.avro\nval x = bankops.services.kafka.TopicReader\n",
      "services/kafka/Reader.scala" -> "package bankops.services.kafka\nimport bankops.jobs.inspect.InspectFormat\n",
      "services/records/RecordDecoder.scala" -> "package bankops.services.records\nimport bankops.services.kafka.TopicReader.Raw\n",
      "jobs/replay/ReplayCommand.scala" ->
        "package bankops.jobs.replay\nimport bankops.jobs.inspect.{RecordDecoder, SourceOpts}\nimport bankops.services.kafka.TopicReader\n",
      "jobs/heartbeat/HeartbeatCommand.scala" -> "package bankops.jobs.heartbeat\nimport bankops.Jobs\n",
      "jobs/balances/BalancesCommand.scala" -> "package bankops.jobs.balances\nimport bankops.jobs._\nimport bankops.services._\n",
      "extra/Thing.scala" -> "package bankops.extra\n",
      "flags/PlanFlags.scala" -> "package bankops.flags\nimport bankops.services.plan.SchemaFlow\nimport bankops.jobs.deploy.DeployCommand\n",
      "services/plan/SchemaFlow.scala" -> "package bankops.services.plan\nimport bankops.flags.PlanFlags\n"
    )
    assertEquals(violations(files),
      List(
        "base/Shell.scala: base imports bankops.services.config",
        "extra/Thing.scala: not in a layer (base/, services/<name>/, flags/, jobs/<name>/ or commands/ itself)",
        "flags/PlanFlags.scala: flags imports bankops.jobs.deploy",
        "jobs/balances/BalancesCommand.scala: jobs.balances imports bankops.jobs",
        "jobs/heartbeat/HeartbeatCommand.scala: jobs.heartbeat imports bankops.Jobs",
        "jobs/replay/ReplayCommand.scala: jobs.replay imports bankops.jobs.inspect",
        "services/avro/WireFormat.scala: services.avro imports bankops.services.kafka",
        "services/kafka/Reader.scala: services.kafka imports bankops.jobs.inspect",
        "services/plan/SchemaFlow.scala: services.plan imports bankops.flags",
        "services/records/RecordDecoder.scala: services.records imports bankops.services.kafka"
      ))
  }
}

object LayersSuite {

  /** Services, lowest first: each may import base and the services before it. */
  val services: List[String] = List("config", "avro", "bank", "contracts", "registry", "records", "kafka", "plan", "load")

  private sealed trait Layer { def name: String }
  private case object Base extends Layer { val name = "base" }
  private case object FlagsLayer extends Layer { val name = "flags" }
  private final case class Service(s: String) extends Layer { val name = s"services.$s" }
  private final case class JobLayer(j: String) extends Layer { val name = s"jobs.$j" }
  private case object Top extends Layer { val name = "bankops" }

  /** Where a file sits (its path below commands/), or where a reference points (`bankops.services.kafka` ...). */
  private def layerOf(parts: List[String]): Option[Layer] = parts match {
    case "base" :: _ => Some(Base)
    case "flags" :: _ => Some(FlagsLayer)
    case "services" :: s :: _ if services.contains(s) => Some(Service(s))
    case "jobs" :: j :: _ => Some(JobLayer(j))
    case List(_) => Some(Top)
    case _ => None
  }

  /** May code in `from` use code in `to`? */
  private def allowed(from: Layer, to: Layer): Boolean = (from, to) match {
    case (a, b) if a == b => true
    case (_, Base) => true
    case (Base, _) => false
    case (Service(a), Service(b)) => services.indexOf(b) < services.indexOf(a)
    case (Service(_), _) => false
    case (FlagsLayer, Service(_)) => true
    case (FlagsLayer, _) => false
    case (JobLayer(_), Service(_) | FlagsLayer) => true
    case (JobLayer(_), _) => false
    case (Top, _) => true
  }

  // `bankops.jobs` or `bankops.services` alone (a wildcard import, then relative names) counts as all of that layer.
  private val Reference = """\bbankops\.(base|flags|services\.[a-z]+|jobs\.[a-z]+|services|jobs|[A-Z][A-Za-z0-9_]*)\b""".r

  /** Top-layer files other than Main run jobs through their typed entry points, never by composing a command line. */
  def commandLines(files: Map[String, String]): List[String] =
    files.toList.sortBy(_._1).collect {
      case (path, text)
          // AotTraining trains the distribution's AOT cache on command lines, so that the CLI's parsing is in it too.
          if !path.contains('/') && path != "Main.scala" && path != "Jobs.scala" && path != "AotTraining.scala" &&
            """\bCli\.run\b|\bJobs\.all\b|\bMain\.run\b""".r.findFirstIn(code(text)).isDefined =>
        s"$path: runs a job through the CLI (Cli.run / Jobs.all): call its typed entry point"
    }

  /** The bank's topic and group names, from their one home. */
  private val names: Set[String] = {
    import bankops.services.bank.BankNames._
    Set(Commands, Feedback, BalanceChanged, Heartbeat, DeadLetters, HandlerGroup)
  }

  /** Literals that spell a bank name but mean something else: a job's or a load kind's name, a JSON field. */
  private val notNames: Set[(String, String)] = Set(
    "jobs/heartbeat/HeartbeatCommand.scala" -> "heartbeat", // the job's name
    "jobs/doctor/JobNeeds.scala" -> "heartbeat", // the job's name, in what each job needs
    "services/load/LoadKind.scala" -> "heartbeat", // --kind heartbeat
    "services/load/LoadKind.scala" -> "commands", // --kind commands
    "jobs/handler/HandlerStats.scala" -> "commands" // the status line's count of commands
  )

  /** A literal bank topic or group name outside services/bank, where a rename would miss it. */
  def bankNames(files: Map[String, String]): List[String] =
    files.toList.sortBy(_._1).filterNot(_._1.startsWith("services/bank/")).flatMap { case (path, text) =>
      val comments = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "")
      "\"([^\"\n]*)\"".r.findAllMatchIn(comments).map(_.group(1)).filter(names).filterNot(n => notNames((path, n))).toList.distinct
        .map(n => s"$path: \"$n\" is a bank name: use services.bank.BankNames")
    }

  private val Shows = """\b(shell\.(?:println|print|info|warn)|OutputFormat\.(?:emit|print)|StepSummary\.(?:write|append)|Rendered\.show)\b""".r
  private val Exits = """\b(ExitCode|Exit\.[A-Za-z]+|Failure\.Exit[A-Za-z]+)\b""".r

  /** Services return values (plans, reports, errors as data, what to show as [[bankops.base.Rendered]]): a job shows
    * them and chooses its exit code.
    */
  def servicesShowing(files: Map[String, String]): List[String] =
    files.toList.sortBy(_._1).filter(_._1.startsWith("services/")).flatMap { case (path, text) =>
      val c = code(text)
      Shows.findAllMatchIn(c).map(_.group(1)).toList.distinct.map(m => s"$path: prints ($m): return it as data for the job to show") ++
        Exits.findAllMatchIn(c).map(_.group(1)).toList.distinct.map(m => s"$path: chooses an exit code ($m): the job does")
    }

  private val Clients = """\b(KafkaConsumer|KafkaProducer|AdminClient|Admin|fs2\.kafka|org\.apache\.kafka\.clients\.(?:admin|producer))\b""".r

  /** `services/records` turns a record's bytes into decoded values and JSON lines and filters them; the clients that read
    * and write them (`KafkaClients`, `TopicReader`, `ChunkProducer`) are `services/kafka`'s, the layer above. The layer
    * order keeps records from importing those; this keeps it from making a client of its own. A consumer's record
    * (`ConsumerRecord`) is data, and allowed.
    */
  def recordsClients(files: Map[String, String]): List[String] =
    files.toList.sortBy(_._1).filter(_._1.startsWith("services/records/")).flatMap { case (path, text) =>
      Clients.findAllMatchIn(code(text)).map(_.group(1)).toList.distinct.map(c => s"$path: makes a Kafka client ($c): clients live in services/kafka")
    }

  /** Services take values: the flags that make them, and decline's `Argument` for their types, are in flags/. */
  def servicesParsing(files: Map[String, String]): List[String] =
    files.toList.sortBy(_._1).filter(_._1.startsWith("services/")).collect {
      case (path, text) if code(text).contains("com.monovore.decline") =>
        s"$path: parses the command line (com.monovore.decline): its flags go in flags/"
    }

  private def code(text: String): String =
    text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "").replaceAll("\"[^\"\n]*\"", "\"\"")

  /** One line per file and package it should not import, sorted. */
  def violations(files: Map[String, String]): List[String] =
    files.toList.sortBy(_._1).flatMap { case (path, text) =>
      layerOf(path.split('/').toList) match {
        case None => List(s"$path: not in a layer (base/, services/<name>/, flags/, jobs/<name>/ or commands/ itself)")
        case Some(from) =>
          // Comments and strings may name anything; only code counts.
          val code = text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\n]*", "").replaceAll("\"[^\"\n]*\"", "\"\"")
          Reference.findAllMatchIn(code).map(_.group(1)).toList.distinct.flatMap { target =>
            val parts = target.split('.').toList
            val to = parts match {
              case List("services") => Some(Service(services.last))
              case List("jobs") => Some(JobLayer("*"))
              case p :: _ if p.head.isUpper => Some(Top)
              case _ => layerOf(parts)
            }
            to.filterNot(allowed(from, _)).map(_ => s"$path: ${from.name} imports bankops.$target")
          }
      }
    }
}
