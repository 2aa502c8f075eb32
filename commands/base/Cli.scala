package bankops.base

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.{Command, Help, Opts}

/** The `bankops` command: parses arguments with decline and runs the chosen job,
  * turning every failure into one line on stderr and the documented exit code.
  */
object Cli {

  private val header =
    "Operator toolkit for an event-sourced bank on Kafka, a Confluent-compatible schema registry and PostgreSQL."

  private sealed trait Action
  private case object PrintVersion extends Action
  private final case class RunJob(run: Shell => IO[ExitCode]) extends Action

  private def command(jobs: List[Job[_, _]]): Command[Action] = {
    val version = Opts.flag("version", "Print the version and exit.").as(PrintVersion: Action)
    val verbose = Opts.flag("verbose", "Log details and show stack traces on errors (also accepted after the subcommand).").orFalse
    val job = jobs.map(_.subcommand).reduce(_ orElse _).map(RunJob(_): Action)
    Command("bankops", header)(version orElse (verbose, job).mapN((_, j) => j))
  }

  /** The whole command line's shape, for shell completion and the reference. */
  def tree(jobs: List[Job[_, _]]): CommandTree = CommandTree.of(command(jobs))

  /** What `bankops PATH --help` prints (PATH: a job and its subcommands). */
  def help(jobs: List[Job[_, _]], path: List[String]): String =
    command(jobs).parse(path :+ "--help", Map.empty).fold(_.toString, _ => "")

  def run(args: List[String], shell: Shell, jobs: List[Job[_, _]]): IO[ExitCode] = {
    // --verbose is global; take it wherever it appears.
    val rest = args.filterNot(_ == "--verbose")
    // No job at all is a question, not a mistake: the overview of jobs, as --help shows it.
    command(jobs).parse(if (rest.isEmpty) List("--help") else rest, shell.env) match {
      case Left(help) if help.errors.isEmpty => shell.println(help.toString).as(Exit.Ok)
      case Left(help) => usageError(help, shell)
      case Right(PrintVersion) => shell.println(Version.line).as(Exit.Ok)
      case Right(RunJob(action)) =>
        IO(rest.headOption.foreach(StartInterrupt.running)) >> IO.defer(action(shell)).handleErrorWith(report(_, shell))
    }
  }

  private def usageError(help: Help, shell: Shell): IO[ExitCode] = {
    // A value quoted in a refusal comes straight from the command line: its line breaks are shown, not printed.
    shell.info(s"bankops: ${Failures.oneLine(help.errors.mkString("; "))} (run with --help for usage)").as(Exit.BadInput)
  }

  /** One line, the documented exit code, and the stack trace only when asked for. */
  def report(error: Throwable, shell: Shell): IO[ExitCode] = {
    val (message, code) = Failures.classify(error)
    val trace = if (shell.verbose) IO.blocking {
      val text = new java.io.StringWriter
      error.printStackTrace(new java.io.PrintWriter(text))
      shell.err.print(Redact(text.toString))
    }
    else IO.unit
    trace >> shell.info(s"bankops: $message").as(ExitCode(code))
  }
}
