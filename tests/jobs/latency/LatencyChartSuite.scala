package bankops.jobs.latency

import java.nio.charset.StandardCharsets.UTF_8
import java.time.Instant
import java.util.UUID
import scala.concurrent.duration._

class LatencyChartSuite extends munit.FunSuite {
  private def steps: List[StepResult] = List(0 -> 0.0, 1 -> 500.0, 2 -> 1000.0).map { case (i, load) =>
    val probes = (1 to 10).toList.map(n =>
      ProbeResult(n, i, UUID.randomUUID(), Instant.EPOCH,
        Map(Measure.Feedback -> (10.0 + n + i * 5), Measure.Balance -> (11.0 + n), Measure.Db -> (30.0 + n)), ProbeOutcome.Confirmed))
    val samples = List(Sample(i, List(ProcessLoad("handler", 7, Some(10.0 + i * 20), 150L * 1048576)), Some(i * 10L)))
    StepResult.of(i, StepLoad(load.toInt, load, 0), probes, samples, Measure.all, 5.seconds, 30)
  }

  test("SVG: both figures, every series named, titled axes with units") {
    val svg = new String(LatencyChart.render(steps, 5000, "end-to-end latency", LatencyChart.Format.Svg), UTF_8)
    assert(svg.contains("<svg"), svg.take(200))
    val desc = svg.substring(svg.indexOf("<desc>"), svg.indexOf("</desc>"))
    (LatencyChart.latencySeries(steps) ++ List("handler CPU %", "handler RSS MiB", "end-to-end latency (ms, log scale)",
      "extra load achieved (records/s)", "CPU (% of one core)", "resident memory (MiB)")).foreach(s =>
      assert(desc.contains(s.replace("&", "&amp;")), s"no '$s' in $desc"))
    // XChart draws text as outlines: the figures are there as paths.
    assert("<path".r.findAllIn(svg).size > 50)
  }

  test("PNG: a readable image holding the two figures one above the other") {
    val png = LatencyChart.render(steps, 5000, "end-to-end latency", LatencyChart.Format.Png)
    assertEquals(png.take(8).toList, List(0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a).map(_.toByte))
    val image = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(png))
    assertEquals((image.getWidth, image.getHeight), (900, 840))
  }

  test("a series equal to an earlier one is named so and stays visible beneath it") {
    // The probes' balance change came with their feedback: balance p99 equals feedback p99 at every step.
    val same = steps.map(s => s.copy(measures = s.measures.updated(Measure.Balance, s.measures(Measure.Feedback))))
    val svg = new String(LatencyChart.render(same, 5000, "end-to-end latency", LatencyChart.Format.Svg), UTF_8)
    assert(svg.contains("balance p99 (= feedback p99)"), svg.substring(svg.indexOf("<desc>"), svg.indexOf("</desc>")))
    val image = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(LatencyChart.render(same, 5000, "t", LatencyChart.Format.Png)))
    // feedback p99's orange in the upper plot, left of its legend: drawn first, it shows around balance p99 (183 pixels here,
    // 28 when every series was drawn alike).
    def orangeish(rgb: Int) = { val (r, g, b) = ((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff); r > 215 && g > 87 && g < 167 && b < 64 }
    val orange = (for { x <- 80 until 640; y <- 40 until 380 } yield image.getRGB(x, y)).count(orangeish)
    assert(orange > 100, s"feedback p99's colour covered: $orange pixels")
  }

  test("the latency axis spans whole decades around every series, so its ends are labelled (not only a 1,000 inside)") {
    // Feedback between 300 and 5,000 ms: XChart alone labelled only 1,000.
    val slow = steps.map(s => s.copy(measures = s.measures.map { case (m, st) => m -> st.copy(samplesMs = st.samplesMs.map(_ * 30)) }))
    val styler = LatencyChart.latency(slow, 5000, "t").getStyler
    assertEquals((styler.getYAxisMin.doubleValue, styler.getYAxisMax.doubleValue), (100.0, 10000.0))
    assertEquals((LatencyChart.decadeBelow(1000), LatencyChart.decadeAbove(1000), LatencyChart.decadeAbove(1001)), (1000.0, 1000.0, 10000.0))
    assertEquals((LatencyChart.decadeBelow(0.1), LatencyChart.decadeBelow(9.9), LatencyChart.decadeAbove(0.05)), (0.1, 1.0, 0.1))
    // No step (stopped in the warm-up) and a timeout of 1 s: still a decade to draw.
    val empty = LatencyChart.latency(Nil, 1000, "t").getStyler
    assertEquals((empty.getYAxisMin.doubleValue, empty.getYAxisMax.doubleValue), (1000.0, 10000.0))
  }

  test("a run that ended in its warm-up (no step): both figures, each saying so, as PNG and SVG") {
    val png = javax.imageio.ImageIO.read(new java.io.ByteArrayInputStream(LatencyChart.render(Nil, 5000, "t", LatencyChart.Format.Png)))
    assertEquals((png.getWidth, png.getHeight), (900, 840))
    val svg = new String(LatencyChart.render(Nil, 5000, "t", LatencyChart.Format.Svg), UTF_8)
    val desc = svg.substring(svg.indexOf("<desc>"), svg.indexOf("</desc>"))
    assert(
      desc.contains("t: no step reached (the run ended in its warm-up): y end-to-end latency") && desc.contains("series timeout") &&
        desc.contains("no step reached: y CPU"), desc)
  }

  test("the file's extension chooses the format; anything else is refused by name") {
    assertEquals(LatencyChart.Format.of(os.pwd / "a.PNG"), Right(LatencyChart.Format.Png))
    assertEquals(LatencyChart.Format.of(os.pwd / "a.svg"), Right(LatencyChart.Format.Svg))
    assert(LatencyChart.Format.of(os.pwd / "a.gif").swap.exists(_.contains("must end in .png or .svg, not .gif")))
  }
}
