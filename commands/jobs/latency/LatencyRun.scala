package bankops.jobs.latency

import cats.effect.{Deferred, IO, Ref}
import cats.syntax.all._
import fs2.Stream

import scala.concurrent.duration._

import bankops.services.load.LoadGenerator

/** The experiment: the flags' schedule as given, what each probe is timed until, and how often the watched processes
  * are sampled.
  */
private[latency] final case class LatencyPlan(schedule: LatencySchedule, measures: List[Measure], sampleEvery: FiniteDuration)

/** What a run found: its steps (those it reached), every probe, and why it ended early if it did; the warm-up's probes
  * (step index -1) apart, so a cold handler or client does not read as the first step's steady state, and with
  * `settle` whether they settled ([[Settling]]) before the warm-up's bound; `floor`: the same run against Kafka's
  * exactly-once floor (`--floor`), made first.
  */
private[latency] final case class LatencyOutcome(steps: List[StepResult], probes: Vector[ProbeResult], stoppedEarly: Option[String],
                                                 interrupted: Boolean,
                                                 warmUp: Option[StepResult] = None, floor: Option[LatencyOutcome] = None,
                                                 settled: Option[Boolean] = None)

/** Runs the steps one after another with the background load of each, probing all along (`probe(seq, step)`: the
  * handler's or the floor's) and sampling the watched processes; at the end waits for the probes still in flight (at
  * most the timeout) and aggregates per step.
  */
private[latency] final class LatencyRun(plan: LatencyPlan, probe: (Int, Int) => IO[ProbeResult], db: Option[BalancePoller],
                                        load: Option[LoadGenerator],
                                        watch: ProcessWatch, failure: IO[Nothing]) {
  private val schedule = plan.schedule

  def run(ctrlC: IO[Unit], onProbe: ProbeResult => IO[Unit], onStep: (Int, Int) => IO[Unit]): IO[LatencyOutcome] =
    for {
      step <- Ref[IO].of(if (schedule.warmUp > Duration.Zero) -1 else 0)
      probes <- Ref[IO].of(Vector.empty[ProbeResult])
      samples <- Ref[IO].of(Vector.empty[Sample])
      timeouts <- Ref[IO].of(0)
      tooMany <- Deferred[IO, Unit]
      interrupted <- Deferred[IO, Unit]
      probingDone <- Deferred[IO, Unit]
      warm <- Ref[IO].of((0.0, false))
      stop = IO.race(ctrlC >> interrupted.complete(()).void, tooMany.get).void
      record = (p: ProbeResult) =>
        probes.update(_ :+ p) >> onProbe(p) >>
          timeouts.updateAndGet(_ + 1).flatMap(n => tooMany.complete(()).void.whenA(n >= schedule.maxTimeouts)).whenA(p.timedOut)
      probing = Stream.fixedRateStartImmediately[IO](schedule.interval).zipWithIndex.map(_._2.toInt + 1)
        .interruptWhen(probingDone.get.attempt).interruptWhen(stop.attempt)
        .parEvalMapUnordered(Int.MaxValue)(seq => step.get.flatMap(probe(seq, _)))
        .evalMap(record)
      sampling = Stream.fixedRate[IO](plan.sampleEvery).evalMap(_ => step.get.flatMap(watch.sample)).evalMap(s => samples.update(_ :+ s))
      halted = (tooMany.tryGet, interrupted.tryGet).mapN((a, b) => a.isDefined || b.isDefined)
      loads <- IO.race(failure,
        (sampling.compile.drain.background, db.fold(IO.never[Nothing])(_.loop).background).tupled.surround {
          probing.compile.drain.start.flatMap { prober =>
            // A run stopped during the warm-up (Ctrl-C, too many timeouts) reports the warm-up alone, no empty step.
            warmUp(step, stop, probes).flatMap(warm.set) >> halted.ifM(IO.pure(Vector.empty[(StepLoad, Double)]),
              steps(schedule.steps.zipWithIndex, Vector.empty, step, stop, halted, onStep)) <* probingDone.complete(()) <* prober.joinWithNever
          }
        }).map(_.merge)
      all <- probes.get
      taken <- samples.get
      early <- tooMany.tryGet.map(
        _.map(_ => s"stopped after ${schedule.maxTimeouts} probes timed out (--max-timeouts; no answer within ${schedule.timeout.toMillis} ms)"))
      stopped <- interrupted.tryGet.map(_.isDefined)
      warmedUp <- warm.get
    } yield LatencyOutcome(loads.toList.zipWithIndex.map { case ((l, seconds), i) =>
        StepResult.of(i, l, all.filter(_.step == i).toList, taken.filter(_.step == i).toList, plan.measures, schedule.timeout, seconds)
      }, all.sortBy(_.seq), early, stopped,
      Option.when(schedule.warmUp > Duration.Zero)(StepResult.of(-1, StepLoad(0, 0, 0), all.filter(_.step < 0).toList,
          taken.filter(_.step < 0).toList,
          plan.measures, schedule.timeout, warmedUp._1)), settled = Option.when(schedule.settle)(warmedUp._2))

  /** Probes with no extra load before the first step, counted apart (step index -1): for `schedule.warmUp`, or with
    * `schedule.settle` until they have settled (at most `schedule.warmUp`). Its seconds, and whether they settled.
    */
  private def warmUp(current: Ref[IO, Int], stop: IO[Unit], probes: Ref[IO, Vector[ProbeResult]]): IO[(Double, Boolean)] =
    if (schedule.warmUp <= Duration.Zero) IO.pure((0.0, false))
    else {
      val settled = probes.get.map(ps => Settling.settled(ps.filter(_.step < 0).sortBy(_.seq).flatMap(Settling.feedbackMs(_, schedule.timeout))))
      val settling = if (schedule.settle) (IO.sleep(schedule.interval * (Settling.Window / 2).toLong) >> settled).iterateUntil(identity) else IO.never
      current.set(-1) >> IO.race(IO.race(IO.sleep(schedule.warmUp), settling), stop).timed.map { case (took, ended) =>
        (took.toNanos / 1e9, ended.left.toOption.exists(_.isRight))
      }
    }

  /** Holds each step's load for the step's duration, or until the run is stopped; the load achieved and the seconds held. */
  private def steps(rest: List[(Int, Int)], done: Vector[(StepLoad, Double)], current: Ref[IO, Int], stop: IO[Unit], halted: IO[Boolean],
                    onStep: (Int, Int) => IO[Unit]): IO[Vector[(StepLoad, Double)]] =
    rest match {
      case Nil => IO.pure(done)
      case (rate, i) :: more =>
        val hold = IO.race(IO.sleep(schedule.stepDuration), stop).void
        for {
          _ <- current.set(i) >> onStep(i, rate)
          started <- IO.monotonic
          summary <- load.filter(_ => rate > 0).fold(hold.as(Option.empty[StepLoad]))(_.run(rate, None, hold).map(s =>
              Some(StepLoad(rate, s.recordsPerSecond, s.errors))))
          ended <- IO.monotonic
          held = (done :+ (summary.getOrElse(StepLoad(rate, 0, 0)), (ended - started).toNanos / 1e9))
          next <- halted.ifM(IO.pure(held), steps(more, held, current, stop, halted, onStep))
        } yield next
    }
}
