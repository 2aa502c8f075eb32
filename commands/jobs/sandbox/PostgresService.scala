package bankops.jobs.sandbox

import cats.effect.IO
import cats.syntax.all._

import scala.concurrent.duration._

import bankops.base.Failure
import bankops.services.bank.BankTables
import bankops.services.config.{Database, DatabaseSettings, Source, Sourced}

/** A private PostgreSQL cluster from the machine's binaries, on a loopback port,
  * password-protected, holding `balancedb` (the bank's schema) and `registry`
  * (the schema registry's storage). PostgreSQL refuses to run as root, so as root
  * the server runs as the `postgres` user.
  */
private[sandbox] final class PostgresService(ctx: SandboxContext) extends SandboxService {
  import PostgresService._

  private val dir = ctx.layout.postgresDir
  private val data = dir / "data"
  val name = "postgres"
  private val log = ctx.layout.log(name)
  private val port = ctx.settings.dbPort
  def address: String = s"127.0.0.1:$port"
  def ports: List[Int] = List(port)
  def startedWith(s: SandboxSettings): Any = s.dbPort
  private def isRoot: Boolean = System.getProperty("user.name") == "root"

  val binaries: IO[os.Path] = IO.blocking {
    val onPath = sys.env.getOrElse("PATH", "").split(':').map(p => os.Path(p, os.pwd)).find(p => os.exists(p / "initdb") && os.exists(p / "pg_ctl"))
    def versioned = {
      val base = os.Path("/usr/lib/postgresql")
      if (!os.exists(base)) Nil
      else os.list(base).filter(p => os.exists(p / "bin" / "initdb")).sortBy(p => p.last.takeWhile(_.isDigit).toIntOption.getOrElse(0)).map(_ / "bin")
    }
    onPath.orElse(versioned.lastOption).getOrElse(
      throw Failure.Unavailable("PostgreSQL server binaries (initdb, pg_ctl) not found: install them, e.g. `apt-get install postgresql`")
    )
  }

  private def asOwner(cmd: Seq[String]): Seq[String] = if (isRoot) Seq(runuser, "-u", "postgres", "--") ++ cmd else cmd

  /** util-linux's runuser lives in sbin, which a root shell's PATH may lack (a cron job, a CI step, an installed bankops
    * run through a short PATH): looked for there too, and named when missing rather than a stack trace.
    */
  private lazy val runuser: String = (sys.env.getOrElse("PATH", "").split(':').toList.filter(_.nonEmpty) ++ List("/usr/sbin", "/sbin"))
    .map(p => os.Path(p, os.pwd) / "runuser").find(os.isFile(_)).map(_.toString).getOrElse(
      throw Failure.Unavailable(
        "as root the sandbox runs PostgreSQL as the postgres user through runuser (util-linux), found neither on PATH nor in /usr/sbin or /sbin"))

  def pid: IO[Option[Long]] = IO.blocking {
    val f = data / "postmaster.pid"
    if (!os.exists(f)) None
    else os.read.lines(f).headOption.flatMap(_.trim.toLongOption).filter(p => Processes.alive(p, "postgres"))
  }

  def jdbcUrl(db: String): String = s"jdbc:postgresql://127.0.0.1:$port/$db"

  // Through the one place connections are made, as the bank's owner.
  private def connect(
      db: String
  ) = Database.open(DatabaseSettings(Sourced(jdbcUrl(db), Source.Sandbox), Sourced(SandboxSettings.DbUser, Source.Sandbox),
      Some(Sourced(ctx.secrets.dbPassword, Source.Sandbox))), "sandbox", 5.seconds)

  private def sql(db: String, statements: String*): IO[Unit] = IO.blocking {
    val c = connect(db)
    try statements.foreach(s => {
        val st = c.createStatement();
        try { st.execute(s); () }
        finally st.close()
      })
    finally c.close()
  }

  def ready: IO[Unit] = sql("balancedb", "SELECT 1 FROM balance LIMIT 1")

  def version: IO[String] = IO.blocking {
    val c = connect("postgres")
    try { val rs = c.createStatement().executeQuery("SHOW server_version"); rs.next(); rs.getString(1) }
    finally c.close()
  }

  private def prepareDir: IO[Unit] = IO.blocking {
    os.makeDir.all(dir)
    if (isRoot) {
      os.proc("chown", "-R", "postgres:postgres", dir.toString).call()
      val reach = os.proc(runuser, "-u", "postgres", "--", "test", "-w", dir.toString).call(check = false)
      if (reach.exitCode != 0)
        throw Failure.Unavailable(s"the postgres user cannot reach $dir (a parent directory is closed to it): choose another --sandbox-dir")
    }
  }

  private def initdb(bin: os.Path): IO[Unit] = IO.blocking(os.exists(data / "PG_VERSION")).flatMap {
    case true => IO.unit
    case false =>
      val pwfile = dir / ".pwfile"
      IO.blocking {
        os.write.over(pwfile, ctx.secrets.dbPassword, perms = "rw-------")
        if (isRoot) os.proc("chown", "postgres:postgres", pwfile.toString).call()
      } >>
        Processes.run(asOwner(Seq((bin / "initdb").toString, "-D", data.toString, "-U", SandboxSettings.DbUser, s"--pwfile=$pwfile",
              "--auth-host=scram-sha-256", "--auth-local=peer", "-E", "UTF8", "--no-instructions")), dir)
          .guarantee(IO.blocking(os.remove(pwfile, checkExists = false)).void) >>
        IO.blocking(os.write.append(data / "postgresql.conf", ServerConf))
  } >> IO.blocking {
    // Clusters made before the handler existed lack it.
    val conf = data / "postgresql.conf"
    if (!os.read(conf).linesIterator.exists(_.startsWith("max_prepared_transactions"))) os.write.append(conf, PreparedConf)
  }

  def start: IO[Unit] =
    for {
      bin <- binaries
      _ <- ctx.requirePortFree(name, port)
      _ <- prepareDir
      _ <- initdb(bin)
      _ <- Processes.run(asOwner(Seq((bin / "pg_ctl").toString, "-D", data.toString, "-l", log.toString, "-w", "-t", "60",
            "-o", s"-p $port", "start")), dir).adaptError { case e =>
        Failure.Unavailable(s"postgres did not start: ${e.getMessage}; last lines of $log:\n${Processes.tail(log, 20)}")
      }
      _ <- ctx.awaitReady(name, 30.seconds, pid.map(_.isDefined))(sql("postgres", "SELECT 1"))
      _ <- createDatabases
    } yield ()

  private def createDatabases: IO[Unit] = IO.blocking {
    val c = connect("postgres")
    try {
      val rs = c.createStatement().executeQuery("SELECT datname FROM pg_database")
      val existing = Iterator.continually(rs).takeWhile(_.next()).map(_.getString(1)).toSet
      List("balancedb", "registry").filterNot(existing).foreach(db => c.createStatement().execute(s"CREATE DATABASE $db"))
    } finally c.close()
  } >> installTables

  /** The bank's tables, created or migrated. Duplicated account numbers keep the unique index from being built: they are
    * named for a person (the handler refuses to start without the index), never changed here.
    */
  override def reused: IO[Unit] = installTables

  /** Prepared transactions live for milliseconds in a handler's batch: any shown here for long are leftovers (a handler
    * that died and never came back, another deployment's), holding their rows and vacuum until someone settles them.
    */
  override def statusAddress(timeout: FiniteDuration): IO[String] = IO.blocking {
    val c = connect("postgres")
    try {
      val rs = c.createStatement().executeQuery(
        "SELECT count(*) OVER (), gid, database, extract(epoch FROM now() - prepared)::bigint FROM pg_prepared_xacts ORDER BY prepared LIMIT 1")
      if (!rs.next()) address
      else s"$address, ${rs.getLong(1)} prepared transaction(s), oldest ${rs.getString(2)} in ${rs.getString(3)}, ${rs.getLong(4)} s old"
    } finally c.close()
  }.timeout(10.seconds).handleError(_ => address)

  private def installTables: IO[Unit] =
    IO.blocking {
      val c = connect("balancedb")
      try BankTables.install(c)
      finally c.close()
    }.flatMap(duplicates =>
      ctx.shell.info(s"sandbox: warning: ${BankTables.duplicatesLine(duplicates)}; the handler will not start until each number " +
        "is left to one account (balancedb's balance.iban gets its unique index on the next `sandbox up`)").whenA(duplicates.nonEmpty))

  def stop: IO[Unit] = binaries.flatMap { bin =>
    pid.flatMap {
      case None => IO.unit
      case Some(_) => Processes.run(asOwner(Seq((bin / "pg_ctl").toString, "-D", data.toString, "stop", "-m", "fast", "-w", "-t", "60")), dir).void
    }
  }
}

private[sandbox] object PostgresService {
  /** The command handler commits each batch in two phases (PREPARE TRANSACTION), which is off by default. */
  private val PreparedConf = "max_prepared_transactions = 20\n"

  /** Loopback only, no Unix socket (its default directory may not be writable), small footprint. */
  private val ServerConf =
    """
      |# bankops sandbox
      |listen_addresses = '127.0.0.1'
      |unix_socket_directories = ''
      |max_connections = 60
      |shared_buffers = 128MB
      |synchronous_commit = off
      |""".stripMargin + PreparedConf
}
