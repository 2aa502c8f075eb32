package bankops.jobs.balances

import cats.effect.IO
import fs2.Chunk
import org.apache.kafka.common.TopicPartition

import scala.collection.mutable
import scala.concurrent.duration.FiniteDuration

import bankops.services.avro.WireFormat
import bankops.services.bank.BalanceChanged
import bankops.services.config.KafkaSettings
import bankops.services.kafka.{ReadPlan, ReadSpec, TopicReader}
import bankops.services.records.RecordDecoder

/** BalanceChanged events folded per account while they stream past: memory grows with accounts, not events. */
private[balances] final class EventFold {
  val chains: mutable.HashMap[String, AccountChain] = mutable.HashMap.empty
  var events = 0L
  val undecodable: mutable.ListBuffer[Finding] = mutable.ListBuffer.empty

  def add(e: BalanceChanged, partition: Int, offset: Long): Unit = {
    events += 1
    chains.update(e.iban, chains.getOrElse(e.iban, AccountChain.start(e.iban)).add(e.newBalance, e.changedBy, partition, offset))
  }
}

private[balances] object EventFold {

  /** Reads `spec` into `fold` (decoding in parallel, folding in order); returns the ranges read. */
  def read(kafka: KafkaSettings, spec: ReadSpec, decoder: RecordDecoder, fold: EventFold, timeout: FiniteDuration): IO[ReadPlan] =
    TopicReader.open(kafka, spec, timeout).use { case (plan, records) =>
      records.chunks
        .parEvalMap(2)(chunk => decoder.resolveIds(chunk).map(_ => decode(chunk, decoder)))
        .evalMap(decoded =>
          IO(decoded.foreach {
            case (p, o, Right(e)) => fold.add(e, p, o)
            case (p, o, Left(reason)) => fold.events += 1; fold.undecodable += Finding.Undecodable(p, o, reason)
          }))
        .compile.drain.as(plan)
    }

  private val reader = new WireFormat.Reader[BalanceChanged]

  private def decode(chunk: Chunk[TopicReader.Raw], decoder: RecordDecoder): Chunk[(Int, Long, Either[String, BalanceChanged])] =
    chunk.map(r => (r.partition, r.offset, reader(r.value, decoder.writerSchema).left.map(_.reason)))

  /** Where each partition's read ended: the next read resumes there. */
  def ends(plan: ReadPlan): Map[TopicPartition, Long] = plan.ranges.map { case (tp, r) => tp -> r.until.getOrElse(r.from) }
}
