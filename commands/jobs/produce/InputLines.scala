package bankops.jobs.produce

import cats.effect.IO
import cats.effect.std.Queue
import fs2.{Chunk, Stream}

import java.io.InputStream

import bankops.base.LineReader

/** The lines of standard input, numbered from 1, as they arrive, each decoded on its own (a bad line is named by its
  * number, and every line before it is read). They are read on a fiber that is never cancelled: a read blocked on a
  * terminal or a pipe cannot be, and Ctrl-C must end the stream without waiting for the next line. Each read takes the
  * lines that have arrived, up to 1,024 or 256 KiB, as one chunk: a pipe's lines are sent many at a time (a line a read
  * and a queue offer each made `produce` send 200,000 piped lines at 8,500 a second), a terminal's as each is typed.
  */
private[produce] object InputLines {
  def of(in: InputStream): Stream[IO, Either[String, (String, Int)]] =
    Stream.eval(Queue.bounded[IO, Option[Chunk[Either[String, (String, Int)]]]](4)).flatMap { queue =>
      val reader = new LineReader(in, "stdin")
      def next: IO[Unit] =
        IO.blocking(reader.batch(waiting = false)).attempt.flatMap {
          case Right(lines) if lines.isEmpty => queue.offer(None)
          case Right(lines) if lines.last.exists(_.isLeft) => queue.offer(Some(lines)) >> queue.offer(None)
          case Right(lines) => queue.offer(Some(lines)) >> next
          case Left(e) => queue.offer(Some(Chunk.singleton(Left(s"stdin: ${e.getMessage}")))) >> queue.offer(None)
        }
      Stream.eval(next.start) >> Stream.fromQueueNoneTerminated(queue).unchunks
    }
}
