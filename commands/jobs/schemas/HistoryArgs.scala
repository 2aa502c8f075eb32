package bankops.jobs.schemas

import cats.syntax.all._

/** Which version of a subject: a number, or the latest. */
private[schemas] sealed trait VersionRef { def text: String }
private[schemas] object VersionRef {
  case object Latest extends VersionRef { val text = "latest" }
  final case class Number(n: Int) extends VersionRef { def text: String = n.toString }

  def parse(s: String): Either[String, VersionRef] =
    if (s.equalsIgnoreCase("latest")) Right(Latest)
    else s.toIntOption.filter(_ > 0).map(Number(_)).toRight(s"version '$s': expected a positive number or latest")
}

/** The side of a diff a version or a candidate file stands for. */
private[schemas] sealed trait DiffSide
private[schemas] object DiffSide {
  final case class Registered(version: VersionRef) extends DiffSide
  final case class File(path: os.Path) extends DiffSide
}

/** Pure: the arguments of `show` and `diff` read into what they mean. */
private[schemas] object HistoryArgs {

  /** `SUBJECT[@VERSION]`: the latest without a version. A subject may hold `@` itself: text after the last `@` is part
    * of the subject when it holds a `-`, `.` or `_` (every subject a naming strategy makes does); anything else there is
    * a version, and when it is not a number or `latest`, a bad one (not an unknown subject).
    */
  def subjectAt(arg: String): Either[String, (String, VersionRef)] = arg.lastIndexOf('@') match {
    case -1 => nonEmpty(arg).map(_ -> VersionRef.Latest)
    case i =>
      val (subject, v) = (arg.take(i), arg.drop(i + 1))
      if (v.exists(c => c == '.' || c == '_') || v.contains('-') && !v.forall(c => c.isDigit || c == '-')) nonEmpty(arg).map(_ -> VersionRef.Latest)
      else if (v.isEmpty) Left(s"$arg: no version after '@' (a positive number or latest)")
      else VersionRef.parse(v).left.map(e => s"$arg: $e").flatMap(ref => nonEmpty(subject).map(_ -> ref))
  }

  private def nonEmpty(subject: String) = Either.cond(subject.trim.nonEmpty, subject, "the subject name is empty")

  /** A file when it names one (`.avsc`, or a path with a `/`), else a version. */
  private def side(arg: String): Either[String, DiffSide] =
    if (arg.endsWith(".avsc") || arg.contains('/')) Right(DiffSide.File(os.Path(arg, os.pwd)))
    else VersionRef.parse(arg).map(DiffSide.Registered(_))

  /** `diff SUBJECT [V1] [V2 | FILE.avsc]` as (old, new); None for the old side: the version before the latest. */
  def diff(args: List[String]): Either[String, (Option[VersionRef], DiffSide)] = args.traverse(side).flatMap {
    case Nil => Right(None -> DiffSide.Registered(VersionRef.Latest))
    case (f: DiffSide.File) :: Nil => Right(Some(VersionRef.Latest) -> f)
    case DiffSide.Registered(v) :: Nil => Right(Some(v) -> DiffSide.Registered(VersionRef.Latest))
    case DiffSide.Registered(v) :: second :: Nil => Right(Some(v) -> second)
    case DiffSide.File(f) :: _ :: Nil => Left(s"$f: a file can only be the second side (diff SUBJECT [V1] [V2 | FILE.avsc])")
    case _ => Left(s"too many arguments: ${args.mkString(" ")} (diff SUBJECT [V1] [V2 | FILE.avsc])")
  }
}
