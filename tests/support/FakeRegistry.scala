package bankops.support

import cats.effect.{IO, Resource}
import com.sun.net.httpserver.{HttpExchange, HttpServer}
import io.circe.Json
import io.circe.parser.parse
import org.apache.avro.Schema

import java.net.{InetAddress, InetSocketAddress}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ConcurrentLinkedQueue
import scala.collection.concurrent.TrieMap
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._
import scala.util.chaining._

import bankops.services.registry.RegistryClient

/** A schema registry in memory on a local port, for unit tests of what talks to one: the part of Confluent's REST API
  * the jobs use (a schema by id, register, look up, a subject's latest version), without references or compatibility.
  * Schemas are told apart by their parsed form, as a registry that normalizes does; each request is remembered.
  */
final class FakeRegistry private (port: Int) {
  private val schemas = TrieMap.empty[Int, String]
  private val subjects = TrieMap.empty[String, Vector[Int]]
  private val asked = new ConcurrentLinkedQueue[String]()

  val url: String = s"http://127.0.0.1:$port"

  /** Every request so far, as `GET /schemas/ids/3`. */
  def requests: List[String] = asked.asScala.toList

  private val types = TrieMap.empty[Int, String]

  /** A schema under an id of the test's choosing (another registry's numbering), in no subject; `schemaType` as a
    * registry answers it for a JSON or Protobuf schema (none for Avro, as Confluent's API does).
    */
  def put(id: Int, schema: String, schemaType: Option[String] = None): Unit = {
    schemas(id) = schema
    schemaType.foreach(types(id) = _)
  }

  /** Registers `schema` under `subject`: its id, the one it already has when the same schema is known. */
  def register(subject: String, schema: String): Int = synchronized {
    val id = idOf(schema).getOrElse((schemas.keys.maxOption.getOrElse(0) + 1).tap(schemas(_) = schema))
    if (!subjects.getOrElse(subject, Vector.empty).contains(id)) subjects(subject) = subjects.getOrElse(subject, Vector.empty) :+ id
    id
  }

  /** The schema text registered under an id. */
  def schema(id: Int): String = schemas(id)

  /** The versions of a subject, as ids. */
  def versions(subject: String): Vector[Int] = subjects.getOrElse(subject, Vector.empty)

  private def same(a: String, b: String) = scala.util.Try(new Schema.Parser().parse(a) == new Schema.Parser().parse(b)).getOrElse(false)
  private def idOf(schema: String): Option[Int] = schemas.collectFirst { case (id, s) if same(s, schema) => id }

  private def version(subject: String, v: Int): Json = Json.obj("subject" -> Json.fromString(subject), "version" -> Json.fromInt(v),
    "id" -> Json.fromInt(subjects(subject)(v - 1)), "schema" -> Json.fromString(schemas(subjects(subject)(v - 1))))

  private def notFound(code: Int, message: String) = (404, Json.obj("error_code" -> Json.fromInt(code), "message" -> Json.fromString(message)))

  private def answer(method: String, path: String, body: String): (Int, Json) = {
    lazy val schema = parse(body).toOption.flatMap(_.hcursor.get[String]("schema").toOption).getOrElse("")
    (method, path.split('/').toList.drop(1)) match {
      case ("GET", List("schemas", "ids", id)) =>
        schemas.get(id.toInt).fold(notFound(40403, "Schema not found"))(s =>
          (200, Json.obj(("schema" -> Json.fromString(s)) :: types.get(id.toInt).map("schemaType" -> Json.fromString(_)).toList: _*)))
      case ("POST", List("subjects", subject, "versions")) => (200, Json.obj("id" -> Json.fromInt(register(subject, schema))))
      case ("POST", List("subjects", subject)) =>
        if (!subjects.contains(subject)) notFound(40401, s"Subject '$subject' not found.")
        else versions(subject).indexWhere(id => same(schemas(id), schema)) match {
          case -1 => notFound(40403, "Schema not found")
          case i => (200, version(subject, i + 1))
        }
      case ("GET", List("subjects", subject, "versions", "latest")) =>
        if (!subjects.contains(subject)) notFound(40401, s"Subject '$subject' not found.") else (200, version(subject, versions(subject).size))
      case _ => (405, Json.obj("error_code" -> Json.fromInt(405), "message" -> Json.fromString(s"the fake registry does not serve $method $path")))
    }
  }

  private def handle(x: HttpExchange): Unit = {
    val (method, path) = (x.getRequestMethod, x.getRequestURI.getPath)
    asked.add(s"$method $path")
    val (status, json) = answer(method, path, new String(x.getRequestBody.readAllBytes(), UTF_8))
    val bytes = json.noSpaces.getBytes(UTF_8)
    x.getResponseHeaders.add("Content-Type", "application/vnd.schemaregistry.v1+json")
    x.sendResponseHeaders(status, bytes.length.toLong)
    x.getResponseBody.write(bytes)
    x.close()
  }
}

object FakeRegistry {
  def resource: Resource[IO, FakeRegistry] =
    Resource.make(IO.blocking(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress, 0), 0)))(s => IO.blocking(s.stop(0))).evalMap {
      s =>
        IO.blocking {
          val registry = new FakeRegistry(s.getAddress.getPort)
          s.createContext("/", (x: HttpExchange) => registry.handle(x))
          s.start()
          registry
        }
    }

  /** The registry and a client of it, as the jobs make one. */
  def withClient: Resource[IO, (FakeRegistry, RegistryClient)] =
    resource.flatMap(r => RegistryClient.resource(r.url, Map.empty, None, None, 5.seconds).map(r -> _))
}
