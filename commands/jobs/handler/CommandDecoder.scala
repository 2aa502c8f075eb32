package bankops.jobs.handler

import cats.effect.IO
import cats.syntax.all._
import org.apache.avro.Schema

import scala.collection.concurrent.TrieMap

import bankops.base.Failure
import bankops.services.avro.{AvroBounds, DecodeError, WireFormat}
import bankops.services.bank.{ConfirmAccountCreation, ConfirmMoneyTransfer}
import bankops.services.registry.{NotARegistry, RegistryError, SchemaNotAvro, SchemaResolver}

/** Turns `commands` values (Confluent wire format) into the bank's two commands, or the reason a record is
  * dead-lettered: not framed, a schema id the registry does not know, a schema that is not Avro (a shared registry
  * holds JSON and Protobuf schemas too) or does not parse, another record type, a payload that declares more than it
  * holds ([[AvroBounds]], checked before Avro allocates anything), a payload that does not parse. Writer schemas are
  * fetched once per id, and so are ids whose schema is not Avro (asking again gives the same answer); an id the
  * registry does not know is asked for again in each batch that has it (registering the schema is how such records are
  * mended, then replayed from the dead-letter topic). Only an unreachable or broken registry is an error, retried.
  */
private[handler] final class CommandDecoder(resolver: SchemaResolver) {
  private val schemas = TrieMap.empty[Int, Schema]
  private val unusable = TrieMap.empty[Int, String]
  private val creations = new WireFormat.Reader[ConfirmAccountCreation]
  private val transfers = new WireFormat.Reader[ConfirmMoneyTransfer]
  private val CreationName = "nl.openweb.data.ConfirmAccountCreation"
  private val TransferName = "nl.openweb.data.ConfirmMoneyTransfer"

  /** Fetches the writer schemas these values name that are not known yet. */
  def resolve(values: Iterable[Array[Byte]]): IO[Unit] =
    values.iterator.flatMap(v => WireFormat.schemaIdOf(v).toOption).toSet.filterNot(id => schemas.contains(id) || unusable.contains(id))
      .toList.traverse_ { id =>
        resolver.byId(id).attempt.flatMap {
          case Right(s) => IO(schemas.put(id, s)).void
          case Left(e: RegistryError) if e.kind == RegistryError.Kind.NotFound || e.kind == RegistryError.Kind.Rejected => IO.unit
          case Left(e: SchemaNotAvro) => IO(unusable.put(id, s"schema id $id is no Avro schema the handler can read (${e.why.take(200)})")).void
          // Not a failure of bankops' own (those end the handler): the batch is undone and retried with backoff.
          case Left(e: Failure.Unavailable) => IO.raiseError(new RegistryUnreachable(e.message))
          case Left(e: NotARegistry) => IO.raiseError(new RegistryUnreachable(e.getMessage))
          case Left(e) => IO.raiseError(e)
        }
      }

  /** After [[resolve]]: the command, or why the record is dead-lettered. */
  def decode(value: Array[Byte]): Either[String, Ledger.Command] =
    for {
      id <- WireFormat.schemaIdOf(value).left.map(_.reason)
      _ <- unusable.get(id).toLeft(())
      schema <- schemas.get(id).toRight(s"schema id $id is unknown to the registry")
      command <- schema.getFullName match {
        case CreationName => admitted(value, id, schema) >> creations(value, _ => Some(schema)).map(Left(_)).left.map(_.reason)
        case TransferName => admitted(value, id, schema) >> transfers(value, _ => Some(schema)).map(Right(_)).left.map(_.reason)
        case other => Left(s"record type $other is not a bank command")
      }
    } yield command

  private def admitted(value: Array[Byte], id: Int, schema: Schema): Either[String, Unit] =
    AvroBounds.check(schema, value, WireFormat.HeaderSize).map(DecodeError.Corrupt(id, _).reason).toLeft(())
}

/** The registry did not answer while a batch needed a writer schema: the batch is retried with backoff, one line each
  * time, until it answers.
  */
private[handler] final class RegistryUnreachable(message: String) extends RuntimeException(message) with scala.util.control.NoStackTrace
