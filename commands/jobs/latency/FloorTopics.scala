package bankops.jobs.latency

import cats.effect.{IO, Resource}
import cats.syntax.all._
import org.apache.kafka.clients.admin.{Admin, NewTopic}
import org.apache.kafka.common.config.ConfigResource
import org.apache.kafka.common.errors.{AuthorizationException, GroupIdNotFoundException, UnknownTopicOrPartitionException}

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.base.{Failure, Failures, Shell}
import bankops.services.kafka.{Denied, Doing, EndOffsets, KafkaClients}

/** The floor's scratch topics and consumer group: `in` shaped as the commands topic (partitions, replication factor,
  * `min.insync.replicas`), so the floor pays the replication the handler pays; `out` the same.
  */
private[latency] final case class FloorTopics(in: String, out: String, group: String)

private[latency] object FloorTopics {
  val Prefix = "bankops-floor-"

  /** What the relay does, for the line naming a refusal: READ `in`, WRITE `out`, its group and transactional id. */
  def relaying(t: FloorTopics): Doing = Doing.writingTransactionally(t.group, List(t.out), Some(t.group)).andReading(List(t.in))

  def named(run: String): FloorTopics = FloorTopics(s"$Prefix$run-in", s"$Prefix$run-out", s"$Prefix$run")

  /** Created shaped as `like`, deleted with their group on release, also after an error or Ctrl-C; a failed deletion is
    * a warning naming what is left, never the run's error.
    */
  def resource(admin: Admin, like: String, shell: Shell): Resource[IO, FloorTopics] =
    for {
      t <- Resource.eval(IO(java.util.UUID.randomUUID().toString.take(8)).map(named))
      shape <- Resource.eval(shapeOf(admin, like))
      // Deleted once creation was asked for, whatever came back: a creation that failed half-way (one topic made, a
      // client timeout) is undone too. A refused creation made nothing, and a deletion would only be refused in turn.
      created <- Resource.make(KafkaClients.await(admin.createTopics(shape.topics(t).asJava).all()).attempt) {
        case Left(e) if Failures.causedBy[AuthorizationException](e) => IO.unit
        case _ => delete(admin, t, shell)
      }
      _ <- Resource.eval(IO.fromEither(created).adaptError(Denied.tag(Doing.creating(List(t.in, t.out)))))
      _ <- Resource.eval(usable(admin, t, shape.partitions))
      _ <- Resource.eval(shell.info(s"latency: floor: created ${t.in} and ${t.out} as $like (${shape.partitions} partition(s), " +
          s"replication ${shape.replicas}" + shape.minIsr.fold("")(n => s", min.insync.replicas $n") + ")"))
    } yield t

  /** The commands topic's partitions, replication factor and `min.insync.replicas`. */
  private final case class Shape(partitions: Int, replicas: Int, minIsr: Option[String]) {
    def topics(t: FloorTopics): List[NewTopic] =
      List(t.in, t.out).map(n => new NewTopic(n, partitions, replicas.toShort).configs(minIsr.map("min.insync.replicas" -> _).toMap.asJava))
  }

  private def shapeOf(admin: Admin, like: String): IO[Shape] =
    for {
      described <- KafkaClients.await(admin.describeTopics(List(like).asJava).allTopicNames()).map(_.get(like))
        .adaptError(Denied.tag(Doing.describing(List(like))))
      resource = new ConfigResource(ConfigResource.Type.TOPIC, like)
      isr <- KafkaClients.await(admin.describeConfigs(List(resource).asJava).all())
        .map(c => Option(c.get(resource).get("min.insync.replicas")).flatMap(e => Option(e.value)))
        .adaptError(Denied.tag(Doing.describingConfigs(List(like))))
    } yield Shape(described.partitions.size, described.partitions.asScala.map(_.replicas.size).maxOption.getOrElse(1), isr)

  // createTopics answers before every broker knows the topics: a client asking another broker would find none.
  private def usable(admin: Admin, t: FloorTopics, partitions: Int): IO[Unit] = {
    val all = List(t.in, t.out).traverse(n => EndOffsets.partitions(admin, n).flatMap(EndOffsets.ends(admin, _))).map(_.forall(_.size == partitions))
    (all.attempt.map(_.getOrElse(false)), IO.sleep(100.millis)).parTupled.map(_._1).iterateUntil(identity).void.timeoutTo(30.seconds,
      IO.raiseError(Failure.Unavailable(s"the floor's topics ${t.in} and ${t.out} were created but not usable within 30 s")))
  }

  private def delete(admin: Admin, t: FloorTopics, shell: Shell): IO[Unit] = {
    val topics = KafkaClients.await(admin.deleteTopics(List(t.in, t.out).asJava).all()).void
      .handleErrorWith(e =>
        if (Failures.causedBy[UnknownTopicOrPartitionException](e)) IO.unit
        else shell.warn(s"latency: floor: could not delete ${t.in} and ${t.out}: ${e.getMessage}"))
    // The group holds only the relay's committed offsets; it is empty once the relay stopped.
    // A relay that copied nothing committed nothing: then there is no group to delete.
    val group = KafkaClients.await(admin.deleteConsumerGroups(List(t.group).asJava).all()).void
      .handleErrorWith(e =>
        if (Failures.causedBy[GroupIdNotFoundException](e)) IO.unit
        else shell.warn(s"latency: floor: could not delete consumer group ${t.group}: ${e.getMessage}"))
    (topics >> group).uncancelable
  }

}
