package bankops.support

import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.charset.StandardCharsets.UTF_8

import cats.effect.IO

import bankops.Jobs
import bankops.base.{Cli, Shell}

/** A [[Shell]] over buffers, so tests see exactly what a command printed. */
final class TestShell(env: Map[String, String], home: os.Path, stdoutIsTerminal: Boolean = false, stdin: String = "",
                      stdinBytes: Option[Array[Byte]] = None, stdout: Option[java.io.OutputStream] = None) {
  private val outBytes = new ByteArrayOutputStream()
  private val errBytes = new ByteArrayOutputStream()
  val shell: Shell =
    Shell(env, new PrintStream(stdout.getOrElse(outBytes), true, "UTF-8"), new PrintStream(errBytes, true, "UTF-8"), stdoutIsTerminal, false,
      verbose = false, home,
      new java.io.ByteArrayInputStream(stdinBytes.getOrElse(stdin.getBytes(UTF_8))))
  def out: String = new String(outBytes.toByteArray, UTF_8)
  def err: String = new String(errBytes.toByteArray, UTF_8)
}

object TestShell {
  final case class Result(code: Int, out: String, err: String) {
    def outLines: List[String] = out.linesIterator.filter(_.nonEmpty).toList
  }

  /** Runs the CLI in this JVM with the given environment only (never the test process's own), `stdin` as its standard input. */
  def run(args: List[String], env: Map[String, String] = Map.empty, home: os.Path = os.temp.dir(), stdin: String = "",
          stdinBytes: Option[Array[Byte]] = None, stdout: Option[java.io.OutputStream] = None): IO[Result] = {
    val t = new TestShell(env, home, stdin = stdin, stdinBytes = stdinBytes, stdout = stdout)
    Cli.run(args, t.shell, Jobs.all).map(code => Result(code.code, t.out, t.err))
  }
}
