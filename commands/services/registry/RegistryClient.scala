package bankops.services.registry

import cats.effect.{IO, Resource}
import io.circe.{Decoder, Json}
import io.circe.parser.parse
import io.circe.syntax._
import sttp.client4._
import sttp.client4.httpclient.HttpClientSyncBackend
import sttp.model.MediaType

import java.net.URLEncoder
import java.net.http.HttpClient
import java.util.concurrent.Executors
import java.nio.charset.StandardCharsets.UTF_8
import java.time.Duration
import scala.collection.concurrent.TrieMap
import scala.concurrent.duration._

import bankops.base.Failure
import bankops.services.config.{ConnectionSettings, Secrets, TlsProfile}

/** A client for the Confluent schema registry REST API (also served by Apicurio's
  * ccompat API, Karapace and Redpanda), on sttp over the JDK's HttpClient.
  * Answers are parsed tolerantly: registries differ in the fields they add.
  * Schemas by id and subject look-ups are cached (ids are immutable); 5xx answers
  * and connection errors are retried with backoff, nothing else is.
  */
final class RegistryClient private (baseUrl: String, makeBackend: () => SyncBackend, userInfo: Option[String], timeout: FiniteDuration,
                                    retries: Int = 3) {
  // Made on the first request: a replay that never decodes needs no HTTP client (nor its TLS stores loaded).
  @volatile private var made = false
  private lazy val backend = { made = true; makeBackend() }

  /** Closes the HTTP client, if one was made; see [[RegistryClient.resource]]. */
  private def close: IO[Unit] = IO.blocking(if (made) backend.close())
  private val contentType = MediaType("application", "vnd.schemaregistry.v1+json")
  private val base = baseUrl.stripSuffix("/")
  private val byId = TrieMap.empty[Int, RegisteredSchema]
  private val lookups = TrieMap.empty[(String, String, List[SchemaReference]), Lookup.Found]

  def describe: String = Secrets.maskUrl(base)

  private def enc(s: String) = URLEncoder.encode(s, UTF_8).replace("+", "%20")

  // Interruptible: the whole request is bounded by the deadline in [[request]], and a request it cancels stops.
  private def once(method: String, path: String, body: Option[Json], root: String): IO[Json] = IO.interruptible {
    val r0 = basicRequest.method(sttp.model.Method(method), uri"${root + path}").readTimeout(timeout)
      .header("Accept", "application/vnd.schemaregistry.v1+json, application/json")
    val r1 = body.fold(r0)(b => r0.body(b.noSpaces).contentType(contentType))
    val r2 = userInfo.fold(r1) { ui =>
      val (u, p) = ui.span(_ != ':'); r1.auth.basic(u, p.drop(1))
    }
    r2.send(backend)
  }.adaptError { case e: SttpClientException =>
    Failure.Unavailable(s"schema registry at $describe could not be reached: ${Option(e.getCause).map(_.toString).getOrElse(e.toString)}", e)
  }.flatMap { resp =>
    val text = resp.body.fold(identity, identity)
    val json = parse(if (text.trim.isEmpty) "null" else text).toOption
    // A Confluent-compatible registry answers in JSON, errors included: anything else is another server at this address.
    def notARegistry(what: String) = NotARegistry(describe, what)
    val where = path.takeWhile(_ != '?')
    json match {
      case Some(j) if resp.code.isSuccess => IO.pure(j)
      case None if resp.code.isSuccess => IO.raiseError(notARegistry(s"the answer to $where is not JSON"))
      case None if resp.code.code == 404 => IO.raiseError(notARegistry(s"404 on $where"))
      // A registry's 404 carries Confluent's error code (40401 subject, 40403 schema, ...); a JSON 404 without one is
      // another server's (Apicurio's own root answers so when the URL lacks /apis/ccompat/v7).
      case Some(j) if resp.code.code == 404 && j.hcursor.downField("error_code").focus.forall(_.isNull) =>
        IO.raiseError(notARegistry(s"404 on $where"))
      case _ => IO.raiseError(RegistryError.from(resp.code.code, text))
    }
  }

  /** One request with its retries, all within `timeout`: a registry that accepts and never answers costs the timeout,
    * not the timeout per attempt.
    */
  private def request(method: String, path: String, body: Option[Json] = None, root: String = base): IO[Json] = {
    // Tried again: a registry not reached (Failure.Unavailable from `once`) or broken (5xx); never one that answered
    // otherwise, nor another server at the address (NotARegistry).
    def attempt(n: Int): IO[Json] = once(method, path, body, root).handleErrorWith {
      case e @ (_: Failure.Unavailable | RegistryError(_, _, _)) if n < retries && retried(e) => IO.sleep((200L << n).millis) >> attempt(n + 1)
      case e: RegistryError if e.kind == RegistryError.Kind.Broken =>
        IO.raiseError(Failure.Unavailable(s"schema registry at $describe: ${e.getMessage}", e))
      case e => IO.raiseError(e)
    }
    attempt(0).timeoutTo(timeout, IO.raiseError(Failure.Unavailable(s"schema registry at $describe did not answer within ${timeout.toSeconds} s")))
  }

  private def retried(e: Throwable): Boolean = e match {
    case r: RegistryError => r.kind.retried
    case _: Failure.Unavailable => true
    case _ => false
  }

  /** An answer that is not what `request` asks for: exit 3 naming what came back. */
  private def garbled(request: String, expected: String, answer: Json) = RegistryGarbled(describe, request, expected, answer.noSpaces)

  private def as[A: Decoder](request: String, expected: String)(j: Json): IO[A] =
    IO.fromEither(j.as[A].left.map(_ => garbled(request, expected, j)))

  private def schemaBody(schema: String, references: List[SchemaReference]): Json =
    Json.obj("schema" -> schema.asJson, "schemaType" -> "AVRO".asJson, "references" -> references.asJson)

  /** Registers `schema` (Avro JSON) under `subject`; the registry's id for it, new or existing. */
  def register(subject: String, schema: String, references: List[SchemaReference] = Nil, normalize: Boolean = true): IO[Int] =
    request("POST", s"/subjects/${enc(subject)}/versions${if (normalize) "?normalize=true" else ""}", Some(schemaBody(schema, references)))
      .flatMap(j => as[Int](s"the registration under $subject", "schema id")(j.hcursor.downField("id").focus.getOrElse(j)))

  /** Whether `schema` is already registered under `subject`, telling a missing subject from an unregistered schema. */
  def lookup(subject: String, schema: String, references: List[SchemaReference] = Nil): IO[Lookup] =
    lookups.get((subject, schema, references)).fold {
      request("POST", s"/subjects/${enc(subject)}?normalize=true", Some(schemaBody(schema, references)))
        .flatMap(as[SubjectVersion](s"a look-up under $subject", "subject version")).map(v => Lookup.Found(v)).flatTap(f =>
          IO(lookups.put((subject, schema, references), f))).map(f => f: Lookup)
        .recover {
          case RegistryError(404, Some(40401), _) => Lookup.SubjectMissing
          case RegistryError(404, Some(40403), _) => Lookup.NotRegistered
          case RegistryError(404, None, _) => Lookup.SubjectMissing
        }
    }(x => IO.pure(x))

  /** The id of `schema` under `subject`: the one it is registered with, else (when `register`) a new one; otherwise
    * why there is none (the subject is missing, or holds no version of this schema).
    */
  def schemaId(subject: String, schema: String, register: Boolean): IO[Either[Lookup, Int]] =
    lookup(subject, schema).flatMap {
      case Lookup.Found(v) => IO.pure(Right(v.id))
      case _ if register => this.register(subject, schema).map(Right(_))
      case missing => IO.pure(Left(missing))
    }

  /** The candidate against one of the subject's versions (the latest by default), under the subject's compatibility
    * level. `verbose=true` asks for Confluent's reasons; a registry that ignores it (Apicurio's ccompat API) gives none.
    */
  def testCompatibility(subject: String, schema: String, references: List[SchemaReference] = Nil, version: String = "latest"): IO[Compatibility] =
    request("POST", s"/compatibility/subjects/${enc(subject)}/versions/$version?verbose=true", Some(schemaBody(schema, references))).map { j =>
      val c = j.hcursor
      Compatibility(c.get[Boolean]("is_compatible").getOrElse(false), c.get[List[String]]("messages").getOrElse(Nil))
    }

  /** The schema text (and its references) registered under a global id; cached, ids never change. */
  def schemaById(id: Int): IO[RegisteredSchema] =
    byId.get(id).fold {
      request("GET", s"/schemas/ids/$id").flatMap { j =>
        val c = j.hcursor
        IO.fromEither(c.get[String]("schema").map(s => RegisteredSchema(s, c.getOrElse[List[SchemaReference]]("references")(Nil).getOrElse(Nil)))
            .left.map(_ => garbled(s"schema id $id", "schema", j)))
      }.flatTap(s => IO(byId.put(id, s)))
    }(x => IO.pure(x))

  def subjects: IO[List[String]] = request("GET", "/subjects").flatMap(as[List[String]]("the list of subjects", "list of subjects"))

  def versions(subject: String): IO[List[Int]] =
    request("GET", s"/subjects/${enc(subject)}/versions").flatMap(as[List[Int]](s"the versions of $subject", "list of versions"))

  /** A subject's version (`latest` or a number); None when the subject does not exist. */
  def version(subject: String, version: String = "latest"): IO[Option[SubjectVersion]] =
    request("GET", s"/subjects/${enc(subject)}/versions/$version").flatMap(as[SubjectVersion](s"version $version of $subject", "subject version"))
      .map(Option(_))
      .recover { case RegistryError(404, _, _) => None }

  /** When each version of a subject was created, by version, where the registry says so: the Confluent API has no
    * such field, so this asks Apicurio's core API (`/apis/registry/v3`, next to its `/apis/ccompat/v7`) for its
    * `createdOn`, and only for versions whose id matches the Confluent API's. Empty for any other registry, or when the
    * core API does not answer as expected: dates are never guessed.
    */
  def apicurioCreatedOn(subject: String, ids: Map[Int, Int]): IO[Map[Int, String]] =
    RegistryClient.apicurioRoot(base).fold(IO.pure(Map.empty[Int, String])) { root =>
      request("GET", s"/apis/registry/v3/groups/default/artifacts/${enc(subject)}/versions?limit=1000", root = root).map { j =>
        j.hcursor.downField("versions").focus.flatMap(_.asArray).getOrElse(Vector.empty).flatMap { v =>
          val c = v.hcursor
          for {
            version <- c.get[String]("version").toOption.flatMap(_.toIntOption)
            created <- c.get[String]("createdOn").toOption
            id <- ids.get(version)
            if List("contentId", "globalId").exists(k => c.get[Int](k).toOption.contains(id))
          } yield version -> created
        }.toMap
      }.handleError(_ => Map.empty)
    }

  /** The global compatibility level; Confluent says `compatibilityLevel`, some registries `compatibility`. */
  def globalCompatibility: IO[String] = request("GET", "/config").flatMap(compatibilityOf("the global compatibility level"))

  def setGlobalCompatibility(level: String): IO[String] =
    request("PUT", "/config", Some(Json.obj("compatibility" -> level.asJson))).flatMap(compatibilityOf("the global compatibility level"))

  /** The level in force for a subject: its own, or the global one it falls back to. */
  def subjectCompatibility(subject: String): IO[String] =
    request("GET", s"/config/${enc(subject)}?defaultToGlobal=true").flatMap(compatibilityOf(s"the compatibility level of $subject"))
      .recoverWith { case RegistryError(404, _, _) => globalCompatibility }

  def setSubjectCompatibility(subject: String, level: String): IO[String] =
    request("PUT", s"/config/${enc(subject)}", Some(Json.obj("compatibility" -> level.asJson))).flatMap(
      compatibilityOf(s"the compatibility level of $subject"))

  private def compatibilityOf(request: String)(j: Json): IO[String] =
    IO.fromOption(j.hcursor.get[String]("compatibilityLevel").orElse(j.hcursor.get[String]("compatibility")).toOption)(
      garbled(request, "compatibility level", j))
}

