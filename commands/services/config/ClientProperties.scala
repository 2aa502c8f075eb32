package bankops.services.config

import cats.effect.IO
import org.apache.kafka.clients.admin.AdminClientConfig
import org.apache.kafka.clients.consumer.ConsumerConfig
import org.apache.kafka.clients.producer.ProducerConfig

import java.io.StringReader
import java.util.Properties
import scala.jdk.CollectionConverters._

import bankops.base.Failure

/** A `--command-config` file: Kafka client properties in Kafka's own keys, as
  * Kafka's tools take them, plus the Confluent keys for the schema registry.
  * Read with `java.util.Properties` (Kafka's own semantics), then checked
  * strictly, because a typo in `ssl.truststore.location` would otherwise be
  * silently ignored by the Java client and surface as a TLS failure much later.
  */
object ClientProperties {

  /** Confluent's registry client keys, accepted in the same file as Kafka's tools accept them. */
  val registryKeys: Set[String] = Set(
    "schema.registry.url",
    "basic.auth.credentials.source",
    "basic.auth.user.info",
    "schema.registry.basic.auth.user.info"
  )

  lazy val kafkaKeys: Set[String] =
    (AdminClientConfig.configNames().asScala ++ ProducerConfig.configNames().asScala ++
      ConsumerConfig.configNames().asScala).toSet

  private def known(key: String): Boolean =
    kafkaKeys(key) || registryKeys(key) ||
      (key.startsWith("schema.registry.ssl.") && kafkaKeys(key.stripPrefix("schema.registry.")))

  /** Keys whose values name files that must exist. */
  private val fileKeys = Set("ssl.truststore.location", "ssl.keystore.location")

  /** Parses and checks the text of a properties file; `name` is used in messages. */
  def parse(text: String, name: String): Either[String, Map[String, String]] = {
    val logical = logicalLines(text)
    val noSeparator = logical.collectFirst {
      case (line, no) if !hasSeparator(line) => s"$name:$no: expected key=value, got '${line.trim}'"
    }
    noSeparator.toLeft(()).flatMap(_ => load(text, name, logical)).flatMap(values => duplicate(name, logical).toLeft(values)).flatMap { values =>
      values.keys.toList.sorted.find(k => !known(k)) match {
        case Some(k) => Left(s"$name: unknown property '$k' (not a Kafka client or schema registry key)")
        case None =>
          values.collectFirst { case (k, v) if v.trim.isEmpty => s"$name: property '$k' has no value" }.toLeft(values)
      }
    }
  }

  /** java.util.Properties' reading; it throws on a backslash-u escape without four hex digits: that line, named. */
  private def load(text: String, name: String, logical: List[(String, Int)]): Either[String, Map[String, String]] = {
    val props = new Properties()
    scala.util.Try(props.load(new StringReader(text))).toEither.map(_ => props.asScala.toMap).left.map { _ =>
      val at = logical.collectFirst { case (line, no) if badEscape.findFirstIn(line).nonEmpty => s":$no" }.getOrElse("")
      s"$name$at: malformed unicode escape (a backslash-u must be followed by four hex digits)"
    }
  }

  /** Properties keeps the last of two lines with one key, silently: the second is named, with the first. Each line's
    * key is read by Properties itself, escapes and all.
    */
  private def duplicate(name: String, logical: List[(String, Int)]): Option[String] = {
    val keyed = logical.flatMap { case (line, no) =>
      val one = new Properties()
      scala.util.Try(one.load(new StringReader(line))).toOption.flatMap(_ => one.stringPropertyNames().asScala.headOption).map(_ -> no)
    }
    keyed.groupBy(_._1).values.filter(_.size > 1).map(_.map(_._2).sorted).toList.sortBy(_(1)).headOption.map { lines =>
      val key = keyed.find(_._2 == lines(1)).get._1
      s"$name:${lines(1)}: property '$key' is set again (first on line ${lines.head}); remove one"
    }
  }

  /** A backslash-u escape (after an even run of backslashes) without four hex digits. */
  private val badEscape = """(?<!\\)(?:\\\\)*\\u(?![0-9a-fA-F]{4})""".r

  /** Reads, parses and checks a file, including that the stores it names exist. */
  def load(path: os.Path, what: String = "--command-config"): IO[Map[String, String]] =
    IO.blocking(bankops.base.TextFile.readPrivate(path, what))
      .adaptError { case e: java.io.IOException => Failure.BadInput(s"cannot read $what $path: ${describe(e)}") }
      .flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))
      .flatMap(text => IO.fromEither(parse(text, path.toString).left.map(Failure.BadInput(_))))
      .flatTap { props =>
        val missing = props.collect {
          // Relative to the working directory, as the Java client resolves them.
          case (k, v) if (fileKeys(k) || fileKeys(k.stripPrefix("schema.registry."))) && !os.exists(os.Path(v, os.pwd)) =>
            s"$path: $k points to ${os.Path(v, os.pwd)}, which does not exist"
        }
        missing.headOption.fold(IO.unit)(m => IO.raiseError(Failure.BadInput(m)))
      }

  private def describe(e: Throwable): String = e match {
    case _: java.nio.file.NoSuchFileException => "no such file"
    case _: java.nio.file.AccessDeniedException => "permission denied"
    case other => Option(other.getMessage).getOrElse(other.getClass.getSimpleName)
  }

  /** Joins backslash continuations and drops blanks and comments, keeping line numbers. */
  private def logicalLines(text: String): List[(String, Int)] = {
    val physical = text.split("\r?\n", -1).toList.zipWithIndex.map { case (l, i) => (l, i + 1) }
    val (done, pending) = physical.foldLeft((List.empty[(String, Int)], Option.empty[(String, Int)])) {
      case ((acc, open), (line, no)) =>
        val (joined, start) = open.fold((line.dropWhile(_.isWhitespace), no)) { case (p, s) => (p + line.dropWhile(_.isWhitespace), s) }
        if (continues(joined)) (acc, Some((joined.dropRight(1), start))) else ((joined, start) :: acc, None)
    }
    (pending.toList ++ done).reverse.filter { case (l, _) => l.trim.nonEmpty && !l.startsWith("#") && !l.startsWith("!") }
  }

  private def continues(line: String): Boolean = line.reverse.takeWhile(_ == '\\').length % 2 == 1

  private def hasSeparator(line: String): Boolean = {
    // Properties' own rule: the key ends at the first unescaped '=', ':' or whitespace.
    val key = line.replaceAll("\\\\.", "xx").takeWhile(c => c != '=' && c != ':' && !c.isWhitespace)
    key.length < line.length
  }
}
