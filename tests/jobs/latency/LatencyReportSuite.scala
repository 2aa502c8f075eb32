package bankops.jobs.latency

import scala.util.Random

import bankops.base.StepSummary
import bankops.support.Seeded

/** The latency run's report for people: the table's columns follow what the steps measured, the job summary's verdict
  * follows the SLOs and the load achieved, the chart's axes follow the steps.
  */
class LatencyReportSuite extends munit.FunSuite with Seeded {
  private def stats(ms: Double*) = MeasureStats(ms.toVector)

  private def step(index: Int, asked: Int, achieved: Double, measures: Map[Measure, MeasureStats] = Map.empty,
                   processes: List[ProcessStats] = Nil, lagMax: Option[Long] = None, probes: Int = 10, timeouts: Int = 0) =
    StepResult(index, StepLoad(asked, achieved, 0), probes, timeouts, 0, measures, processes, lagMax.map(_.toDouble), lagMax, 30)

  private def randomStep(random: Random, index: Int): StepResult = {
    val measures =
      Measure.all.filter(_ => random.nextBoolean()).map(m => m -> stats(List.fill(random.nextInt(4))(1.0 + random.nextInt(500)): _*)).toMap
    val processes =
      List("handler", "kafka").filter(_ => random.nextBoolean()).map(l => ProcessStats(l, 1, random.nextInt(200), 100, 100 + random.nextInt(400)))
    step(index, random.nextInt(2000), random.nextInt(2000), measures, processes, Option.when(random.nextBoolean())(random.nextInt(99).toLong))
  }

  test("every row has a cell per column: feedback's four percentiles, two for other measures taken, two per process seen, lag") {
    (1 to 300).foreach { _ =>
      val steps = List.tabulate(1 + random.nextInt(5))(i => randomStep(random, i - random.nextInt(2)))
      val header = LatencyReport.header(steps)
      val taken = Measure.all.filter(m => steps.exists(_.measures.contains(m)))
      val processes = steps.flatMap(_.processes.map(_.label)).distinct
      assertEquals(header.size, 5 + taken.map(m => if (m == Measure.Feedback) 4 else 2).sum + 2 * processes.size + 1, header.toString)
      LatencyReport.rows(steps).zip(steps).foreach { case (row, s) =>
        assertEquals(row.size, header.size, s"$header\n$row")
        assertEquals(row.head, if (s.index < 0) "warm-up" else (s.index + 1).toString)
        assertEquals(row.last, s.lagMax.fold("-")(_.toString))
        processes.foreach { p =>
          val cpu = row(header.indexOf(s"$p cpu%"))
          assertEquals(cpu == "-", !s.processes.exists(_.label == p), s"$p in $row")
        }
        taken.foreach { m =>
          val p50 = row(header.indexOf(if (m == Measure.Feedback) "feedback p50 ms" else s"${m.name} p50 ms"))
          assertEquals(p50 == "-", s.measures.get(m).forall(_.count == 0), s"${m.name} in $row")
        }
      }
    }
  }

  test("the table: one line per step under the header and its rule; milliseconds with one decimal below 100, none from 100") {
    val steps =
      List(step(-1, 0, 0, Map(Measure.Feedback -> stats(12.34))), step(0, 100, 99.6, Map(Measure.Feedback -> stats(150.0)), lagMax = Some(3)))
    val lines = LatencyReport.table(steps).linesIterator.toList
    assertEquals(lines.size, 4, lines.mkString("\n"))
    assertEquals(lines(2).split("\\s+").toList, List("warm-up", "0", "0", "10", "0", "12.3", "12.3", "12.3", "12.3", "-"))
    assertEquals(lines(3).split("\\s+").toList, List("1", "100", "100", "10", "0", "150", "150", "150", "150", "3"))
  }

  test("--floor: the floor's p50 and p99 of the same step beside the handler's, and the handler's p99 over the floor's; in JSON under floor") {
    val handler = List(step(-1, 0, 0, Map(Measure.Feedback -> stats(30.0))), step(0, 0, 0, Map(Measure.Feedback -> stats(20.0))),
      step(1, 1000, 1000, Map(Measure.Feedback -> stats(300.0))))
    // The floor reached no probe in the last step: its cells are dashes, no ratio.
    val floor = List(step(-1, 0, 0, Map(Measure.Feedback -> stats(40.0))), step(0, 0, 0, Map(Measure.Feedback -> stats(16.0))),
      step(1, 1000, 990, Map(Measure.Feedback -> stats())))
    val header = LatencyReport.header(handler, floor)
    assertEquals(header.slice(9, 12), List("floor p50 ms", "floor p99", "p99 / floor p99"))
    val rows = LatencyReport.rows(handler, floor)
    assertEquals(rows.map(_.slice(9, 12)), List(List("40.0", "40.0", "0.75"), List("16.0", "16.0", "1.25"), List("-", "-", "-")))
    assert(rows.forall(_.size == header.size))
    val json = LatencyReport.json(handler(1), floor)
    assertEquals(json.hcursor.get[Double]("p99OverFloor"), Right(1.25))
    // HdrHistogram's three significant digits.
    assert(json.hcursor.downField("floor").downField("latencyMs").downField("feedback").get[Double]("p99").exists(p => math.abs(p - 16) < 0.1),
      json.noSpaces)
    assertEquals(LatencyReport.json(handler(2), floor).hcursor.downField("p99OverFloor").focus, Some(io.circe.Json.Null))
    // Without a floor, nothing changes.
    assertEquals(LatencyReport.header(handler), LatencyReport.header(handler, Nil))
    assertEquals(LatencyReport.json(handler(1)), handler(1).json)
    assertEquals(LatencyReport.floorJson(floor.head).hcursor.get[String]("type"), Right("floor-warm-up"))
    assertEquals(LatencyReport.floorJson(floor(1)).hcursor.get[String]("type"), Right("floor-step"))
  }

