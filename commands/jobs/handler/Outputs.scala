package bankops.jobs.handler

import cats.effect.IO
import cats.syntax.all._
import org.apache.kafka.clients.consumer.ConsumerRecord
import org.apache.kafka.clients.producer.ProducerRecord
import org.apache.kafka.common.header.Header
import org.apache.kafka.common.header.internals.RecordHeaders
import org.apache.kafka.common.record.{AbstractRecords, CompressionType, RecordBatch}
import vulcan.Codec

import java.nio.charset.StandardCharsets.UTF_8
import scala.jdk.CollectionConverters._

import bankops.services.avro.WireFormat
import bankops.services.bank._
import bankops.base.Failure
import bankops.services.registry.{Lookup, RegistryClient}
import bankops.services.contracts.SubjectNameStrategy

/** Encodes what the handler publishes: feedback on the feedback topic keyed by the command id, balance changes on
  * the balance topic keyed by the iban, each under the schema id its subject holds for bankops' record; and records it
  * cannot apply, as they came, on the dead-letter topic.
  */
private[handler] final class Outputs(val feedbackTopic: String, balanceTopic: String, val deadLetterTopic: String,
                                     created: WireFormat.Writer[AccountCreationConfirmed],
                                     creationFailed: WireFormat.Writer[AccountCreationFailed], confirmed: WireFormat.Writer[MoneyTransferConfirmed],
                                     failed: WireFormat.Writer[MoneyTransferFailed], changed: WireFormat.Writer[BalanceChanged]) {

  private def bytes[A](w: WireFormat.Writer[A], a: A): Array[Byte] = w(a).fold(e => throw new IllegalStateException(e.message), identity)
  private def feedback(id: java.util.UUID, value: Array[Byte], batch: Option[String]) = {
    val headers = new RecordHeaders()
    batch.foreach(b => headers.add(Marker.Header, b.getBytes(UTF_8)))
    new ProducerRecord(feedbackTopic, null, id.toString.getBytes(UTF_8), value, headers)
  }

  /** `batch`: on the batch's marker, the batch's id (its `bankops.batch` header). */
  def record(e: Emitted, batch: Option[String] = None): ProducerRecord[Array[Byte], Array[Byte]] = e match {
    case Emitted.Created(r) => feedback(r.id, bytes(created, r), batch)
    case Emitted.CreationFailed(r) => feedback(r.id, bytes(creationFailed, r), batch)
    case Emitted.Confirmed(r) => feedback(r.id, bytes(confirmed, r), batch)
    case Emitted.TransferFailed(r) => feedback(r.id, bytes(failed, r), batch)
    case Emitted.Changed(r) => new ProducerRecord(balanceTopic, r.iban.getBytes(UTF_8), bytes(changed, r))
  }

  /** The record as it came (key, value, headers), plus headers naming where it came from, why, and when: an earlier
    * dead letter's own headers are replaced, so a record replayed from the dead-letter topic and refused again says
    * only why it was refused this time.
    */
  def deadLetter(r: ConsumerRecord[Array[Byte], Array[Byte]], reason: String, at: java.time.Instant): ProducerRecord[Array[Byte], Array[Byte]] = {
    val headers = new RecordHeaders()
    val own = r.headers.asScala.filterNot(_.key.startsWith(Outputs.DeadLetterHeader)).toList
    val cut = Outputs.cut(Option(r.key), Option(r.value), own)
    (if (cut.isEmpty || Outputs.size(own) <= Outputs.KeptBytes) own else Nil).foreach(headers.add)
    def add(name: String, value: String) = headers.add(s"${Outputs.DeadLetterHeader}$name", value.getBytes(UTF_8))
    add("topic", r.topic); add("partition", r.partition.toString); add("offset", r.offset.toString)
    add("timestamp", java.time.Instant.ofEpochMilli(r.timestamp).toString); add("reason", reason); add("time", at.toString)
    cut.foreach(add("truncated", _))
    def kept(bytes: Array[Byte]) = if (cut.isEmpty || bytes == null) bytes else bytes.take(Outputs.KeptBytes)
    new ProducerRecord(deadLetterTopic, null, kept(r.key), kept(r.value), headers)
  }
}

