package bankops.services.registry

import cats.effect.IO

import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.{CompletableFuture, CompletionException, ExecutorService, Executors}
import javax.net.ssl.SSLContext
import scala.concurrent.duration._

import bankops.base.Failure

/** The registry's HTTP exchanges, on the JDK's HttpClient, asynchronously: a deadline that cancels one returns at once.
  * The blocking body stream (what sttp's sync backend read) ignores interrupts on JDK 17, and `HttpRequest.timeout`
  * ends at the headers, so an answer whose body stalled held a run for good: a test run here hung ten minutes in one,
  * twice. An answer whose body has not come `bodyWithin` after its headers is an error the caller may ask again.
  */
private[registry] final class RegistryHttp(client: HttpClient, threads: ExecutorService, timeout: FiniteDuration, describe: String) {
  private val bodyWithin = timeout min RegistryHttp.BodyWithin

  /** The answer's status and body (UTF-8); `where`, the path as messages name it. Connection failures and a stalled
    * body are [[Failure.Unavailable]].
    */
  def exchange(method: String, url: String, where: String, body: Option[String], headers: List[(String, String)]): IO[(Int, String)] = {
    val request = IO {
      val b = HttpRequest.newBuilder(URI.create(url)).timeout(java.time.Duration.ofMillis(timeout.toMillis))
        .method(method, body.fold(HttpRequest.BodyPublishers.noBody())(HttpRequest.BodyPublishers.ofString(_, UTF_8)))
      headers.foreach { case (k, v) => b.header(k, v) }
      b.build()
    }
    request.flatMap { r =>
      val headersCame = new CompletableFuture[Unit]()
      val answer = IO(client.sendAsync(r,
          (_: HttpResponse.ResponseInfo) => {
            headersCame.complete(()); HttpResponse.BodySubscribers.ofString(UTF_8)
          }))
      val stalled = RegistryHttp.await(headersCame) >> IO.sleep(bodyWithin) >> IO.raiseError[HttpResponse[String]](Failure.Unavailable(
          s"schema registry at $describe sent the headers of its answer to $where and then no whole body for " +
            s"${bodyWithin.toSeconds} s"))
      IO.race(stalled, answer.flatMap(RegistryHttp.await)).map(_.merge).map(a => (a.statusCode, a.body))
    }.adaptError { case e: java.io.IOException =>
      Failure.Unavailable(s"schema registry at $describe could not be reached: $e", e)
    }
  }

  /** This client's selector thread while it runs (JDK 17), for a test that it ends on close. */
  private[registry] def selector: Option[Thread] = RegistryHttp.selectorThread(client)

  def close: IO[Unit] = IO.blocking {
    threads.shutdownNow()
    client match {
      case c: AutoCloseable => c.close() // JDK 21+: its selector thread too
      case c => RegistryHttp.selectorThread(c).foreach(RegistryHttp.stop)
    }
  }
}

private[registry] object RegistryHttp {
  /** Long enough for any registry answer on a working connection; a stalled one is asked again within the deadline. */
  val BodyWithin: FiniteDuration = 10.seconds

  /** An HTTP client with its own daemon threads (closed with it), trusting `ssl` when given. */
  def apply(timeout: FiniteDuration, ssl: Option[SSLContext], describe: String): RegistryHttp = {
    val threads = Executors.newCachedThreadPool { (r: Runnable) =>
      val t = new Thread(r, "registry-http"); t.setDaemon(true); t
    }
    // HTTP/1.1, as Confluent's own client speaks: on http:// the JDK's default HTTP/2 first asks to upgrade (h2c), a
    // protocol switch per client that buys nothing for a job's few small JSON exchanges (a fresh client's first answer
    // from the sandbox's registry: median 5 ms with the upgrade, 3 ms without, 300 in a row each).
    val builder = HttpClient.newBuilder().executor(threads).version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(java.time.Duration.ofMillis(timeout.toMillis min 10000L)).followRedirects(HttpClient.Redirect.NORMAL)
    ssl.foreach(builder.sslContext)
    new RegistryHttp(builder.build(), threads, timeout, describe)
  }

  /** The JDK 17 client's selector thread, which only ends when interrupted (or seconds after the client is collected).
    * While it waits in epoll it is a thread in native code, and the JVM's exit waits up to 300 ms for such threads
    * (HotSpot's `VM_Exit::wait_for_threads_in_native_to_block`): every job that used the registry ended 330 ms after
    * its last line, against 15 ms for `topics list`. It is named for the client's id, the number its `toString` ends with.
    */
  private def selectorThread(client: HttpClient): Option[Thread] =
    """\((\d+)\)$""".r.findFirstMatchIn(client.toString).map(m => s"HttpClient-${m.group(1)}-SelectorManager").flatMap { name =>
      import scala.jdk.CollectionConverters._
      Thread.getAllStackTraces.keySet.asScala.find(_.getName == name)
    }

  /** Interrupted until it ends, for a second at most: an interrupt that lands while it is busy (a response just
    * handled) can be consumed there, and it selects on.
    */
  private def stop(selector: Thread): Unit = {
    var tries = 0
    while (selector.isAlive && tries < 20) { selector.interrupt(); selector.join(50); tries += 1 }
  }

  /** `cf`'s outcome; cancelling returns at once (the future is cancelled, never waited for). */
  private def await[A](cf: CompletableFuture[A]): IO[A] = IO.async { cb =>
    IO {
      cf.whenComplete { (a: A, e: Throwable) =>
        cb(Option(e).map { case c: CompletionException if c.getCause != null => c.getCause; case t => t }.toLeft(a))
      }
      Some(IO { cf.cancel(false); () })
    }
  }
}
