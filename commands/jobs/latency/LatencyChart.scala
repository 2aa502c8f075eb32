package bankops.jobs.latency

import de.erichseifert.vectorgraphics2d.VectorGraphics2D
import de.erichseifert.vectorgraphics2d.svg.SVGProcessor
import de.erichseifert.vectorgraphics2d.util.PageSize
import org.knowm.xchart.{BitmapEncoder, XYChart, XYChartBuilder, XYSeries}
import org.knowm.xchart.style.Styler
import org.knowm.xchart.style.markers.{Marker, SeriesMarkers}

import java.awt.{BasicStroke, Color}
import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import scala.jdk.CollectionConverters._

/** The original experiment's two figures in one image: latency percentiles against the extra load (log scale, with the
  * timeout as a dashed line), and the watched processes' CPU and memory against the extra load.
  */
private[latency] object LatencyChart {
  sealed abstract class Format(val extension: String)
  object Format {
    case object Png extends Format("png")
    case object Svg extends Format("svg")
    def of(path: os.Path): Either[String, Format] = path.ext.toLowerCase match {
      case "png" => Right(Png)
      case "svg" => Right(Svg)
      case other => Left(s"--chart $path: the file must end in .png or .svg${if (other.isEmpty) "" else s", not .$other"}")
    }
  }

  /** The power of ten at or below `ms` (at or above, for `decadeAbove`): a log axis's ends. */
  def decadeBelow(ms: Double): Double = math.pow(10, math.floor(math.log10(ms max 0.1) + 1e-9))
  def decadeAbove(ms: Double): Double = math.pow(10, math.ceil(math.log10(ms max 0.1) - 1e-9))

  private val Width = 900
  private val Height = 420

  /** The series names of the latency figure, for the steps given: `feedback p50` ... `db p99`, and `timeout`. */
  def latencySeries(steps: List[StepResult]): List[String] =
    Measure.all.filter(m => steps.exists(_.measures.contains(m))).flatMap { m =>
      if (m == Measure.Feedback) List("feedback p50", "feedback p99", "feedback p99.9") else List(s"${m.name} p99")
    } :+ "timeout"

  /** `floor`: the steps of Kafka's exactly-once floor (`latency --floor`), drawn beside the handler's feedback. */
  def render(steps: List[StepResult], timeoutMs: Double, title: String, format: Format, floor: Option[List[StepResult]] = None): Array[Byte] = {
    System.setProperty("java.awt.headless", "true")
    val charts = List(latency(steps, timeoutMs, title, floor.getOrElse(Nil)), resources(steps))
    val out = new ByteArrayOutputStream()
    format match {
      case Format.Png => BitmapEncoder.saveBitmap(charts.asJava, charts.size, 1, out, BitmapEncoder.BitmapFormat.PNG)
      case Format.Svg =>
        val g = new VectorGraphics2D()
        charts.foreach { c => c.paint(g, Width, Height); g.translate(0, Height) }
        new SVGProcessor().getDocument(g.getCommands, new PageSize(0, 0, Width.toDouble, (Height * charts.size).toDouble)).writeTo(out)
    }
    format match {
      case Format.Png => out.toByteArray
      case Format.Svg => describe(new String(out.toByteArray, UTF_8), title, charts).getBytes(UTF_8)
    }
  }

  /** XChart draws its text as outlines: a title and a description of the figures and their series (from the charts
    * themselves) make the SVG readable to screen readers and searchable.
    */
  private def describe(svg: String, title: String, charts: List[XYChart]): String = {
    def esc(s: String) = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    val desc = charts.map { c =>
      val right = Option(c.getYAxisGroupTitle(1)).filter(t => t.nonEmpty && t != c.getYAxisTitle).fold("")(t => s", right y $t")
      s"${c.getTitle}: y ${c.getYAxisTitle}$right, x ${c.getXAxisTitle}; series ${c.getSeriesMap.keySet.asScala.mkString(", ")}"
    }.mkString(". ")
    val open = svg.indexOf('>', svg.indexOf("<svg")) + 1
    svg.substring(0, open) + s"\n  <title>${esc(title)}</title>\n  <desc>${esc(desc)}</desc>" + svg.substring(open)
  }

  private def xs(steps: List[StepResult]): Array[Double] = steps.map(s => s.load.achieved max 0.0).toArray

  private def base(title: String, yTitle: String): XYChart = {
    val c = new XYChartBuilder().width(Width).height(Height).title(title).xAxisTitle("extra load achieved (records/s)").yAxisTitle(yTitle).build()
    val st = c.getStyler
    st.setLegendPosition(Styler.LegendPosition.OutsideE)
    st.setChartBackgroundColor(Color.WHITE)
    st.setPlotGridLinesColor(new Color(225, 225, 225))
    st.setMarkerSize(6)
    st.setDecimalPattern("#,##0.#")
    c
  }

  // Series that often coincide (p99, p99.9 and balance p99 with few probes; one always equals another when they are the
  // same probes' times) stay apart: each its own colour, marker and dashes, and each drawn over the earlier ones with a
  // smaller marker and a thinner line, so a coinciding earlier series shows as a ring and a border around a later one.
  private val colours = List(new Color(31, 119, 180), new Color(255, 127, 14), new Color(44, 160, 44), new Color(148, 103, 189),
    new Color(140, 86, 75), new Color(227, 119, 194), new Color(23, 190, 207), new Color(188, 189, 34))
  private val markers = List(SeriesMarkers.CIRCLE, SeriesMarkers.DIAMOND, SeriesMarkers.TRIANGLE_UP, SeriesMarkers.SQUARE,
    SeriesMarkers.TRIANGLE_DOWN, SeriesMarkers.CROSS, SeriesMarkers.PLUS, SeriesMarkers.OVAL)
  private val dashes = List(Array(1f, 0f), Array(8f, 4f), Array(2f, 3f), Array(10f, 3f, 2f, 3f))
  private val markerSizes = List(12, 10, 8, 6, 4)
  private val lineWidths = List(4f, 3f, 2.2f, 1.5f, 1f)

  /** A marker drawn at its own size: XChart sizes every series' markers alike. */
  private final class Sized(inner: Marker, size: Int) extends Marker {
    def paint(g: java.awt.Graphics2D, x: Double, y: Double, ignored: Int): Unit = inner.paint(g, x, y, size)
  }

  private def style(series: XYSeries, i: Int): Unit = {
    series.setLineColor(colours(i % colours.size))
    series.setMarkerColor(colours(i % colours.size))
    series.setMarker(new Sized(markers(i % markers.size), markerSizes(i min (markerSizes.size - 1))))
    val width = lineWidths(i min (lineWidths.size - 1))
    series.setLineStyle(new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f,
        dashes(i % dashes.size).map(_ * (width max 2f) / 2f), 0f))
  }

  private[latency] def latency(steps: List[StepResult], timeoutMs: Double, title: String, floor: List[StepResult] = Nil): XYChart = {
    val c = base(if (steps.isEmpty) s"$title: no step reached (the run ended in its warm-up)" else title, "end-to-end latency (ms, log scale)")
    c.getStyler.setYAxisLogarithmic(true)
    val x = xs(steps)
    var drawn = List.empty[(String, Array[Double])]
    def add(name: String, m: Measure, p: Double, of: List[StepResult] = steps): Unit = {
      // Log scale: a step without the measure is drawn at the floor rather than dropped, keeping the x values aligned.
      val ys = of.map(s => s.measures.get(m).filter(_.count > 0).fold(0.1)(_.percentileMs(p) max 0.1)).toArray
      // A series equal to an earlier one at every step says so: drawn exactly over it, only the ring would tell.
      val label = drawn.reverse.find(_._2.sameElements(ys)).fold(name)(same => s"$name (= ${same._1})")
      style(c.addSeries(label, xs(of), ys), drawn.size)
      drawn = (name, ys) :: drawn
    }
    Measure.all.filter(m => steps.exists(_.measures.contains(m))).foreach { m =>
      if (m == Measure.Feedback) { add("feedback p50", m, 50); add("feedback p99", m, 99); add("feedback p99.9", m, 99.9) }
      else add(s"${m.name} p99", m, 99)
    }
    if (floor.nonEmpty) { add("Kafka floor p50", Measure.Feedback, 50, floor); add("Kafka floor p99", Measure.Feedback, 99, floor) }
    // The axis spans whole decades, so each end is a labelled decade: XChart labels only the decades inside the data's
    // range, and latencies between 300 and 5,000 ms showed the one label 1,000.
    val ys = timeoutMs :: drawn.flatMap(_._2.toList)
    val (low, high) = (LatencyChart.decadeBelow(ys.min), LatencyChart.decadeAbove(ys.max))
    // Only the timeout (a run stopped in its warm-up), a power of ten: one decade above it.
    c.getStyler.setYAxisMin(low).setYAxisMax(if (high > low) high else low * 10)
    val t = c.addSeries("timeout", Array(x.minOption.getOrElse(0.0), x.maxOption.getOrElse(1.0)), Array(timeoutMs, timeoutMs))
    t.setMarker(SeriesMarkers.NONE)
    t.setLineColor(Color.RED)
    t.setLineStyle(new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, Array(6f, 4f), 0f))
    c
  }

  private def resources(steps: List[StepResult]): XYChart = {
    val c = base("watched processes against extra load", "CPU (% of one core)")
    c.setYAxisGroupTitle(1, "resident memory (MiB)")
    c.getStyler.setYAxisGroupPosition(1, Styler.YAxisPosition.Right)
    val x = xs(steps)
    val processes = steps.flatMap(_.processes.map(_.label)).distinct
    processes.zipWithIndex.foreach { case (p, i) =>
      def ys(f: ProcessStats => Double) = steps.map(s => s.processes.find(_.label == p).fold(0.0)(f)).toArray
      style(c.addSeries(s"$p CPU %", x, ys(_.cpuPercent)), 2 * i)
      val rss: XYSeries = c.addSeries(s"$p RSS MiB", x, ys(_.rssMaxMiB))
      style(rss, 2 * i + 1)
      rss.setYAxisGroup(1)
    }
    // Both axes from 0, CPU up to at least one core and memory with headroom: auto-scaled, each series spanned its own
    // axis exactly, so a CPU line and an RSS line always met at both ends and read as one.
    val all = steps.flatMap(_.processes)
    val st = c.getStyler
    st.setYAxisMin(0, 0.0)
    st.setYAxisMax(0, (all.map(_.cpuPercent).maxOption.getOrElse(0.0) * 1.15) max 100.0)
    st.setYAxisMin(1, 0.0)
    st.setYAxisMax(1, (all.map(_.rssMaxMiB).maxOption.getOrElse(0.0) * 1.6) max 64.0)
    // An empty figure still says why it is empty (and XChart draws no chart without a series).
    if (processes.isEmpty) {
      c.setTitle(if (steps.isEmpty) "no step reached" else "no process watched (--watch-pid PID)")
      // XChart refuses a series without points, and a run that ended in its warm-up has no step: its one point is at 0.
      val at = if (x.isEmpty) Array(0.0) else x
      c.addSeries("none", at, at.map(_ => 0.0)).setMarker(SeriesMarkers.NONE)
    }
    c
  }
}
