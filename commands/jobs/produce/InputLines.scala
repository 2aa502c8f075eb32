package bankops.jobs.produce

import cats.effect.IO
import cats.effect.std.Queue
import fs2.Stream

import java.io.{BufferedReader, InputStream, InputStreamReader}
import java.nio.charset.StandardCharsets.UTF_8

/** The lines of standard input, numbered from 1, as they arrive. They are read on a fiber that is never cancelled: a read
  * blocked on a terminal or a pipe cannot be, and Ctrl-C must end the stream without waiting for the next line.
  */
object InputLines {
  def of(in: InputStream): Stream[IO, Either[String, (String, Int)]] =
    Stream.eval(Queue.bounded[IO, Option[Either[String, (String, Int)]]](256)).flatMap { queue =>
      val reader = new BufferedReader(new InputStreamReader(in, UTF_8.newDecoder()))
      def next(n: Int): IO[Unit] =
        IO.blocking(reader.readLine()).attempt.flatMap {
          case Right(null) => queue.offer(None)
          case Right(line) => queue.offer(Some(Right(line -> n))) >> next(n + 1)
          case Left(_: java.nio.charset.CharacterCodingException) => queue.offer(Some(Left(s"stdin:$n: not UTF-8 text"))) >> queue.offer(None)
          case Left(e) => queue.offer(Some(Left(s"stdin:$n: ${e.getMessage}"))) >> queue.offer(None)
        }
      Stream.eval(next(1).start) >> Stream.fromQueueNoneTerminated(queue, 256)
    }
}
