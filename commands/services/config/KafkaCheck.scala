package bankops.services.config

import org.apache.kafka.clients.admin.AdminClientConfig
import org.apache.kafka.clients.consumer.ConsumerConfig
import org.apache.kafka.clients.producer.ProducerConfig
import org.apache.kafka.common.config.ConfigException
import org.apache.kafka.common.serialization.{ByteArrayDeserializer, ByteArraySerializer}
import org.apache.kafka.common.utils.Utils

import java.security.{KeyStore, UnrecoverableKeyException}
import scala.jdk.CollectionConverters._
import scala.util.Try

/** Checks the Kafka settings before any client is made: the Java clients report a bad value as a library exception
  * deep in a constructor ("Failed to construct kafka consumer", "Failed to load SSL keystore"), naming neither the file
  * nor the key. Each check answers with the line to show, naming where the value came from.
  */
object KafkaCheck {

  def apply(kafka: KafkaSettings): Either[String, Unit] =
    for {
      _ <- bootstrap(kafka.bootstrapServers)
      file = kafka.commandConfig.fold("client properties")(c => s"--command-config ${c.value}")
      _ <- values(kafka.clientProperties, file)
      _ <- stores(kafka.properties, file)
    } yield ()

  /** `host:port[,host:port]`, by Kafka's own address parsing, which the clients apply later. */
  def bootstrap(servers: Sourced[String]): Either[String, Unit] = {
    val where = servers.source.describe
    val entries = servers.value.split(",").map(_.trim).filter(_.nonEmpty).toList
    if (entries.isEmpty) Left(s"$where: no bootstrap server given (expected host:port[,host:port...])")
    else entries.collectFirst {
      case e if Utils.getHost(e) == null || Utils.getPort(e) == null => s"$where: bootstrap server '$e' is not host:port"
      case e if Utils.getPort(e) < 1 || Utils.getPort(e) > 65535 => s"$where: bootstrap server '$e' has port ${Utils.getPort(e)}, outside 1-65535"
    }.toLeft(())
  }

  /** Every value parsed as the admin client, producer and consumer parse it (`security.protocol=SSLX`, `acks=some`). */
  def values(props: Map[String, String], file: String): Either[String, Unit] = {
    def only(names: java.util.Set[String]) = props.collect { case (k, v) if names.contains(k) => k -> (v: AnyRef) }
    val bytesOut: AnyRef = classOf[ByteArraySerializer].getName
    val bytesIn: AnyRef = classOf[ByteArrayDeserializer].getName
    val checks: List[() => Any] = List(
      () => new AdminClientConfig(only(AdminClientConfig.configNames()).asJava),
      () =>
        new ProducerConfig((only(ProducerConfig.configNames()) ++ Map(
            ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG -> bytesOut, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG -> bytesOut)).asJava),
      () =>
        new ConsumerConfig((only(ConsumerConfig.configNames()) ++ Map(
            ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG -> bytesIn, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG -> bytesIn)).asJava)
    )
    checks.iterator.map(c => Try(c()).toEither).collectFirst { case Left(e: ConfigException) => s"$file: ${e.getMessage}" }.toLeft(())
  }

  /** The trust and key stores (Kafka's, and the registry's under `schema.registry.`) are files that open with their
    * passwords. PEM stores carry no password and are read by the client as they are.
    */
  def stores(props: Map[String, String], file: String): Either[String, Unit] = {
    val named = for {
      prefix <- List("", "schema.registry.")
      kind <- List("truststore", "keystore")
      location <- props.get(s"${prefix}ssl.$kind.location").toList
    } yield (prefix, kind, location)
    named.iterator.map { case (prefix, kind, location) =>
      val tpe = props.getOrElse(s"${prefix}ssl.$kind.type", "JKS").toUpperCase
      store(os.Path(location, os.pwd), tpe, props.get(s"${prefix}ssl.$kind.password"), s"${prefix}ssl.$kind").left.map(m => s"$file: $m")
    }.collectFirst { case Left(m) => m }.toLeft(())
  }

  private def store(path: os.Path, tpe: String, password: Option[String], key: String): Either[String, Unit] =
    if (os.isDir(path)) Left(s"$key.location $path is a directory, not a $tpe store")
    else if (!os.isFile(path)) Left(s"$key.location $path does not exist")
    else if (tpe == "PEM") Right(())
    else Try(KeyStore.getInstance(tpe)).toEither.left.map(_ => s"$key.type $tpe is not a key store type this JVM knows (JKS, PKCS12, PEM)")
      .flatMap(_ =>
        KeyStores.open(tpe, path, password).toEither.left.map {
          case e: java.io.IOException if e.getCause.isInstanceOf[UnrecoverableKeyException] || Option(e.getMessage).exists(_.contains("password")) =>
            s"$key.password does not open $path (wrong password?)"
          case _ => s"$key.location $path is not a $tpe store (set $key.type if it is another kind)"
        }.map(_ => ()))
}
