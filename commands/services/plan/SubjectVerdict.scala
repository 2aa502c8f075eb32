package bankops.services.plan

import org.apache.avro.{Schema, SchemaNormalization}

import bankops.services.contracts.SchemaFile
import bankops.services.registry.{Compatibility, Lookup}

/** Pure: what the registry's answers about a subject mean for its plan. [[SchemaSync]] asks, this decides. */
object SubjectVerdict {

  /** The level to set, when one is asked for and differs from the subject's (levels compare case-insensitively). */
  def levelChange(current: String, wanted: Option[String]): Option[String] = wanted.filterNot(_.equalsIgnoreCase(current))

  /** The status a lookup settles: registered is unchanged, a missing subject is new; None: compare with the latest version. */
  def fromLookup(lookup: Lookup): Option[SubjectStatus] = lookup match {
    case Lookup.Found(v) => Some(SubjectStatus.Unchanged(v.id, v.version))
    case Lookup.SubjectMissing => Some(SubjectStatus.New)
    case Lookup.NotRegistered => None
  }

  /** Whether the latest version already is the contract: the same text or the same canonical form. */
  def sameAsLatest(contract: SchemaFile, latest: Schema): Boolean =
    latest.toString == contract.schema.toString || SchemaNormalization.toParsingForm(latest) == contract.canonical

  /** The registry's compatibility answer as problems: none, its own reasons, or (when it gave none) the local check's. */
  def problems(answer: Compatibility, local: List[String]): List[String] =
    if (answer.isCompatible) Nil
    else if (answer.messages.nonEmpty) answer.messages
    else if (local.isEmpty) List("the registry refused it without a reason")
    else local

  /** A changed contract's status: a new version after `latestVersion`, or incompatible under `level`. */
  def newVersion(latestVersion: Int, level: String, problems: List[String]): SubjectStatus =
    if (problems.isEmpty) SubjectStatus.NewVersion(latestVersion) else SubjectStatus.Incompatible(level, problems)
}
