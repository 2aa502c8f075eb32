package bankops.jobs.produce

import io.circe.Json

import java.time.Instant
import java.util.UUID

import bankops.base.JsonInput
import bankops.services.bank.{ConfirmAccountCreation, ConfirmMoneyTransfer}
import bankops.services.contracts.RecordKey

/** A value as a person writes it (plain JSON, as `inspect` prints it), before it meets its schema. */
private[produce] object ValueText {
  def parse(text: String): Either[String, Json] = JsonInput.parse(text)

  /** The bank's commands, whose id a person should not have to invent: a missing one is made up. */
  private val commands: Set[String] =
    Set(ConfirmMoneyTransfer.codec.schema, ConfirmAccountCreation.codec.schema).flatMap(_.toOption).map(_.getFullName)

  /** The value with a fresh `id` when it is a bank command without one, and that id. */
  def withId(value: Json, record: String): (Json, Option[UUID]) =
    value.asObject match {
      case Some(o) if commands(record) && !o.contains("id") =>
        val id = UUID.randomUUID()
        (Json.fromJsonObject(("id" -> Json.fromString(id.toString)) +: o), Some(id))
      case _ => (value, None)
    }

  /** The key the topology declares for the record: a field's value as text, or the time it is produced. */
  def key(value: Json, declared: Option[RecordKey], now: => Instant): Option[String] = declared.flatMap {
    case RecordKey.Field(name) => value.hcursor.downField(name).focus.filterNot(_.isNull).map(j => j.asString.getOrElse(j.noSpaces))
    case RecordKey.Time => Some(now.toString)
  }
}
