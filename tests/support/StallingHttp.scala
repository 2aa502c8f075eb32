package bankops.support

import cats.effect.{IO, Resource}

import java.io.{BufferedReader, InputStreamReader}
import java.net.{InetAddress, ServerSocket, Socket}
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicInteger

/** An HTTP server whose first `stalls` answers send their headers and the start of a JSON body, then nothing more (the
  * connection held open until the resource is released); later answers are `body` whole. `asked` counts the requests.
  */
object StallingHttp {
  def resource(stalls: Int, body: String, asked: AtomicInteger = new AtomicInteger): Resource[IO, Int] = Resource.make(IO.blocking {
    val server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress)
    val held = new ConcurrentLinkedQueue[Socket]()
    def answer(s: Socket): Unit = {
      val in = new BufferedReader(new InputStreamReader(s.getInputStream, UTF_8))
      // The request line and headers (the requests asked here carry no body).
      while (Option(in.readLine()).exists(_.nonEmpty)) ()
      val bytes = body.getBytes(UTF_8)
      val head = s"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n".getBytes(UTF_8)
      val out = s.getOutputStream
      if (asked.incrementAndGet() <= stalls) { out.write(head); out.write(bytes.take(1)); out.flush() }
      else { out.write(head); out.write(bytes); out.flush(); s.close() }
    }
    val acceptor = new Thread(
      () =>
        try while (true) {
            val s = server.accept()
            held.add(s)
            try answer(s)
            catch { case _: java.io.IOException => () }
          }
        catch { case _: java.io.IOException => () }, "stalling-http")
    acceptor.setDaemon(true)
    acceptor.start()
    (server, held)
  }) { case (server, held) => IO.blocking { server.close(); held.forEach(_.close()) } }.map(_._1.getLocalPort)
}
