package bankops.base

import cats.effect.{Deferred, IO, Resource}
import cats.effect.std.Dispatcher
import sun.misc.Signal

/** Ctrl-C as an event: while held, SIGINT completes the returned effect instead of killing the JVM,
  * so a long run can stop reading, flush and print its summary; a second Ctrl-C exits at once.
  */
object Interrupt {
  def onCtrlC: Resource[IO, IO[Unit]] =
    Dispatcher.sequential[IO].flatMap { dispatcher =>
      Resource.make(Deferred[IO, Unit].flatMap { d =>
        IO {
          val previous = Signal.handle(new Signal("INT"), (_: Signal) =>
            if (dispatcher.unsafeRunSync(d.tryGet).isDefined) sys.exit(130) else dispatcher.unsafeRunAndForget(d.complete(())))
          (d, previous)
        }
      }) { case (_, previous) => IO(Signal.handle(new Signal("INT"), previous)).void }.map(_._1.get)
    }
}
