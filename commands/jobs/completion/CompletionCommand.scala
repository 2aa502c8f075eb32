package bankops.jobs.completion

import cats.effect.{ExitCode, IO}
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.{Cli, Job, Shell}
import bankops.services.contracts.TopologyOpts

/** `bankops completion bash|zsh|fish`: the shell's completion script, generated from every job's options. The job list is
  * handed in by the top layer (a job never sees the others): a function, since this job is on that list itself.
  */
object CompletionCommand {

  def job(jobs: () => List[Job]): Job = Job(
    "completion",
    "Print a shell completion script (bash, zsh or fish) for every job, flag and listed value, and the topology's topics.",
    "source <(bankops completion bash)",
    (
      Opts.argument[String]("bash|zsh|fish").mapValidated(s =>
        if (CompletionScripts.Shells.contains(s)) s.validNel else s"shell must be bash, zsh or fish, not '$s'".invalidNel),
      TopologyOpts.choice
    ).mapN { (shellName, topology) => (shell: Shell) =>
      // Topic names are a convenience: without a readable topology the script still completes everything else.
      TopologyOpts.load(topology, shell).map(_.topics.map(_.name)).handleError(_ => Nil).flatMap { topics =>
        val script = CompletionScripts.script(shellName, Cli.tree(jobs()), topics)
        IO.fromOption(script)(new IllegalStateException(shellName)).flatMap(s => IO.blocking(shell.out.print(s)))
      }.as(ExitCode.Success)
    }
  )
}
