package bankops.registry

import cats.effect.IO
import io.circe.{Decoder, Json}
import io.circe.parser.parse
import sttp.client4._
import sttp.client4.httpclient.HttpClientSyncBackend
import sttp.model.{MediaType, StatusCode}

import java.net.http.HttpClient
import java.time.Duration
import scala.concurrent.duration._

import bankops.cli.Failure
import bankops.config.{ConnectionSettings, Secrets, TlsProfile}

/** A client for the Confluent schema registry REST API (also served by Apicurio's
  * ccompat API, Karapace and Redpanda), on sttp over the JDK's HttpClient.
  * Answers are parsed tolerantly: registries differ in the fields they add.
  */
final class RegistryClient(baseUrl: String, backend: SyncBackend, userInfo: Option[String], timeout: FiniteDuration) {
  private val contentType = MediaType("application", "vnd.schemaregistry.v1+json")
  private val base = baseUrl.stripSuffix("/")

  private def request(method: String, path: String, body: Option[Json]): IO[Json] = IO.blocking {
    val uri = uri"${base + path}"
    val r0 = basicRequest.method(sttp.model.Method(method), uri).readTimeout(timeout).header("Accept", "application/vnd.schemaregistry.v1+json, application/json")
    val r1 = body.fold(r0)(b => r0.body(b.noSpaces).contentType(contentType))
    val r2 = userInfo.fold(r1) { ui => val (u, p) = ui.span(_ != ':'); r1.auth.basic(u, p.drop(1)) }
    r2.send(backend)
  }.adaptError { case e: SttpClientException =>
    Failure.Unavailable(s"schema registry at ${Secrets.maskUrl(base)} could not be reached: ${Option(e.getCause).map(_.toString).getOrElse(e.toString)}", e)
  }.flatMap { resp =>
    val json = resp.body.fold(identity, identity)
    if (resp.code.isSuccess) IO.fromEither(parse(if (json.trim.isEmpty) "null" else json).left.map(e => RegistryError(resp.code.code, None, s"unparseable answer: ${e.message}")))
    else IO.raiseError(error(resp.code, json))
  }

  private def error(code: StatusCode, body: String): RegistryError = {
    val json = parse(body).toOption
    val errorCode = json.flatMap(_.hcursor.get[Int]("error_code").toOption)
    val message = json.flatMap(_.hcursor.get[String]("message").toOption).getOrElse(body.take(200))
    RegistryError(code.code, errorCode, message)
  }

  private def as[A: Decoder](j: Json): IO[A] = IO.fromEither(j.as[A].left.map(e => RegistryError(200, None, s"unexpected answer: ${e.getMessage}")))

  /** Registers `schema` (Avro JSON) under `subject`; the registry's id for it, new or existing. */
  def register(subject: String, schema: String): IO[Int] =
    request("POST", s"/subjects/$subject/versions", Some(Json.obj("schema" -> Json.fromString(schema), "schemaType" -> Json.fromString("AVRO"))))
      .flatMap(j => IO.fromEither(j.hcursor.get[Int]("id").left.map(e => RegistryError(200, None, s"no id in ${j.noSpaces}: ${e.getMessage}"))))

  /** The schema text registered under a global id. */
  def schemaById(id: Int): IO[String] =
    request("GET", s"/schemas/ids/$id", None)
      .flatMap(j => IO.fromEither(j.hcursor.get[String]("schema").left.map(e => RegistryError(200, None, s"no schema in ${j.noSpaces}: ${e.getMessage}"))))

  def subjects: IO[List[String]] = request("GET", "/subjects", None).flatMap(as[List[String]])

  /** The global compatibility level; Confluent says `compatibilityLevel`, some registries `compatibility`. */
  def globalCompatibility: IO[String] = request("GET", "/config", None).flatMap(compatibilityOf)

  def setGlobalCompatibility(level: String): IO[String] =
    request("PUT", "/config", Some(Json.obj("compatibility" -> Json.fromString(level)))).flatMap(compatibilityOf)

  private def compatibilityOf(j: Json): IO[String] =
    IO.fromOption(j.hcursor.get[String]("compatibilityLevel").orElse(j.hcursor.get[String]("compatibility")).toOption)(
      RegistryError(200, None, s"no compatibility level in ${j.noSpaces}"))
}

object RegistryClient {

  def apply(settings: ConnectionSettings, timeout: FiniteDuration = 30.seconds): RegistryClient =
    apply(settings.registry.url.value, settings.kafka.properties, settings.registry.caFile.map(_.value), settings.registry.userInfo.map(_.value), timeout)

  /** `tlsProperties`: Kafka `ssl.*` keys, the one TLS profile for broker and registry. */
  def apply(url: String, tlsProperties: Map[String, String], ca: Option[os.Path], userInfo: Option[String], timeout: FiniteDuration): RegistryClient = {
    val builder = HttpClient.newBuilder().connectTimeout(Duration.ofMillis(timeout.toMillis min 10000L)).followRedirects(HttpClient.Redirect.NORMAL)
    TlsProfile.sslContext(tlsProperties, ca).foreach(builder.sslContext)
    new RegistryClient(url, HttpClientSyncBackend.usingClient(builder.build()), userInfo, timeout)
  }
}
