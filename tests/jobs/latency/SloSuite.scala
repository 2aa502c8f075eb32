package bankops.jobs.latency

import scala.concurrent.duration._

class SloSuite extends munit.FunSuite {
  test("p99<200ms: feedback by default") {
    assertEquals(Slo.parse("p99<200ms"), Right(Slo(Measure.Feedback, 99.0, 200.millis, "p99<200ms")))
  }

  test("a measure, fractional percentiles, max, seconds and spaces") {
    assertEquals(Slo.parse("balance:p99.9 < 1s").map(s => (s.measure, s.percentile, s.limit)), Right((Measure.Balance, 99.9, 1.second)))
    assertEquals(Slo.parse("db:max<2.5s").map(s => (s.measure, s.percentile, s.limit)), Right((Measure.Db, 100.0, 2500.millis)))
    assertEquals(Slo.parse("p50<20ms").map(_.percentile), Right(50.0))
  }

  test("bad objectives say what is expected") {
    assert(Slo.parse("p99>200ms").swap.exists(_.contains("must look like p99<200ms")))
    assert(Slo.parse("p99<200").isLeft)
    assert(Slo.parse("cpu:p99<200ms").swap.exists(_.contains("feedback, balance or db, not 'cpu'")))
    assert(Slo.parse("p100<1s").swap.exists(_.contains("below 100")))
    assert(Slo.parse("p0<1s").isLeft)
    assert(Slo.parse("p99<0ms").swap.exists(_.contains("above 0")))
  }

  private def step(feedback: Vector[Double], db: Option[Vector[Double]] = None) =
    StepResult(1, StepLoad(500, 498, 0), feedback.size, 0, 0,
      Map[Measure, MeasureStats](Measure.Feedback -> MeasureStats(feedback)) ++ db.map(d => Measure.Db -> MeasureStats(d)), Nil, None, None, 30)

  test("the verdict: broken when the percentile reaches the limit, naming step, load and value") {
    val slo = Slo.parse("p99<100ms").toOption.get
    assertEquals(slo.broken(step(Vector.fill(99)(10.0) :+ 50.0)), None)
    val why = slo.broken(step(Vector.fill(98)(10.0) ++ Vector(150.0, 150.0)))
    assert(why.exists(w => w.contains("step 2 (500 records/s)") && w.contains("p99<100ms broken") && w.contains("150.")), why)
  }

  test("a measure the run did not take breaks nothing; one with samples does") {
    val slo = Slo.parse("db:p50<10ms").toOption.get
    assertEquals(slo.broken(step(Vector(50.0))), None)
    assert(slo.broken(step(Vector(5.0), Some(Vector(20.0, 30.0)))).isDefined)
  }
}
