package bankops.flags

import cats.data.NonEmptyList
import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.base.Flags
import bankops.flags.Arguments._
import bankops.services.kafka.{ReadSpec, StartAt, StopAt}
import bankops.services.records.{Condition, HeaderMatch, RecordFilter}

/** Where records come from: topics, partitions, start and stop, limit, follow. Shared by inspect and replay. */
object SourceOpts {
  private def ints(s: String): Either[String, List[Int]] =
    s.split(",").toList.map(_.trim).filter(_.nonEmpty).traverse(p =>
      p.toIntOption.filter(_ >= 0).toRight(s"--partition: '$p' is not a partition number"))

  def topics(name: String, help: String): Opts[NonEmptyList[String]] = TopicFlags.options(name, help)

  val partitions: Opts[Option[List[Int]]] =
    Opts.options[String]("partition", "Only these partitions (repeatable, or comma-separated).", "p", "N[,N]")
      .mapValidated(_.toList.flatTraverse(ints).toValidatedNel).orNone

  val from: Opts[StartAt] =
    Flags.option[StartAt]("from", "Start: beginning (default), end, offset:N, timestamp:ISO-8601, ago:DURATION (e.g. ago:15m).")
      .withDefault(StartAt.Beginning)

  val to: Opts[Option[StopAt]] =
    Flags.option[StopAt]("to", "Stop: end (default; the end offsets when the run starts), offset:N (inclusive), timestamp:ISO-8601.").orNone

  val follow: Opts[Boolean] = Opts.flag("follow", "Keep reading new records until interrupted (Ctrl-C exits 0).", "f").orFalse

  val limit: Opts[Option[Long]] =
    Opts.option[Long]("limit", "Stop after N records shown.", "n", "N").mapValidated(n =>
      if (n > 0) n.validNel else s"--limit must be positive, not $n".invalidNel).orNone

  /** Topics and positions as one read; `--follow` and `--to` exclude each other. */
  def spec(topicOpt: Opts[NonEmptyList[String]]): Opts[ReadSpec] =
    (topicOpt, partitions, from, to, follow).tupled.mapValidated { case (ts, ps, start, stop, f) =>
      (stop, f, start) match {
        case (Some(_), true, _) => "--follow reads until interrupted: it cannot be combined with --to".invalidNel
        case (Some(StopAt.Offset(b)), _, StartAt.Offset(a)) if b < a => s"--to offset:$b is before --from offset:$a: nothing to read".invalidNel
        case (Some(StopAt.Time(b)), _, StartAt.Time(a)) if b.isBefore(a) => s"--to timestamp:$b is before --from (${a}): nothing to read".invalidNel
        case _ => ReadSpec(ts.toList.distinct, ps, start, if (f) StopAt.Never else stop.getOrElse(StopAt.End)).validNel
      }
    }

  val filter: Opts[RecordFilter] = (
    Opts.options[String]("record", "Only records of this type (simple or full name; repeatable).", metavar = "NAME").orEmpty,
    Opts.option[String]("key", "Only records with this key (UTF-8 text).", metavar = "TEXT").orNone,
    Flags.options[Condition]("where", "Only records whose value matches: field=value, field!=value, field>N, <, <=, >= (repeatable).")
      .map(_.toList).withDefault(Nil),
    Flags.options[HeaderMatch]("header", "Only records with this header, its value as UTF-8 text (KEY=VALUE; repeatable: all must match).")
      .map(_.toList).withDefault(Nil)
  ).mapN(RecordFilter.apply)
}
