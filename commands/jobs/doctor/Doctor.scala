package bankops.jobs.doctor

import cats.effect.IO
import cats.syntax.all._

import java.net.{InetAddress, InetSocketAddress, Socket, URI}
import java.security.cert.X509Certificate
import java.time.Instant
import java.time.temporal.ChronoUnit
import javax.net.ssl.{SSLContext, SSLSocket}
import scala.concurrent.duration._

import bankops.base.Failures
import bankops.services.bank.BankNames
import bankops.services.config.{ConnectionSettings, Database, KafkaCheck, Secrets, TlsProfile}
import bankops.services.kafka.KafkaClients
import bankops.services.registry.{RegistryClient, RegistryEndpoint}

/** Walks each connection step by step, so a failure names the step that broke:
  * name resolution, TCP, TLS (trust, expiry, hostname), then the protocol itself.
  * Every step runs (a later one may still pass and tell more), bounded in time.
  */
private[doctor] final class Doctor(settings: ConnectionSettings, timeout: FiniteDuration) {
  private val props = settings.kafka.properties

  private def attempt(name: String)(body: IO[String]): IO[Check] =
    body.timeout(timeout).attempt.map {
      case Right(detail) => Check(name, passed = true, detail)
      case Left(_: java.util.concurrent.TimeoutException) => Check(name, passed = false, s"no answer within ${timeout.toSeconds} s")
      case Left(e) => Check(name, passed = false, Failures.classify(e)._1.stripSuffix(" (run with --verbose for details)"))
    }

  private def hostPort(s: String, defaultPort: Int): (String, Int) = s.trim.lastIndexOf(':') match {
    case -1 => (s.trim, defaultPort)
    case i => (s.trim.take(i), s.trim.drop(i + 1).toIntOption.getOrElse(defaultPort))
  }

  private def dns(host: String): IO[String] = IO.blocking(InetAddress.getAllByName(host).map(_.getHostAddress).mkString(", "))

  private def tcp(host: String, port: Int): IO[String] = IO.blocking {
    val s = new Socket()
    try { s.connect(new InetSocketAddress(host, port), timeout.toMillis.toInt); s"connected to ${s.getInetAddress.getHostAddress}:$port" }
    finally s.close()
  }

  /** A handshake with the configured trust; hostname checked as the client would check it. */
  private def tls(host: String, port: Int, ctx: SSLContext, verifyHost: Boolean): IO[String] = IO.blocking {
    val socket = ctx.getSocketFactory.createSocket().asInstanceOf[SSLSocket]
    try {
      socket.connect(new InetSocketAddress(host, port), timeout.toMillis.toInt)
      socket.setSoTimeout(timeout.toMillis.toInt)
      if (verifyHost) { val p = socket.getSSLParameters; p.setEndpointIdentificationAlgorithm("HTTPS"); socket.setSSLParameters(p) }
      socket.startHandshake()
      val cert = socket.getSession.getPeerCertificates.head.asInstanceOf[X509Certificate]
      val days = ChronoUnit.DAYS.between(Instant.now(), cert.getNotAfter.toInstant)
      if (days < 0) throw new IllegalStateException(s"certificate ${cert.getSubjectX500Principal} expired on ${cert.getNotAfter}")
      val soon = if (days < 30) s" (expires in $days days!)" else s", valid $days more days"
      s"${socket.getSession.getProtocol}, certificate ${cert.getSubjectX500Principal.getName} " +
        s"trusted$soon${if (verifyHost) ", hostname matches" else ""}"
    } finally socket.close()
  }

  private def sslContext: SSLContext = TlsProfile.sslContext(props, None).getOrElse(SSLContext.getDefault)

  def kafka: IO[List[Check]] =
    // A bad setting would fail every later step with a library error: it is the one thing to report.
    KafkaCheck(settings.kafka) match {
      case Left(problem) => IO.pure(List(Check("kafka settings", passed = false, problem)))
      case Right(()) => kafkaSteps.map(Check("kafka settings", passed = true, "bootstrap servers, client properties and stores are valid") :: _)
    }

  private def kafkaSteps: IO[List[Check]] = {
    val protocol = props.getOrElse("security.protocol", "PLAINTEXT").toUpperCase
    val verifyHost = props.getOrElse("ssl.endpoint.identification.algorithm", "https").nonEmpty
    val brokers = settings.kafka.bootstrapServers.value.split(',').toList.filter(_.nonEmpty).map(hostPort(_, 9092))
    val perBroker = brokers.flatTraverse { case (host, port) =>
      List(
        attempt(s"kafka dns $host")(dns(host)),
        attempt(s"kafka tcp $host:$port")(tcp(host, port))
      ).sequence.flatMap { basic =>
        if (protocol.endsWith("SSL")) attempt(s"kafka tls $host:$port")(IO.defer(tls(host, port, sslContext, verifyHost))).map(basic :+ _)
        else IO.pure(basic :+ Check(s"kafka tls $host:$port", passed = true, s"not used (security.protocol=$protocol)"))
      }
    }
    val metadata = attempt("kafka metadata")(KafkaClients.admin(settings.kafka, timeout).use { admin =>
      (admin.describeCluster.nodes, admin.describeCluster.controller).mapN((nodes, ctrl) =>
        s"${nodes.size} broker(s), controller ${Option(ctrl).map(_.idString).getOrElse("?")}")
    })
    perBroker.flatMap(cs => metadata.map(cs :+ _)).flatMap { cs =>
      // Who we are and what each job may do, once the cluster answers.
      if (!cs.lastOption.exists(_.passed)) IO.pure(cs)
      else new AccessCheck(settings.kafka, timeout).checks.handleError(e =>
        List(Check("kafka access", passed = false, Failures.classify(e)._1.stripSuffix(" (run with --verbose for details)")))).map(cs ++ _)
        .flatMap(all => sizeLimits.map(all :+ _))
    }
  }

  def registry: IO[List[Check]] = {
    val url = settings.registry.url.value
    val shown = Secrets.maskUrl(url)
    RegistryEndpoint.from(settings.registry).map(e => URI.create(e.url)) match {
      case Left(problem) => IO.pure(List(Check(s"registry url $shown", passed = false, problem)))
      case Right(uri) =>
        val https = uri.getScheme == "https"
        val port = if (uri.getPort > 0) uri.getPort else if (https) 443 else 80
        val host = uri.getHost
        val steps = List(attempt(s"registry dns $host")(dns(host)), attempt(s"registry tcp $host:$port")(tcp(host, port))) ++
          (if (https) List(attempt(s"registry tls $host:$port")(IO.defer(tls(host, port,
                   TlsProfile.sslContext(RegistryEndpoint.tlsProperties(props), settings.registry.caFile.map(_.value)).getOrElse(
                     SSLContext.getDefault), verifyHost = true))))
           else Nil) :+
          attempt(s"registry api $shown")(RegistryClient.resource(settings, timeout).use(_.subjects).map(s =>
              s"${s.size} subject(s)${settings.registry.userInfo.fold("")(_ => ", credentials accepted")}"))
        steps.sequence
    }
  }

  def postgres: IO[List[Check]] = {
    val db = settings.database
    val login = attempt(s"postgres login ${Secrets.maskUrl(db.url.value)} as ${db.user.value}")(Database.connect(db, "doctor", timeout).map { c =>
      try { val rs = c.createStatement().executeQuery("SHOW server_version"); rs.next(); s"PostgreSQL ${rs.getString(1)}" }
      finally c.close()
    })
    login.flatMap(l => if (l.passed) prepared.map(List(l, _)) else IO.pure(List(l)))
  }

  /** Prepared transactions in every database of the server: a handler's batch is prepared for milliseconds, so one older
    * than a minute is a leftover (a handler that died and never came back, another deployment's) holding its rows'
    * locks and keeping vacuum back until someone settles it.
    */
  private def prepared: IO[Check] = {
    val (name, stale) = ("postgres prepared transactions", 60L)
    Database.connect(settings.database, "doctor", timeout).map { c =>
      try {
        val rs = c.createStatement().executeQuery(
          "SELECT gid, database, extract(epoch FROM now() - prepared)::bigint FROM pg_prepared_xacts ORDER BY prepared")
        Iterator.continually(rs).takeWhile(_.next()).map(r => (r.getString(1), r.getString(2), r.getLong(3))).toList
      } finally c.close()
    }.attempt.map {
      case Left(e) => Check(name, passed = false, Failures.classify(e)._1.stripSuffix(" (run with --verbose for details)"))
      case Right(Nil) => Check(name, passed = true, "none")
      case Right(all) =>
        val old = all.filter(_._3 >= stale)
        Check(name, old.isEmpty,
          all.map { case (gid, database, age) => s"$gid in $database, ${age} s old" }.mkString("; ") +
            (if (old.isEmpty) "" else s": ${old.size} older than $stale s, left over: settle each with COMMIT PREPARED or ROLLBACK PREPARED"))
    }
  }

  /** The bank's records fit its producer and topics (see [[BankLimits]]); topics that do not exist are passed over. */
  private def sizeLimits: IO[Check] = attempt("kafka size limits")(KafkaClients.withAdmin(settings.kafka, timeout) { admin =>
    import scala.jdk.CollectionConverters._
    import org.apache.kafka.common.config.ConfigResource
    val wanted = List(BankNames.BalanceChanged -> BankLimits.BalanceChangedMax, s"${BankNames.Commands}.dlq" -> BankLimits.DeadLetterMax)
    KafkaClients.await(admin.listTopics().names()).flatMap { existing =>
      val present = wanted.filter(w => existing.contains(w._1))
      val resources = present.map(w => new ConfigResource(ConfigResource.Type.TOPIC, w._1))
      (if (resources.isEmpty) IO.pure(Map.empty[String, Option[Long]])
       else KafkaClients.await(admin.describeConfigs(resources.asJava).all()).map(_.asScala.map { case (r, c) =>
         r.name -> Option(c.get("max.message.bytes")).flatMap(e => Option(e.value)).flatMap(_.toLongOption)
       }.toMap)).map { limits =>
        val request = props.get("max.request.size").flatMap(_.toLongOption).getOrElse(1048576L)
        val problems = BankLimits.problems(request, present.map { case (t, largest) => (t, largest, limits.getOrElse(t, None)) })
        if (problems.nonEmpty) throw new IllegalStateException(problems.mkString("; "))
        if (present.isEmpty) "no bank topics here: nothing to check"
        else s"max.request.size $request; " + present.map { case (t, largest) =>
          s"$t takes up to $largest bytes, max.message.bytes ${limits.getOrElse(t, None).getOrElse("?")}"
        }.mkString("; ")
      }
    }
  })

  def all: IO[List[Check]] = (kafka, registry, postgres).mapN(_ ++ _ ++ _)
}
