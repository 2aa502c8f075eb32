package bankops.support

import cats.effect.{IO, Resource}
import com.sun.net.httpserver.{HttpExchange, HttpServer}

import java.net.{InetAddress, InetSocketAddress}
import java.util.concurrent.atomic.{AtomicInteger, AtomicReference}

/** A local HTTP server answering every request with `status` and `body` (as HTML), remembering the last Authorization
  * header in `seen` and counting the requests in `asked`: a web server where a registry should be.
  */
object HttpStub {
  def resource(status: Int, body: String, seen: AtomicReference[String] = new AtomicReference(""),
               asked: AtomicInteger = new AtomicInteger): Resource[IO, Int] =
    Resource.make(IO.blocking {
      val s = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress, 0), 0)
      s.createContext("/",
        (x: HttpExchange) => {
          seen.set(Option(x.getRequestHeaders.getFirst("Authorization")).getOrElse(""))
          asked.incrementAndGet()
          val bytes = body.getBytes("UTF-8")
          x.getResponseHeaders.add("Content-Type", "text/html")
          x.sendResponseHeaders(status, bytes.length.toLong)
          x.getResponseBody.write(bytes)
          x.close()
        })
      s.start()
      s
    })(s => IO.blocking(s.stop(0))).map(_.getAddress.getPort)
}
