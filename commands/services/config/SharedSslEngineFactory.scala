package bankops.services.config

import org.apache.kafka.common.config.types.Password
import org.apache.kafka.common.security.auth.SslEngineFactory
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory

import java.security.KeyStore
import java.util.concurrent.ConcurrentHashMap
import javax.net.ssl.SSLEngine
import scala.jdk.CollectionConverters._

/** Kafka's own SSL engine factory, made once per process for one set of SSL settings and store files, and shared by
  * every client that has them. Each Kafka client otherwise opens its key and trust stores itself (a PKCS12 store's
  * password derivation, twice for a key store), and a job makes two to four clients, the handler more; one SSL context
  * also lets a client resume the TLS session another one made with the same broker. A store file that changes is opened
  * again by the next client made, as [[KeyStores]] does.
  */
final class SharedSslEngineFactory extends SslEngineFactory {
  @volatile private var shared: SslEngineFactory = _

  override def configure(configs: java.util.Map[String, _]): Unit = shared = SharedSslEngineFactory.of(configs)

  override def createClientSslEngine(peerHost: String, peerPort: Int, endpointIdentification: String): SSLEngine =
    shared.createClientSslEngine(peerHost, peerPort, endpointIdentification)

  override def createServerSslEngine(peerHost: String, peerPort: Int): SSLEngine = shared.createServerSslEngine(peerHost, peerPort)

  override def shouldBeRebuilt(nextConfigs: java.util.Map[String, AnyRef]): Boolean = shared.shouldBeRebuilt(nextConfigs)

  override def reconfigurableConfigs(): java.util.Set[String] = shared.reconfigurableConfigs()

  override def keystore(): KeyStore = shared.keystore()

  override def truststore(): KeyStore = shared.truststore()

  /** The other clients of this process still use it; Kafka's own factory holds nothing to release. */
  override def close(): Unit = ()
}

object SharedSslEngineFactory {
  /** The SSL settings a factory was made from (passwords by their digest) and the size and time of each store file. */
  private final case class Key(settings: Map[String, String], files: List[(String, Long, Long)])

  private val made = new ConcurrentHashMap[Key, SslEngineFactory]()

  /** The factory for `configs`, made by the first client that asks; a failure is thrown to that client and not kept. */
  def of(configs: java.util.Map[String, _]): SslEngineFactory =
    made.computeIfAbsent(key(configs), _ => { val f = new DefaultSslEngineFactory; f.configure(configs); f })

  private def key(configs: java.util.Map[String, _]): Key = {
    val settings = configs.asScala.collect {
      case (k, v) if (k.startsWith("ssl.") || k == "security.providers") && k != "ssl.engine.factory.class" => k -> render(v)
    }.toMap
    val files = List("ssl.keystore.location", "ssl.truststore.location").flatMap(k => Option(configs.get(k))).map { location =>
      val f = new java.io.File(location.toString)
      (f.getPath, f.length, f.lastModified)
    }
    Key(settings, files)
  }

  private def render(v: Any): String = v match {
    case null => ""
    case p: Password => KeyStores.digest(p.value).map("%02x".format(_)).mkString
    case other => other.toString
  }
}
