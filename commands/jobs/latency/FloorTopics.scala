package bankops.jobs.latency

import cats.effect.{IO, Resource}
import org.apache.kafka.clients.admin.{Admin, NewTopic}
import org.apache.kafka.common.config.ConfigResource
import org.apache.kafka.common.errors.GroupIdNotFoundException

import scala.jdk.CollectionConverters._

import bankops.base.Shell
import bankops.services.kafka.{Denied, Doing, KafkaClients}

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
    Resource.eval(IO(java.util.UUID.randomUUID().toString.take(8)).map(named)).flatMap { t =>
      Resource.make(create(admin, like, t, shell).as(t))(t => delete(admin, t, shell))
    }

  private def create(admin: Admin, like: String, t: FloorTopics, shell: Shell): IO[Unit] =
    for {
      described <- KafkaClients.await(admin.describeTopics(List(like).asJava).allTopicNames()).map(_.get(like))
        .adaptError(Denied.tag(Doing.describing(List(like))))
      partitions = described.partitions.size
      replicas = described.partitions.asScala.map(_.replicas.size).maxOption.getOrElse(1)
      resource = new ConfigResource(ConfigResource.Type.TOPIC, like)
      isr <- KafkaClients.await(admin.describeConfigs(List(resource).asJava).all())
        .map(c => Option(c.get(resource).get("min.insync.replicas")).flatMap(e => Option(e.value)))
        .adaptError(Denied.tag(Doing.describingConfigs(List(like))))
      topics = List(t.in, t.out).map(n => new NewTopic(n, partitions, replicas.toShort).configs(isr.map("min.insync.replicas" -> _).toMap.asJava))
      _ <- KafkaClients.await(admin.createTopics(topics.asJava).all()).adaptError(Denied.tag(Doing.creating(List(t.in, t.out))))
      _ <- shell.info(s"latency: floor: created ${t.in} and ${t.out} as $like ($partitions partition(s), replication $replicas" +
        isr.fold("")(n => s", min.insync.replicas $n") + ")")
    } yield ()

  private def delete(admin: Admin, t: FloorTopics, shell: Shell): IO[Unit] = {
    val topics = KafkaClients.await(admin.deleteTopics(List(t.in, t.out).asJava).all()).void
      .handleErrorWith(e => shell.warn(s"latency: floor: could not delete ${t.in} and ${t.out}: ${e.getMessage}"))
    // The group holds only the relay's committed offsets; it is empty once the relay stopped.
    // A relay that copied nothing committed nothing: then there is no group to delete.
    val group = KafkaClients.await(admin.deleteConsumerGroups(List(t.group).asJava).all()).void
      .handleErrorWith(e =>
        if (causes(e).exists(_.isInstanceOf[GroupIdNotFoundException])) IO.unit
        else shell.warn(s"latency: floor: could not delete consumer group ${t.group}: ${e.getMessage}"))
    (topics >> group).uncancelable
  }

  private def causes(e: Throwable): List[Throwable] = Iterator.iterate(e)(_.getCause).takeWhile(_ != null).toList
}
