package bankops.flags

import com.monovore.decline.Argument

import java.time.Instant

import bankops.base.Flags
import bankops.services.contracts.SubjectNameStrategy
import bankops.services.kafka.{StartAt, StopAt}
import bankops.services.load.LoadKind
import bankops.services.records.{Condition, HeaderMatch}

/** How decline reads the services' values from a flag: each type's own parser, its refusal read on from the flag's
  * name by [[Flags.option]] (`--from 'soon' is not a start position (...)`). Imported where such a flag is declared.
  */
object Arguments {
  /** `ago:` against the moment the flag is read. */
  implicit val startAt: Argument[StartAt] = Flags.argument("POSITION")(StartAt.parse(_, Instant.now()))
  implicit val stopAt: Argument[StopAt] = Flags.argument("POSITION")(StopAt.parse)
  implicit val condition: Argument[Condition] = Flags.argument("EXPR")(Condition.parse)
  implicit val headerMatch: Argument[HeaderMatch] = Flags.argument("KEY=VALUE")(HeaderMatch.parse)
  implicit val loadKind: Argument[LoadKind] = Flags.argument(LoadKind.all.map(_.name).mkString("|"))(LoadKind.parse)
  implicit val subjectNameStrategy: Argument[SubjectNameStrategy] =
    Flags.argument(SubjectNameStrategy.all.map(_.name).mkString("|"))(SubjectNameStrategy.parse)
}