private[handler] object Outputs {
  /** Headers the handler adds to a dead letter: `bankops.dlq.topic`, `.partition`, `.offset`, `.timestamp`, `.reason`, `.time`. */
  val DeadLetterHeader = "bankops.dlq."

  /** A dead letter larger than [[BankRules.MaxDeadLetterBytes]] (key, value and headers) could not be published (the
    * producer takes 1 MiB a record) and would stop the bank: it is kept cut down to [[KeptBytes]] of key and of value,
    * its headers only if they fit there too, with a header `bankops.dlq.truncated` giving the sizes it had. The whole
    * record stays at its source position (the `bankops.dlq.topic`, `.partition` and `.offset` headers) while that
    * topic's retention keeps it.
    */
  val MaxDeadLetterBytes: Int = BankRules.MaxDeadLetterBytes
  val KeptBytes: Int = 64 * 1024

  /** A record's size as the producer measures it against its 1 MiB limit (Kafka's own upper bound: key, value, each
    * header's UTF-8 key and value with their varints, the batch's overhead). Counting a header key's chars instead
    * judged a key of 350,000 "€" 350 KB; it is 1.05 MB, refused by the producer, and its batch was retried for ever.
    */
  private[handler] def recordBytes(key: Array[Byte], value: Array[Byte], headers: List[Header]): Long =
    AbstractRecords.estimateSizeInBytesUpperBound(RecordBatch.CURRENT_MAGIC_VALUE, CompressionType.NONE, key, value, headers.toArray).toLong

  /** What headers add to a record ([[recordBytes]]). */
  private[handler] def size(headers: List[Header]): Long = recordBytes(null, null, headers) - recordBytes(null, null, Nil)

  /** What a dead letter too large to publish had ("value 4194304 bytes, key 36 bytes, headers 0 bytes"); None when it fits. */
  private[handler] def cut(key: Option[Array[Byte]], value: Option[Array[Byte]], headers: List[Header]): Option[String] = {
    val (k, v, h) = (key.fold(0)(_.length).toLong, value.fold(0)(_.length).toLong, size(headers))
    Option.when(recordBytes(key.orNull, value.orNull, headers) > MaxDeadLetterBytes)(
      s"value $v bytes, key $k bytes, headers $h bytes: the first $KeptBytes bytes of key and value kept" +
        (if (h > KeptBytes) ", the headers dropped" else ""))
  }

  def isFeedback(e: Emitted): Boolean = e match {
    case _: Emitted.Changed => false
    case _ => true
  }

  /** The schema ids of the five records under their subjects; a subject without bankops' schema is exit 2. */
  def resolve(registry: RegistryClient, strategy: SubjectNameStrategy, topics: HandlerCommand.Topics): IO[Outputs] = {
    import topics.{balance => balanceTopic, deadLetter => deadLetterTopic, feedback => feedbackTopic}
    def id[A](topic: String)(implicit codec: Codec[A]): IO[WireFormat.Writer[A]] = {
      val schema = codec.schema.fold(e => throw new IllegalStateException(e.message), identity)
      val subject = strategy.subject(topic, schema.getFullName)
      registry.schemaId(subject, schema.toString, register = false).flatMap {
        case Right(id) => IO.pure(WireFormat.Writer[A](id))
        case Left(Lookup.SubjectMissing) =>
          IO.raiseError(Failure.BadInput(s"subject $subject does not exist (register the bank's schemas with `bankops apply`)"))
        case Left(_) => IO.raiseError(Failure.BadInput(s"subject $subject has no version matching the ${schema.getFullName} the handler writes"))
      }
    }
    (id[AccountCreationConfirmed](feedbackTopic), id[AccountCreationFailed](feedbackTopic), id[MoneyTransferConfirmed](feedbackTopic),
      id[MoneyTransferFailed](feedbackTopic), id[BalanceChanged](balanceTopic)).mapN(new Outputs(feedbackTopic, balanceTopic, deadLetterTopic, _, _,
        _, _, _))
  }
}
