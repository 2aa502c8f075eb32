package bankops

import cats.effect.{ExitCode, IO}
import io.circe.parser.parse

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8

import bankops.base.{Cli, Failure, StepSummary}
import bankops.jobs.sandbox.Sandbox

/** What `sandbox up` does once its services answer: `bankops apply` of the checkout's topology on the sandbox, so
  * the bank's topics and subjects are there before the handler starts. Here, in the top layer, because it runs one
  * job from another.
  */
object SandboxProvision {
  val applyTopology: Sandbox.Provision = (layout, shell) =>
    IO.defer {
      val (out, err) = (new ByteArrayOutputStream(), new ByteArrayOutputStream())
      val quiet = shell.copy(out = new PrintStream(out, true, "UTF-8"), err = new PrintStream(err, true, "UTF-8"), stdoutIsTerminal = false,
        // Provisioning, not an apply the operator asked for: it stays out of a GitHub job summary.
        env = shell.env - StepSummary.Variable)
      Cli.run(List("apply", "--sandbox-dir", layout.dir.toString, "-o", "json"), quiet, Jobs.all).flatMap { code =>
        // The plan's lines: topic changes in one object, then one line per subject with its status.
        val lines = new String(out.toByteArray, UTF_8).linesIterator.flatMap(l => parse(l).toOption).map(_.hcursor).toList
        // A plan prints its topic changes in one object and a status per subject; an apply that changed something
        // prints an outcome per topic ("action") and per subject ("registered").
        val topics = lines.flatMap(_.get[List[io.circe.Json]]("changes").toOption).map(_.size).sum max lines.count(_.downField("action").succeeded)
        val subjects = lines.flatMap(_.get[String]("status").toOption).count(_ != "unchanged") max lines.count(_.get[Boolean]("registered").contains(true))
        if (code == ExitCode.Success)
          IO.pure(if (topics + subjects == 0) "in place: the bank's topics and subjects"
                  else s"applied schemas/topology.json: $topics topic changes, $subjects subjects registered or changed")
        else IO.raiseError(Failure.Unavailable(s"applying the bank's topology failed: ${new String(err.toByteArray, UTF_8).trim.stripPrefix("bankops: ")}"))
      }
    }
}
