package bankops.services.registry

import cats.effect.{IO, Resource}
import io.circe.{Decoder, Json}
import io.circe.parser.parse
import io.circe.syntax._

import java.net.URLEncoder
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Base64
import scala.collection.concurrent.TrieMap
import scala.concurrent.duration._

import bankops.base.Failure
import bankops.services.config.{ConnectionSettings, Secrets, TlsProfile}

/** A client for the Confluent schema registry REST API (also served by Apicurio's
  * ccompat API, Karapace and Redpanda), over the JDK's HttpClient ([[RegistryHttp]]).
  * Answers are parsed tolerantly: registries differ in the fields they add.
  * Schemas by id and subject look-ups are cached (ids are immutable); 5xx answers
  * and connection errors are retried with backoff, nothing else is.
  */
final class RegistryClient private (baseUrl: String, makeHttp: String => RegistryHttp, userInfo: Option[String], timeout: FiniteDuration,
                                    retries: Int = 3) {
  // Made on the first request: a replay that never decodes needs no HTTP client (nor its TLS stores loaded).
  @volatile private var made = false
  private lazy val http = { made = true; makeHttp(describe) }

  /** Closes the HTTP client, if one was made; see [[RegistryClient.resource]]. Whether it was is asked when the IO runs:
    * asked when the release was built, it was always "no", and no client was ever closed (its threads stayed on).
    */
  private def close: IO[Unit] = IO.defer(if (made) http.close else IO.unit)

  /** The HTTP client's selector thread, once a request made the client (for a test). */
  private[registry] def selector: Option[Thread] = if (made) http.selector else None
  private val headers = List("Accept" -> "application/vnd.schemaregistry.v1+json, application/json") ++
    userInfo.map { ui =>
      val (user, password) = ui.span(_ != ':')
      "Authorization" -> ("Basic " + Base64.getEncoder.encodeToString(s"$user:${password.drop(1)}".getBytes(UTF_8)))
    }
  private val base = baseUrl.stripSuffix("/")
  private val byId = TrieMap.empty[Int, RegisteredSchema]
  private val lookups = TrieMap.empty[(String, String, List[SchemaReference]), Lookup.Found]

  def describe: String = Secrets.maskUrl(base)

  private def enc(s: String) = URLEncoder.encode(s, UTF_8).replace("+", "%20")

  // Bounded by the deadline in [[request]], which cancels it.
  private def once(method: String, path: String, body: Option[Json], root: String): IO[Json] = {
    val contentType = body.map(_ => "Content-Type" -> "application/vnd.schemaregistry.v1+json").toList
    http.exchange(method, root + path, path.takeWhile(_ != '?'), body.map(_.noSpaces), headers ++ contentType)
  }.flatMap { case (code, text) =>
    val json = parse(if (text.trim.isEmpty) "null" else text).toOption
    // A Confluent-compatible registry answers in JSON, errors included: anything else is another server at this address.
    def notARegistry(what: String) = NotARegistry(describe, what)
    val where = path.takeWhile(_ != '?')
    json match {
      case Some(j) if code / 100 == 2 => IO.pure(j)
      case None if code / 100 == 2 => IO.raiseError(notARegistry(s"the answer to $where is not JSON"))
      case None if code == 404 => IO.raiseError(notARegistry(s"404 on $where"))
      // A registry's 404 carries Confluent's error code (40401 subject, 40403 schema, ...); a JSON 404 without one is
      // another server's (Apicurio's own root answers so when the URL lacks /apis/ccompat/v7).
      case Some(j) if code == 404 && j.hcursor.downField("error_code").focus.forall(_.isNull) =>
        IO.raiseError(notARegistry(s"404 on $where"))
      case _ => IO.raiseError(RegistryError.from(code, text))
    }
  }

  /** One request with its retries, all within `timeout`: a registry that accepts and never answers costs the timeout,
    * not the timeout per attempt.
    */
  private def request(method: String, path: String, body: Option[Json] = None, root: String = base): IO[Json] = {
    // Tried again: a registry not reached (Failure.Unavailable from `once`), busy (408, 429) or broken (5xx); never one
    // that answered otherwise, nor another server at the address (NotARegistry).
    def attempt(n: Int): IO[Json] = once(method, path, body, root).handleErrorWith {
      case e @ (_: Failure.Unavailable | RegistryError(_, _, _)) if n < retries && retried(e) => IO.sleep((200L << n).millis) >> attempt(n + 1)
      case e: RegistryError if e.kind.retried =>
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
        IO.fromEither(c.get[String]("schema").map(s =>
            RegisteredSchema(s, c.getOrElse[List[SchemaReference]]("references")(Nil).getOrElse(Nil),
              c.get[String]("schemaType").toOption.filter(_.nonEmpty).getOrElse(RegisteredSchema.Avro)))
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
    // Plain http needs no TLS context; loading the key and trust stores is a noticeable share of start-up.
    // `describe`: the client's own name for the registry (its address, credentials masked), for the errors.
    def http(describe: String): RegistryHttp =
      RegistryHttp(timeout, if (url.startsWith("https:")) TlsProfile.sslContext(tlsProperties, ca) else None, describe)
    Resource.make(IO(new RegistryClient(url, http, userInfo, timeout)))(_.close)
  }
}
