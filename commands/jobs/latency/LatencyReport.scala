package bankops.jobs.latency

import bankops.base.{StepSummary, Table}

/** The run's steps for people: an aligned table on the terminal, the same as Markdown for a job summary. */
private[latency] object LatencyReport {
  private def ms(x: Double): String = if (x >= 100) f"$x%.0f" else f"$x%.1f"

  /** `floor`: the steps of Kafka's exactly-once floor (`--floor`), shown beside the handler's feedback of the same step. */
  def header(steps: List[StepResult], floor: List[StepResult] = Nil): List[String] = {
    val measures = Measure.all.filter(m => steps.exists(_.measures.contains(m)))
    val processes = steps.flatMap(_.processes.map(_.label)).distinct
    List("step", "load/s", "achieved/s", "probes", "timeouts") ++
      measures.flatMap(m => if (m == Measure.Feedback) List("feedback p50 ms", "p99", "p99.9", "max") else List(s"${m.name} p50 ms", "p99")) ++
      (if (floor.isEmpty) Nil else List("floor p50 ms", "floor p99", "p99 / floor p99")) ++
      processes.flatMap(p => List(s"$p cpu%", s"$p MiB")) ++ List("lag max")
  }

  /** The floor's step of the same index (the warm-up's for the warm-up), if it has answered probes. */
  private def floorOf(s: StepResult, floor: List[StepResult]): Option[MeasureStats] =
    floor.find(_.index == s.index).flatMap(_.measures.get(Measure.Feedback)).filter(_.count > 0)

  /** The handler's feedback p99 over the floor's in the same step: what the handler adds, as a factor. */
  def ratio(s: StepResult, floor: List[StepResult]): Option[Double] =
    for { f <- floorOf(s, floor); h <- s.measures.get(Measure.Feedback).filter(_.count > 0) if f.p99 > 0 } yield h.p99 / f.p99

  def rows(steps: List[StepResult], floor: List[StepResult] = Nil): List[List[String]] = {
    val measures = Measure.all.filter(m => steps.exists(_.measures.contains(m)))
    val processes = steps.flatMap(_.processes.map(_.label)).distinct
    steps.map { s =>
      List(if (s.warmUp) "warm-up" else (s.index + 1).toString, s.load.asked.toString, f"${s.load.achieved}%.0f", s.probes.toString,
        s.timeouts.toString) ++
        measures.flatMap { m =>
          val st = s.measures.get(m)
          def at(p: Double) = st.filter(_.count > 0).fold("-")(x => ms(x.percentileMs(p)))
          if (m == Measure.Feedback) List(at(50), at(99), at(99.9), at(100)) else List(at(50), at(99))
        } ++
        (if (floor.isEmpty) Nil
         else floorOf(s, floor).fold(List("-", "-"))(f => List(ms(f.p50), ms(f.p99))) :+ ratio(s, floor).fold("-")(r => f"$r%.2f")) ++
        processes.flatMap(p => s.processes.find(_.label == p).fold(List("-", "-"))(x => List(f"${x.cpuPercent}%.0f", f"${x.rssMaxMiB}%.0f"))) ++
        List(s.lagMax.fold("-")(_.toString))
    }
  }

  def table(steps: List[StepResult], floor: List[StepResult] = Nil): String = Table.render(header(steps, floor), rows(steps, floor))

  /** A step of the floor's alone (a run the floor ended): `floor-step` or `floor-warm-up`, never read as the handler's. */
  def floorJson(f: StepResult): io.circe.Json =
    f.json.deepMerge(io.circe.Json.obj("type" -> io.circe.Json.fromString(if (f.warmUp) "floor-warm-up" else "floor-step")))

  /** A step as a JSON line; with `--floor`, the floor's step of the same index under `floor`. */
  def json(s: StepResult, floor: List[StepResult] = Nil): io.circe.Json =
    floor.find(_.index == s.index).fold(s.json)(f =>
      s.json.deepMerge(io.circe.Json.obj("floor" -> f.json,
          "p99OverFloor" -> ratio(s, floor).fold(io.circe.Json.Null)(r => io.circe.Json.fromDoubleOrNull(ProbeResult.round(r))))))

  /** The job summary: the verdict, the steps as a table, what broke; then [[mermaid]] draws the latency figure. */
  def stepSummary(steps: List[StepResult], broken: List[String], stoppedEarly: Option[String], interrupted: Boolean,
                  slos: List[Slo], chart: Option[os.Path], floor: List[StepResult] = Nil): StepSummary = {
    val failed = broken.nonEmpty || stoppedEarly.nonEmpty || interrupted
    val short = steps.exists(s => s.load.asked > 0 && s.load.achieved < s.load.asked * 0.98)
    val p99s = steps.flatMap(s => s.measures.get(Measure.Feedback).filter(_.count > 0).map(m => s"${ms(m.p99)} ms at ${s.load.asked}/s"))
    StepSummary("latency", s"${steps.size} steps, feedback p99 ${if (p99s.isEmpty) "-" else p99s.mkString(", ")}",
      if (failed) StepSummary.Outcome.Failed else if (short) StepSummary.Outcome.Attention else StepSummary.Outcome.Ok,
      facts = List("probes" -> steps.map(_.probes).sum.toString, "timeouts" -> steps.map(_.timeouts).sum.toString) ++
        slos.map(slo => s"SLO ${slo.text}" -> (if (broken.exists(_.contains(s"${slo.text} broken"))) "broken" else "met")) ++
        chart.map(c => "chart" -> c.last).toList,
      tables = List(StepSummary.Table(header(steps, floor), rows(steps, floor), numeric = header(steps, floor).indices.toSet)),
      notes = stoppedEarly.toList ++ broken.map(b => s"SLO $b") ++ (if (interrupted) List("interrupted (Ctrl-C)") else Nil))
  }

  /** Feedback p50 and p99 against the extra load as a Mermaid chart, which GitHub draws in a job summary (an uploaded
    * image cannot be shown there).
    */
  def mermaid(steps: List[StepResult]): String = {
    val fb = steps.map(s => s.measures.get(Measure.Feedback).filter(_.count > 0))
    def line(f: MeasureStats => Double) = fb.map(_.fold("0")(m => f"${f(m)}%.1f")).mkString("[", ", ", "]")
    val top = fb.flatten.map(_.p99).maxOption.getOrElse(1.0)
    List("```mermaid", "xychart-beta", "  title \"feedback latency p50 (lower) and p99 (upper), ms, against extra load\"",
      s"  x-axis \"extra load (records/s)\" ${steps.map(_.load.asked).mkString("[", ", ", "]")}",
      f"""  y-axis "latency (ms)" 0 --> ${math.ceil(top * 1.1)}%.0f""", s"  line ${line(_.p50)}", s"  line ${line(_.p99)}", "```").mkString("\n")
  }

  /** The step's line as it ends (its probes still in flight are counted in the final table). */
  def stepLine(s: StepResult): String = {
    val fb = s.measures.get(Measure.Feedback).filter(_.count > 0).fold("no probe answered")(f =>
      s"feedback p50 ${ms(f.p50)} ms, p99 ${ms(f.p99)} ms, max ${ms(f.max)} ms")
    val procs = s.processes.map(p => f"${p.label} ${p.cpuPercent}%.0f%% CPU ${p.rssMaxMiB}%.0f MiB").mkString(", ")
    f"step ${s.index + 1}: ${s.load.achieved}%.0f of ${s.load.asked} records/s, ${s.probes} probes, ${s.timeouts} timeouts, $fb" +
      (if (procs.isEmpty) "" else s", $procs") + s.lagMax.fold("")(l => s", lag max $l")
  }
}
