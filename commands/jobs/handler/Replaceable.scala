package bankops.jobs.handler

import cats.effect.{IO, Resource, SyncIO}

/** A client the handler keeps until it may be broken: acquired on first use, released and dropped after a failure,
  * acquired anew on the next use, and released for good with the loop. The client is a `SyncIO` resource so that
  * acquiring and releasing it run on the calling thread: the loop's calls (the rebalance listener's inside `poll`
  * included) are synchronous on its one blocking thread, where cats-effect's `Hotswap` would run them on another.
  */
private[handler] final class Replaceable[A] private (client: Resource[SyncIO, A]) {
  private var held: Option[(A, SyncIO[Unit])] = None

  /** The client, acquired now when none is held. */
  def get(): A = held match {
    case Some((a, _)) => a
    case None =>
      val (a, release) = client.allocated.unsafeRunSync()
      held = Some((a, release))
      a
  }

  /** The client held, if any; none is acquired. */
  def current: Option[A] = held.map(_._1)

  /** Releases the client held, if any: the next `get` acquires a new one. */
  def drop(): Unit = held.foreach { case (_, release) => held = None; release.unsafeRunSync() }
}

private[handler] object Replaceable {
  /** A holder whose client, if one is held, is released with the resource. */
  def resource[A](client: Resource[SyncIO, A]): Resource[IO, Replaceable[A]] =
    Resource.make(IO(new Replaceable(client)))(r => IO.blocking(r.drop()))
}
