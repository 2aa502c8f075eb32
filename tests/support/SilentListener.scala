package bankops.support

import cats.effect.{IO, Resource}

import java.net.{InetAddress, ServerSocket, Socket}
import java.util.concurrent.ConcurrentLinkedQueue

/** A port that accepts connections and never answers: the fault a hung service presents, which a connect timeout
  * alone does not catch. Connections are held open until the resource is released.
  */
object SilentListener {
  def resource: Resource[IO, Int] = Resource.make(IO.blocking {
    val server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress)
    val held = new ConcurrentLinkedQueue[Socket]()
    val acceptor = new Thread(() =>
        try while (true) held.add(server.accept())
        catch { case _: java.io.IOException => () }, "silent-listener")
    acceptor.setDaemon(true)
    acceptor.start()
    (server, held)
  }) { case (server, held) => IO.blocking { server.close(); held.forEach(_.close()) } }.map(_._1.getLocalPort)
}
