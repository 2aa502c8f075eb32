package bankops.support

import cats.effect.IO

/** confluent-kafka for Python (librdkafka), the independent client the tests check bankops against. */
object PythonClients {
  private val dir = Repo.root / "tests" / "python"

  /** The interpreter with confluent-kafka: the one `./bankops test` installed it for, else python3 on PATH. */
  val python: String = sys.props.get("bankops.python").orElse(sys.env.get("BANKOPS_PYTHON")).filter(_.nonEmpty).getOrElse("python3")

  /** The operator's certificate, as `bankops sandbox env` exports it for librdkafka clients. */
  def env: Map[String, String] = {
    val id = SandboxFixture.layout.tls.identity(bankops.jobs.sandbox.Identities.Operator)
    Map("KAFKA_SSL_CERTIFICATE_LOCATION" -> id.certPem.toString, "KAFKA_SSL_KEY_LOCATION" -> id.keyPem.toString)
  }

  /** Produces JSON-line records (see avro_produce.py) over SSL with the sandbox CA; `compression` e.g. zstd. */
  def produce(lines: Seq[String], compression: Option[String] = None): IO[Unit] =
    SandboxFixture.settings.flatMap { s =>
      IO.blocking(os.proc(python, dir / "avro_produce.py", s.kafka.bootstrapServers.value,
          SandboxFixture.layout.dir / "tls" / "ca.pem", s.registry.url.value, Repo.root / "schemas")
          .call(stdin = lines.mkString("\n") + "\n", stderr = os.Pipe, check = false, env = env ++ compression.map("PRODUCE_COMPRESSION" -> _)))
        .flatMap(r => if (r.exitCode != 0) IO.raiseError(new AssertionError(s"avro_produce.py failed: ${r.err.text()}")) else IO.unit)
    }

  /** Every record of `topic` decoded by AvroDeserializer: JSON lines with partition, offset, key and value. */
  def consume(topic: String): IO[List[io.circe.Json]] =
    SandboxFixture.settings.flatMap { s =>
      IO.blocking(os.proc(python, dir / "avro_consume.py", s.kafka.bootstrapServers.value,
          SandboxFixture.layout.dir / "tls" / "ca.pem", s.registry.url.value, topic).call(stderr = os.Pipe, check = false, env = env))
        .flatMap { r =>
          if (r.exitCode != 0) IO.raiseError(new AssertionError(s"avro_consume.py failed: ${r.err.text()}"))
          else IO(r.out.lines().filter(_.nonEmpty).map(l => io.circe.parser.parse(l).fold(throw _, identity)).toList)
        }
    }
}
