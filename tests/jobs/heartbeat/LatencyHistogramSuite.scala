package bankops.jobs.heartbeat

import org.scalacheck.{Gen, Prop}

class LatencyHistogramSuite extends munit.ScalaCheckSuite {

  test("empty: every figure is 0") {
    val h = new LatencyHistogram
    assertEquals((h.count, h.meanMicros, h.maxMicros, h.percentileMicros(99)), (0L, 0.0, 0L, 0L))
  }

  test("count, mean and max are exact; small values exact too") {
    val h = new LatencyHistogram
    List(1L, 2L, 3L, 10L, 50L).foreach(h.record)
    assertEquals((h.count, h.meanMicros, h.maxMicros), (5L, 13.2, 50L))
    assertEquals(h.percentileMicros(50), 3L)
    assertEquals(h.percentileMicros(100), 50L)
  }

  property("percentiles are within 1.6% of the exact ones and never above the max") {
    Prop.forAll(Gen.nonEmptyListOf(Gen.choose(1L, 5000000L)), Gen.oneOf(50.0, 90.0, 99.0, 99.9)) { (samples, p) =>
      val h = new LatencyHistogram
      samples.foreach(h.record)
      val sorted = samples.sorted
      val exact = sorted((math.ceil(samples.size * p / 100.0).toInt max 1) - 1)
      val got = h.percentileMicros(p)
      assert(got <= sorted.last, s"$got above max ${sorted.last}")
      assert(math.abs(got - exact).toDouble <= exact * 0.016 + 1, s"p$p: $got vs exact $exact")
    }
  }
}
