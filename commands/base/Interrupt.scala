package bankops.base

import cats.effect.{Deferred, IO, Resource}
import cats.effect.std.Dispatcher
import sun.misc.Signal

/** Ctrl-C as an event: while held, SIGINT completes the returned effect instead of killing the JVM,
  * so a long run can stop reading, flush and print its summary; a second Ctrl-C exits at once.
  */
object Interrupt {
  def onCtrlC: Resource[IO, IO[Unit]] = onSignals(List("INT")).map(_.void)

  /** As `onCtrlC`, for each of the signals `names` (INT, TERM): the returned effect completes with the first one's name
    * (SIGTERM); a second signal exits at once, 128 plus its number.
    */
  def onSignals(names: List[String]): Resource[IO, IO[String]] =
    Dispatcher.sequential[IO].flatMap { dispatcher =>
      Resource.make(Deferred[IO, String].flatMap { d =>
        IO {
          val previous = names.map { name =>
            name -> Signal.handle(new Signal(name),
              (s: Signal) =>
                if (dispatcher.unsafeRunSync(d.tryGet).isDefined) sys.exit(128 + s.getNumber)
                else dispatcher.unsafeRunAndForget(d.complete(s"SIG$name")))
          }
          (d, previous)
        }
      }) { case (_, previous) => IO(previous.foreach { case (name, h) => Signal.handle(new Signal(name), h) }) }.map(_._1.get)
    }

  /** SIGINT and SIGTERM as a request to stop: while held, either signal sets the returned flag (a service finishes the
    * work in hand, then exits 0; its long waits read the flag too); a second signal exits at once. `heard` is told the
    * first signal's name (SIGTERM), so whoever sent it sees it arrive while the work in hand is finished.
    */
  def onStop(heard: String => Unit): Resource[IO, () => Boolean] =
    Resource.make(IO {
      val flag = new java.util.concurrent.atomic.AtomicBoolean(false)
      val previous = List("INT", "TERM").map { name =>
        name -> Signal.handle(new Signal(name), (s: Signal) => if (flag.getAndSet(true)) sys.exit(128 + s.getNumber) else heard(s"SIG$name"))
      }
      (flag, previous)
    }) { case (_, previous) => IO(previous.foreach { case (name, h) => Signal.handle(new Signal(name), h) }) }.map { case (flag, _) =>
      () => flag.get
    }
}
