package bankops.support

import cats.effect.{IO, Resource}

import java.net.{InetAddress, InetSocketAddress, ServerSocket, Socket}
import scala.util.Try

/** A loopback TCP relay to `target` that a test can cut: while down, every connection is accepted and closed at once (a
  * service that went away behind its address), and the connections already open are closed too.
  */
final class TcpRelay private (target: InetSocketAddress) {
  private val server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress)
  @volatile private var up = true
  private val open = java.util.concurrent.ConcurrentHashMap.newKeySet[Socket]()

  def port: Int = server.getLocalPort

  def down(): Unit = { up = false; open.forEach(s => Try(s.close())); open.clear() }
  def restore(): Unit = up = true

  private def daemon(name: String)(body: => Unit): Unit = { val t = new Thread(() => body, name); t.setDaemon(true); t.start() }

  private def pump(from: Socket, to: Socket): Unit = daemon("relay-pump") {
    Try(from.getInputStream.transferTo(to.getOutputStream))
    Try(from.close()); Try(to.close())
  }

  daemon("relay-accept") {
    while (!server.isClosed) Try(server.accept()).foreach { client =>
      if (!up) Try(client.close())
      else Try(new Socket(target.getAddress, target.getPort)).fold(_ => Try(client.close()),
        { upstream =>
          open.add(client); open.add(upstream)
          pump(client, upstream); pump(upstream, client)
        })
    }
  }

  private def close(): Unit = { Try(server.close()); down() }
}

object TcpRelay {
  def resource(host: String, port: Int): Resource[IO, TcpRelay] =
    Resource.make(IO.blocking(new TcpRelay(new InetSocketAddress(host, port))))(r => IO.blocking(r.close()))
}
