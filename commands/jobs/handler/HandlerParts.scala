package bankops.jobs.handler

import org.apache.kafka.clients.consumer.KafkaConsumer

/** What names a handler's work: its consumer group and the topic of its commands (with the feedback topic, they name
  * its prepared transactions).
  */
private[handler] final case class HandlerNames(group: String, topic: String)

/** What the loop works with besides the clients it replaces after a failure: the group's consumer of the commands,
  * the markers' reader, the records in and out, its figures, and its hooks (log lines, fault points, the stop flag,
  * account numbers to draw first: [[HandlerFaults.draws]]).
  */
private[handler] final case class HandlerParts(
    consumer: KafkaConsumer[Array[Byte], Array[Byte]],
    outcomes: KafkaOutcome,
    decoder: CommandDecoder,
    outputs: Outputs,
    stats: HandlerStats,
    log: String => Unit,
    fault: String => Unit = _ => (),
    stopping: () => Boolean = () => false,
    draws: Iterator[Long] = Iterator.empty
)
