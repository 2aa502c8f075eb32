package bankops.jobs.sandbox

import cats.effect.IO
import coursierapi.{Dependency, Fetch, MavenRepository}

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.security.MessageDigest

import java.util.zip.ZipFile
import scala.jdk.CollectionConverters._

import bankops.base.Failure

/** The services' own artifacts, fetched from Maven Central by coursier (which
  * checks each file's published checksum) into a cache outside the repository.
  * Once cached, `sandbox up` needs no network.
  */
final class Artifacts(cacheDir: os.Path, mavenUrl: String) {
  import Artifacts._

  private def fetch(deps: Dependency*): Fetch =
    Fetch
      .create()
      .withRepositories(MavenRepository.of(mavenUrl))
      .withCache(coursierapi.Cache.create().withLocation((cacheDir / "coursier").toIO))
      .addDependencies(deps: _*)

  /** Broker and Kafka's own tools (TopicCommand, ProducerPerformance, ...) on one classpath. */
  val kafkaClasspath: IO[List[os.Path]] = IO.blocking {
    fetch(
      Dependency.of("org.apache.kafka", "kafka_2.13", KafkaVersion),
      Dependency.of("org.apache.kafka", "kafka-tools", KafkaVersion),
      Dependency.of("org.apache.logging.log4j", "log4j-core", Log4jVersion),
      Dependency.of("org.apache.logging.log4j", "log4j-slf4j2-impl", Log4jVersion)
    ).fetch().asScala.toList.map(f => os.Path(f.getAbsolutePath))
  }.adaptError { case e: coursierapi.error.CoursierError =>
    Failure.Unavailable(s"could not fetch Kafka $KafkaVersion from $mavenUrl: ${e.getMessage.linesIterator.mkString(" ")}", e)
  }

  /** Apicurio's runner jar, unpacked once from its distribution zip. The zip is
    * fetched by URL and checked against a pinned SHA-256: resolving it as a
    * dependency would need parent POMs that not every Maven Central mirror has.
    */
  val apicurioRunner: IO[os.Path] = IO.blocking {
    val dir = cacheDir / s"apicurio-registry-$ApicurioVersion"
    val runner = dir / s"apicurio-registry-app-$ApicurioVersion-runner.jar"
    if (!os.exists(runner)) {
      val name = s"apicurio-registry-app-$ApicurioVersion-all.zip"
      val zip = download(s"$mavenUrl/io/apicurio/apicurio-registry-app/$ApicurioVersion/$name", cacheDir / name, ApicurioZipSha256)
      val tmp = os.temp.dir(cacheDir, prefix = "apicurio-unpack")
      unzip(zip, tmp)
      // Another sandbox starting at once (the tests' shards) may have unpacked it first and be running it: keep that.
      try os.move(tmp, dir, atomicMove = true)
      catch {
        case _: java.nio.file.FileAlreadyExistsException | _: java.nio.file.DirectoryNotEmptyException if os.exists(runner) => os.remove.all(tmp)
      }
    }
    runner
  }

  private def download(url: String, target: os.Path, sha256: String): os.Path = {
    if (!os.exists(target)) {
      os.makeDir.all(target / os.up)
      // A part of its own: two processes fetching at once (the tests' shards, two `sandbox up`) write apart.
      val part = target / os.up / s"${target.last}.${java.util.UUID.randomUUID()}.part"
      val client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).connectTimeout(java.time.Duration.ofSeconds(20)).build()
      val resp = client.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofFile(part.toNIO))
      if (resp.statusCode() != 200) {
        os.remove(part, checkExists = false); throw Failure.Unavailable(s"could not download $url: HTTP ${resp.statusCode()}")
      }
      val digest = MessageDigest.getInstance("SHA-256")
      val in = os.read.inputStream(part)
      try { val buf = new Array[Byte](1 << 16); Iterator.continually(in.read(buf)).takeWhile(_ >= 0).foreach(n => digest.update(buf, 0, n)) }
      finally in.close()
      val actual = digest.digest().map("%02x".format(_)).mkString
      if (actual != sha256) { os.remove(part); throw Failure.Unavailable(s"$url failed its checksum check (sha256 $actual); refusing to use it") }
      os.move(part, target, replaceExisting = true)
    }
    target
  }

  private def unzip(zip: os.Path, into: os.Path): Unit = {
    val z = new ZipFile(zip.toIO)
    try
      z.entries().asScala.foreach { e =>
        val target = into / os.RelPath(e.getName.stripSuffix("/"))
        if (!target.startsWith(into)) throw new IllegalStateException(s"unsafe entry ${e.getName} in $zip")
        if (e.isDirectory) os.makeDir.all(target)
        else os.write.over(target, z.getInputStream(e), createFolders = true)
      }
    finally z.close()
  }
}

object Artifacts {
  val KafkaVersion = "4.1.2"
  val Log4jVersion = "2.24.3"
  val ApicurioVersion = "3.0.9"
  private val ApicurioZipSha256 = "8fc13160eaaafeec930a9a93b7e82da1ee8caef3eae29c9ce4b403d80a1523ea"

  def cacheDir(env: Map[String, String]): os.Path =
    env.get("BANKOPS_CACHE").filter(_.nonEmpty).map(os.Path(_, os.pwd))
      .orElse(env.get("XDG_CACHE_HOME").filter(_.nonEmpty).map(p => os.Path(p, os.pwd) / "bankops"))
      .getOrElse(os.home / ".cache" / "bankops")

  def mavenUrl(env: Map[String, String]): String =
    env.get("BANKOPS_MAVEN_URL").filter(_.nonEmpty).getOrElse("https://repo1.maven.org/maven2")
}
