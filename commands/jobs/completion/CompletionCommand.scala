package bankops.jobs.completion

import cats.effect.IO
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Cli, Exit, Job, Rendered, Shell, Shown}
import bankops.flags.TopologyFlags
import bankops.services.contracts.TopologyChoice

/** `bankops completion bash|zsh|fish`: the shell's completion script, generated from every job's options. The job list is
  * handed in by the top layer (a job never sees the others): a function, since this job is on that list itself.
  */
object CompletionCommand {

  /** The shell's name, and the topology whose topics it completes. */
  final case class Options(shellName: String, topology: TopologyChoice)

  /** The script: every job's flags and values from the job list, and the topology's topic names when it can be read. */
  private def script(jobs: () => List[Job[_, _]])(o: Options, shell: Shell): IO[String] =
    // Topic names are a convenience: without a readable topology the script still completes everything else.
    TopologyChoice.load(o.topology, shell).map(_.topics.map(_.name)).handleError(_ => Nil).flatMap { topics =>
      IO.fromOption(CompletionScripts.script(o.shellName, Cli.tree(jobs()), topics))(new IllegalStateException(o.shellName))
    }

  def job(jobs: () => List[Job[_, _]]): Job[Options, String] = Job(
    "completion",
    "Print a shell completion script (bash, zsh or fish) for every job, flag and listed value, and the topology's topics.",
    "source <(bankops completion bash)",
    (
      Opts.argument[String]("bash|zsh|fish").mapValidated(s =>
        if (CompletionScripts.Shells.contains(s)) s.validNel else s"shell must be bash, zsh or fish, not '$s'".invalidNel),
      TopologyFlags.choice
    ).mapN(Options.apply)
  )(script(jobs), (_, text) => Shown(None, Rendered.text(text), Exit.Ok))
}