object RegistryClient {

  /** The server root of an Apicurio registry's Confluent API URL (`.../apis/ccompat/v7`); None for any other URL. */
  def apicurioRoot(url: String): Option[String] =
    List("/apis/ccompat/v7", "/apis/ccompat/v6").find(url.stripSuffix("/").endsWith).map(url.stripSuffix("/").stripSuffix(_))

  /** The registry of `settings`, its HTTP client closed when the resource is released. */
  def resource(settings: ConnectionSettings, timeout: FiniteDuration = 30.seconds): Resource[IO, RegistryClient] =
    Resource.eval(IO.blocking(RegistryEndpoint.from(settings.registry)).flatMap(r => IO.fromEither(r.left.map(Failure.BadInput(_))))).flatMap {
      endpoint =>
        resource(endpoint.url, RegistryEndpoint.tlsProperties(settings.kafka.properties), settings.registry.caFile.map(_.value), endpoint.userInfo,
          timeout)
    }

  /** `tlsProperties`: Kafka `ssl.*` keys, the one TLS profile for broker and registry. */
  def resource(url: String, tlsProperties: Map[String, String], ca: Option[os.Path], userInfo: Option[String],
               timeout: FiniteDuration): Resource[IO, RegistryClient] = {
    def backend(): SyncBackend = {
      // The client's own threads, daemons: closing the backend shuts them down (sttp closes only clients it made).
      val threads = Executors.newCachedThreadPool { (r: Runnable) =>
        val t = new Thread(r, "registry-http"); t.setDaemon(true); t
      }
      val builder = HttpClient.newBuilder().executor(threads)
        .connectTimeout(Duration.ofMillis(timeout.toMillis min 10000L)).followRedirects(HttpClient.Redirect.NORMAL)
      // Plain http needs no TLS context; loading the key and trust stores is a noticeable share of start-up.
      if (url.startsWith("https:")) TlsProfile.sslContext(tlsProperties, ca).foreach(builder.sslContext)
      val client = builder.build()
      val inner = HttpClientSyncBackend.usingClient(client)
      new SyncBackend {
        def send[T](request: GenericRequest[T, Any with sttp.capabilities.Effect[sttp.shared.Identity]]): Response[T] = inner.send(request)
        def close(): Unit = {
          inner.close()
          threads.shutdownNow()
          client match { case c: AutoCloseable => c.close(); case _ => () } // JDK 21+: its selector thread too
        }
      }
    }
    Resource.make(IO(new RegistryClient(url, () => backend(), userInfo, timeout)))(_.close)
  }
}
