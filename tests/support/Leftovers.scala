package bankops.support

import cats.effect.IO
import bankops.support.IOSuite.runtime
import cats.syntax.all._

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.services.config.ConnectionSettings
import bankops.services.kafka.KafkaClients

/** The topics and databases tests made under [[TopologyFixture.unique]] prefixes, removed when the suite that made them
  * ends. A broker's replica fetches walk every partition it follows: left in place, a run's few hundred topics made each
  * fetch, and the later suites, slower.
  */
object Leftovers {
  /** How a test prefix starts: `t` and eight hex digits (TopologyFixture.unique), then a dash, or in a database name an
    * underscore ([[database]]).
    */
  private val Mark = "^t[0-9a-f]{8}"

  /** A topic a test made. */
  val TestTopic = s"$Mark-.*"

  private val makers = new Makers

  /** The suite whose code is making `prefix` (a field, a test body or a fixture of it: its class is on the stack, as
    * an IO's steps are methods of the class that wrote them). A prefix made elsewhere has no known maker and stays.
    */
  def madePrefix(prefix: String): Unit = makers.made(prefix, Thread.currentThread.getStackTrace.iterator.map(_.getClassName).find(isSuite))

  private def isSuite(name: String): Boolean = suites.computeIfAbsent(name,
    n =>
      java.lang.Boolean.valueOf(scala.util.Try(classOf[OnSandbox].isAssignableFrom(Class.forName(n, false, getClass.getClassLoader))).getOrElse(
          false)))

  private val suites = new java.util.concurrent.ConcurrentHashMap[String, java.lang.Boolean]

  /** What `suite` made so far, to be removed when it ends. */
  def pending(suite: String): List[String] = makers.pending(suite)

  /** Removes what `suite` made. */
  def end(suite: String): Unit = {
    val done = makers.end(suite)
    // Cleaning up is no test's outcome: a failure is said, and the run goes on.
    if (done.nonEmpty && SandboxFixture.isStarted)
      SandboxFixture.settings.flatMap(remove(_, t => done.exists(t.startsWith), done.map(database))).timeout(60.seconds)
        .handleErrorWith(e => IO.println(s"Leftovers: ${done.size} prefixes of $suite's tests not removed: $e")).unsafeRunSync()
  }

  /** Which suite made each prefix. */
  final class Makers {
    private var made = Map.empty[String, List[String]]

    def made(prefix: String, maker: Option[String]): Unit = synchronized {
      maker.foreach(m => made += m -> (prefix :: made.getOrElse(m, Nil)))
    }

    def pending(suite: String): List[String] = synchronized(made.getOrElse(suite, Nil).sorted)

    /** `suite` has ended: the prefixes it made, forgotten as they are answered. */
    def end(suite: String): List[String] = synchronized {
      val done = made.getOrElse(suite, Nil).sorted
      made -= suite
      done
    }
  }

  /** The database a prefix's bank uses (BankFixture.create). */
  def database(prefix: String): String = prefix.replaceAll("[^a-z0-9]", "_")

  /** Deletes the topics `topic` picks and drops the `databases` (if there). */
  def remove(s: ConnectionSettings, topic: String => Boolean, databases: List[String]): IO[Unit] = {
    val topics = KafkaClients.javaAdmin(s.kafka).use { admin =>
      IO.blocking {
        val names = admin.listTopics().names().get().asScala.filter(topic).toList
        if (names.nonEmpty) admin.deleteTopics(names.asJava).all().get()
      }
    }
    val dbs =
      databases.traverse_(db => BankFixture.withDb(s, s.database.url.value)(_.createStatement().execute(s"DROP DATABASE IF EXISTS $db WITH (FORCE)")))
    topics >> dbs
  }

  /** Every test's topics and databases, as a run that starts the sandbox finds them left by earlier runs. */
  def removeAll(s: ConnectionSettings): IO[Unit] =
    BankFixture.withDb(s, s.database.url.value) { c =>
      val rs = c.createStatement().executeQuery(s"SELECT datname FROM pg_database WHERE datname ~ '${Mark}_'")
      Iterator.continually(rs).takeWhile(_.next()).map(_.getString(1)).toList
    }.flatMap(dbs => remove(s, _.matches(TestTopic), dbs))
}
