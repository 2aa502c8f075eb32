package bankops.jobs.produce

import cats.effect.IO
import cats.effect.std.Queue
import fs2.Stream

import java.io.InputStream

import bankops.base.LineReader

/** The lines of standard input, numbered from 1, as they arrive, each decoded on its own (a bad line is named by its
  * number, and every line before it is read). They are read on a fiber that is never cancelled: a read blocked on a
  * terminal or a pipe cannot be, and Ctrl-C must end the stream without waiting for the next line.
  */
private[produce] object InputLines {
  def of(in: InputStream): Stream[IO, Either[String, (String, Int)]] =
    Stream.eval(Queue.bounded[IO, Option[Either[String, (String, Int)]]](256)).flatMap { queue =>
      val reader = new LineReader(in, "stdin")
      def next: IO[Unit] =
        IO.blocking(reader.next()).attempt.flatMap {
          case Right(None) => queue.offer(None)
          case Right(Some(line @ Right(_))) => queue.offer(Some(line)) >> next
          case Right(Some(error)) => queue.offer(Some(error)) >> queue.offer(None)
          case Left(e) => queue.offer(Some(Left(s"stdin: ${e.getMessage}"))) >> queue.offer(None)
        }
      Stream.eval(next.start) >> Stream.fromQueueNoneTerminated(queue, 256)
    }
}
