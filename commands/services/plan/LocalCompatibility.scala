package bankops.services.plan

import org.apache.avro.{Schema, SchemaCompatibility}

import scala.jdk.CollectionConverters._

/** Avro's own compatibility check, for the levels the registry knows. Used when the registry
  * cannot be asked (a level about to change, a reference not yet registered) and to explain
  * a refusal the registry gave without reasons.
  */
object LocalCompatibility {
  val Levels: List[String] = List("NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE")

  def parseLevel(s: String): Either[String, String] =
    Levels.find(_.equalsIgnoreCase(s)).toRight(s"unknown compatibility level '$s' (one of ${Levels.mkString(", ")})")

  /** The reasons `candidate` is incompatible with `previous` (oldest first) under `level`; empty when compatible. */
  def problems(level: String, candidate: Schema, previous: List[Schema]): List[String] = {
    val upper = level.toUpperCase
    val against = if (upper.endsWith("_TRANSITIVE")) previous else previous.lastOption.toList
    val backward = upper.startsWith("BACKWARD") || upper.startsWith("FULL")
    val forward = upper.startsWith("FORWARD") || upper.startsWith("FULL")
    against.flatMap { old =>
      (if (backward) check(reader = candidate, writer = old, newIsReader = true) else Nil) ++
        (if (forward) check(reader = old, writer = candidate, newIsReader = false) else Nil)
    }.distinct
  }

  /** Each reason names the field and the change, then which way the data cannot be read. */
  private def check(reader: Schema, writer: Schema, newIsReader: Boolean): List[String] = {
    val what = if (newIsReader) "the new schema cannot read old data" else "the old schema cannot read new data"
    SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getResult.getIncompatibilities.asScala.toList
      .map(i => s"${IncompatibilityText.describe(i, reader, newIsReader)} ($what)")
  }
}
