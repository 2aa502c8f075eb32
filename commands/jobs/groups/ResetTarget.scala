package bankops.jobs.groups

import com.monovore.decline.Argument

import java.time.Instant

import bankops.base.Flags
import bankops.services.kafka.StartAt

/** Where `groups reset --to` moves a group: inspect's positions (`beginning`/`earliest`, `end`/`latest`, `offset:N`,
  * `timestamp:ISO-8601`, `ago:DURATION`), plus `shift:±N` from the committed offset and `file:PATH` written by `--save-to`.
  */
private[groups] sealed trait ResetTarget
private[groups] object ResetTarget {
  case object Earliest extends ResetTarget
  case object Latest extends ResetTarget
  final case class Offset(n: Long) extends ResetTarget
  final case class Time(at: Instant) extends ResetTarget
  final case class Shift(by: Long) extends ResetTarget
  final case class File(path: os.Path) extends ResetTarget

  private val forms = "earliest, latest, offset:N, timestamp:ISO-8601, ago:DURATION, shift:±N, file:PATH"

  /** `ago:` is resolved against `now`, so every partition moves to the same instant; `file:` relative to `cwd`. */
  def parse(s: String, now: Instant, cwd: os.Path): Either[String, ResetTarget] = s match {
    case "earliest" => Right(Earliest)
    case "latest" => Right(Latest)
    case sh if sh.startsWith("shift:") =>
      sh.drop(6).stripPrefix("+").toLongOption.filter(_ != 0).toRight(
        s"'${sh.drop(6)}' is not a shift (a whole number of records, e.g. shift:-100 or shift:5, not 0)").map(Shift(_))
    case f if f.startsWith("file:") =>
      if (f.drop(5).trim.isEmpty) Left("file: needs a path (file:offsets.json)") else Right(File(os.Path(f.drop(5), cwd)))
    case other => StartAt.parse(other, now) match {
        case Right(StartAt.Beginning) => Right(Earliest)
        case Right(StartAt.End) => Right(Latest)
        case Right(StartAt.Offset(n)) => Right(Offset(n))
        case Right(StartAt.Time(at)) => Right(Time(at))
        case Right(StartAt.Offsets(_)) => Left(s"'$other' is not a reset target ($forms)")
        case Left(e) if other.contains(":") => Left(e)
        case Left(_) => Left(s"'$other' is not a reset target ($forms)")
      }
  }

  /** `ago:` against the moment the flag is read, `file:` against the working directory. */
  implicit val argument: Argument[ResetTarget] = Flags.argument("POSITION")(parse(_, Instant.now(), os.pwd))
}
