package bankops.jobs.latency

import bankops.base.Table

/** The run's steps for people: an aligned table on the terminal, the same as Markdown for a job summary. */
object LatencyReport {
  private def ms(x: Double): String = if (x >= 100) f"$x%.0f" else f"$x%.1f"

  private def header(steps: List[StepResult]): List[String] = {
    val measures = Measure.all.filter(m => steps.exists(_.measures.contains(m)))
    val processes = steps.flatMap(_.processes.map(_.label)).distinct
    List("step", "load/s", "achieved/s", "probes", "timeouts") ++
      measures.flatMap(m => if (m == Measure.Feedback) List("feedback p50 ms", "p99", "p99.9", "max") else List(s"${m.name} p50 ms", "p99")) ++
      processes.flatMap(p => List(s"$p cpu%", s"$p MiB")) ++ List("lag max")
  }

  private def rows(steps: List[StepResult]): List[List[String]] = {
    val measures = Measure.all.filter(m => steps.exists(_.measures.contains(m)))
    val processes = steps.flatMap(_.processes.map(_.label)).distinct
    steps.map { s =>
      List((s.index + 1).toString, s.load.asked.toString, f"${s.load.achieved}%.0f", s.probes.toString, s.timeouts.toString) ++
        measures.flatMap { m =>
          val st = s.measures.get(m)
          def at(p: Double) = st.filter(_.count > 0).fold("-")(x => ms(x.percentileMs(p)))
          if (m == Measure.Feedback) List(at(50), at(99), at(99.9), at(100)) else List(at(50), at(99))
        } ++
        processes.flatMap(p => s.processes.find(_.label == p).fold(List("-", "-"))(x => List(f"${x.cpuPercent}%.0f", f"${x.rssMaxMiB}%.0f"))) ++
        List(s.lagMax.fold("-")(_.toString))
    }
  }

  def table(steps: List[StepResult]): String = Table.render(header(steps), rows(steps))

  /** A GitHub-flavoured Markdown table with the same columns. */
  def markdown(steps: List[StepResult]): String = {
    val h = header(steps)
    (s"| ${h.mkString(" | ")} |" :: s"|${h.map(_ => " ---: |").mkString}" :: rows(steps).map(r => s"| ${r.mkString(" | ")} |")).mkString("\n")
  }

  /** The step's line as it ends (its probes still in flight are counted in the final table). */
  def stepLine(s: StepResult): String = {
    val fb = s.measures.get(Measure.Feedback).filter(_.count > 0).fold("no probe answered")(f => s"feedback p50 ${ms(f.p50)} ms, p99 ${ms(f.p99)} ms, max ${ms(f.max)} ms")
    val procs = s.processes.map(p => f"${p.label} ${p.cpuPercent}%.0f%% CPU ${p.rssMaxMiB}%.0f MiB").mkString(", ")
    f"step ${s.index + 1}: ${s.load.achieved}%.0f of ${s.load.asked} records/s, ${s.probes} probes, ${s.timeouts} timeouts, $fb" +
      (if (procs.isEmpty) "" else s", $procs") + s.lagMax.fold("")(l => s", lag max $l")
  }
}
