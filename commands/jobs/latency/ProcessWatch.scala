package bankops.jobs.latency

import cats.effect.{IO, Ref}
import cats.syntax.all._

import bankops.base.Failure
import bankops.services.config.SandboxConnection

/** Samples the watched processes from /proc and the handler group's lag; CPU is the use since the previous sample. */
private[latency] final class ProcessWatch private (targets: List[(Long, String)], ticksPerSecond: Long, lag: IO[Option[Long]],
                                                   previous: Ref[IO, Map[Long, (ProcSample, Long)]]) {
  def sample(step: Int): IO[Sample] =
    for {
      read <- IO.blocking(targets.flatMap { case (pid, label) => ProcessWatch.read(pid).map(s => (label, s)) })
      now = System.nanoTime()
      before <- previous.getAndSet(read.map { case (_, s) => s.pid -> (s, now) }.toMap)
      loads = read.map { case (label, s) =>
        ProcessLoad(label, s.pid, before.get(s.pid).flatMap { case (b, at) => ProcSample.cpuPercent(b, at, s, now, ticksPerSecond) }, s.rssBytes)
      }
      // The lag is a figure among others: a slow or failed look-up leaves it out rather than stopping the run.
      l <- lag.handleError(_ => None)
    } yield Sample(step, loads, l)
}

private[latency] object ProcessWatch {
  private def read(pid: Long): Option[ProcSample] = {
    val dir = os.root / "proc" / pid.toString
    scala.util.Try(ProcSample.parse(pid, os.read(dir / "stat"), os.read(dir / "status"))).toOption.flatten
  }

  /** The sandbox's handler, when one runs: the pid in its pid file, if that process is a bankops handler. */
  def sandboxHandler(dir: os.Path): IO[Option[Long]] = IO.blocking {
    val file = SandboxConnection.pidFile(dir, "handler")
    for {
      pid <- if (os.exists(file)) os.read(file).trim.toLongOption else None
      cmd = os.root / "proc" / pid.toString / "cmdline"
      if os.exists(cmd) && ProcSample.label(os.read(cmd), "") == "handler"
    } yield pid
  }

  /** Names each pid, apart from the others: exit 2 for one that is not a running process. */
  def targets(pids: List[Long]): IO[List[(Long, String)]] =
    pids.distinct.traverse { pid =>
      IO.blocking {
        val dir = os.root / "proc" / pid.toString
        if (pid <= 0 || !os.exists(dir / "stat")) None
        else scala.util.Try(ProcSample.label(os.read(dir / "cmdline"), os.read(dir / "comm"))).toOption.map(pid -> _)
      }.flatMap(IO.fromOption(_)(Failure.BadInput(s"--watch-pid $pid: no such process")))
    }.map(ProcSample.distinctLabels)

  /** Takes a first sample of each target, so the first step's CPU figures cover the step. */
  def apply(targets: List[(Long, String)], lag: IO[Option[Long]]): IO[ProcessWatch] =
    for {
      ticks <- IO.blocking(scala.util.Try(os.proc("getconf", "CLK_TCK").call().out.trim().toLong).getOrElse(100L))
      previous <- Ref[IO].of(Map.empty[Long, (ProcSample, Long)])
      watch = new ProcessWatch(targets, ticks, lag, previous)
      _ <- watch.sample(0)
    } yield watch
}