  private def summary(steps: List[StepResult], broken: List[String] = Nil, stoppedEarly: Option[String] = None, interrupted: Boolean = false,
                      slos: List[Slo] = Nil): StepSummary =
    LatencyReport.stepSummary(steps, broken, stoppedEarly, interrupted, slos, None)

  test("the verdict: failed when an SLO broke, the run stopped early or was interrupted; attention when a step fell 2 % short of its load") {
    (1 to 300).foreach { _ =>
      val steps = List.tabulate(1 + random.nextInt(4)) { i =>
        val asked = random.nextInt(1000)
        step(i, asked, asked * (0.95 + random.nextDouble() * 0.06))
      }
      val (broken, early, interrupted) = (random.nextInt(4) == 0, random.nextInt(4) == 0, random.nextInt(4) == 0)
      val s = summary(steps, if (broken) List("p99<1ms broken") else Nil, Option.when(early)("stopped: the handler died"), interrupted)
      val short = steps.exists(x => x.load.achieved < x.load.asked * 0.98)
      val expected =
        if (broken || early || interrupted) StepSummary.Outcome.Failed else if (short) StepSummary.Outcome.Attention else StepSummary.Outcome.Ok
      assertEquals(s.outcome, expected, steps.map(_.load).toString)
    }
  }

  test("the summary's facts: probes and timeouts over all steps, each SLO met or broken; its notes say what broke") {
    val slos = List(Slo.parse("p99<200ms"), Slo.parse("db:max<2s")).map(_.toOption.get)
    val steps = List(step(0, 100, 100, Map(Measure.Feedback -> stats(20, 30)), probes = 7, timeouts = 1),
      step(1, 200, 200, Map(Measure.Feedback -> stats(250)), probes = 5, timeouts = 2))
    val broken = List("step 2 (200 records/s): p99<200ms broken, p99 of feedback was 250.0 ms")
    val s = summary(steps, broken, slos = slos)
    assertEquals(s.facts, List("probes" -> "12", "timeouts" -> "3", "SLO p99<200ms" -> "broken", "SLO db:max<2s" -> "met"))
    assertEquals(s.notes, broken.map("SLO " + _))
    assert(s.headline.contains("feedback p99 30.0 ms at 100/s, 250 ms at 200/s"), s.headline)
    assert(summary(Nil, interrupted = true).notes.contains("interrupted (Ctrl-C)"))
  }

  test("the Mermaid chart: the x-axis lists each step's load, two lines of a value per step, the y-axis reaches above the highest p99") {
    (1 to 200).foreach { _ =>
      val steps = List.tabulate(1 + random.nextInt(6))(i =>
        step(i, i * 100, i * 100,
          if (random.nextInt(4) == 0) Map.empty
          else Map(Measure.Feedback -> stats(List.fill(1 + random.nextInt(20))(1.0 + random.nextInt(900)): _*))))
      val chart = LatencyReport.mermaid(steps).linesIterator.toList
      assertEquals((chart.head, chart.last), ("```mermaid", "```"))
      assert(chart.exists(_.endsWith(steps.map(_.load.asked).mkString("[", ", ", "]"))), chart.mkString("\n"))
      val lines =
        chart.filter(_.trim.startsWith("line ")).map(_.trim.stripPrefix("line ").stripPrefix("[").stripSuffix("]").split(", ").map(_.toDouble).toList)
      assertEquals(lines.map(_.size), List(steps.size, steps.size))
      assert(lines(0).zip(lines(1)).forall { case (p50, p99) => p50 <= p99 }, lines.toString)
      val top = chart.find(_.contains("y-axis")).get.split("-->").last.trim.toDouble
      assert(lines(1).forall(_ <= top), s"$top below ${lines(1)}")
    }
  }

  test("a step's closing line: its load, probes and feedback percentiles, or that no probe answered") {
    val answered = step(0, 500, 498.7, Map(Measure.Feedback -> stats(10, 20, 30)), List(ProcessStats("handler", 1, 41.2, 200, 256.4)), Some(9))
    assertEquals(LatencyReport.stepLine(answered),
      "step 1: 499 of 500 records/s, 10 probes, 0 timeouts, feedback p50 20.0 ms, p99 30.0 ms, max 30.0 ms, " +
        "handler 41% CPU 256 MiB, lag max 9")
    assertEquals(LatencyReport.stepLine(step(1, 0, 0)), "step 2: 0 of 0 records/s, 10 probes, 0 timeouts, no probe answered")
  }
}
