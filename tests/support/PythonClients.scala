package bankops.support

import cats.effect.IO

/** confluent-kafka for Python (librdkafka), the independent client the tests check bankops against. */
object PythonClients {
  private val dir = Repo.root / "tests" / "python"

  /** Produces JSON-line records (see avro_produce.py) over SSL with the sandbox CA. */
  def produce(lines: Seq[String]): IO[Unit] =
    SandboxFixture.settings.flatMap { s =>
      IO.blocking(os.proc("python3", dir / "avro_produce.py", s.kafka.bootstrapServers.value,
        SandboxFixture.layout.dir / "tls" / "ca.pem", s.registry.url.value, Repo.root / "schemas")
        .call(stdin = lines.mkString("\n") + "\n", stderr = os.Pipe, check = false))
        .flatMap(r => if (r.exitCode != 0) IO.raiseError(new AssertionError(s"avro_produce.py failed: ${r.err.text()}")) else IO.unit)
    }
}
