package bankops.services.plan

import cats.effect.IO
import io.circe.syntax._

import scala.concurrent.duration._

import bankops.base.{OutputFormat, Rendered, Shell, Table}
import bankops.services.config.{ConnectionFlags, ConnectionSettings, Connections}
import bankops.services.contracts.{DesiredSubject, DesiredSubjects, SubjectNameStrategy, Topology, TopologyChoice}
import bankops.services.registry.RegistryClient

/** Plan, gate and register: the steps `schemas` and the combined `plan`/`apply` share (their flags: `flags/PlanFlags`). */
object SchemaFlow {

  final case class Common(flags: ConnectionFlags, topology: TopologyChoice, strategy: Option[SubjectNameStrategy],
                          output: Option[OutputFormat], timeout: FiniteDuration)

  /** The topology, the desired subjects and a registry session. */
  def prepared[A](c: Common, shell: Shell)(f: (Topology, List[DesiredSubject], SchemaSync) => IO[A]): IO[A] =
    preparedWith(c, shell)((topology, desired, sync, _) => f(topology, desired, sync))

  /** As [[prepared]], with the connection settings for commands that reach Kafka too. */
  def preparedWith[A](c: Common, shell: Shell)(f: (Topology, List[DesiredSubject], SchemaSync, ConnectionSettings) => IO[A]): IO[A] =
    for {
      topology <- TopologyChoice.load(c.topology, shell)
      settings <- Connections.load(c.flags, shell)
      desired <- DesiredSubjects.load(topology, c.strategy)
      result <- RegistryClient.resource(settings, c.timeout).use(client => f(topology, desired, new SchemaSync(client), settings))
    } yield result

  /** The plan to show: a row (or a JSON value) per subject. */
  def rendered(plan: SchemaPlan): Rendered =
    Rendered.result(plan.subjects.map(_.asJson),
      Table.render(List("SUBJECT", "STATUS", "DETAIL"), plan.subjects.map(p => List(p.desired.subject, p.status.name, p.detail))))

  def incompatibleMessage(plan: SchemaPlan): String =
    s"schemas: ${plan.incompatible.map(_.desired.subject).mkString(", ")} incompatible; nothing was registered"

  /** What a registration did: each subject registered with its id, the levels set, and the plan asked again after it
    * (or why asking again failed: what was registered is still shown, then that error).
    */
  final case class Registration(registered: List[(SubjectPlan, Int)], levelsSet: Int, after: Either[Throwable, SchemaPlan]) {
    /** The registry now holds every contract. */
    def complete: Boolean = after.exists(_.isEmpty)
    /** Shows nothing, or fails with why the registry could not be asked again. */
    def failure: IO[Unit] = after.left.toOption.fold(IO.unit)(IO.raiseError)
    /** How it ended, asked again: every subject matches, or which are still pending (a failed asking is raised by
      * [[failure]] before a job reads this; its line is here for completeness).
      */
    def line: String = after.fold(
      e => s"schemas: ${registered.size} registered; asking the registry again failed: ${e.getMessage}",
      left =>
        if (left.isEmpty) s"schemas: ${registered.size} registered, $levelsSet levels set; every subject matches its .avsc"
        else s"schemas: registered, but still pending: ${left.pending.map(_.desired.subject).mkString(", ")}")
  }

  /** Registers after the gate; then asks again, so a complete registration means the registry now holds every contract. */
  def register(sync: SchemaSync, desired: List[DesiredSubject], plan: SchemaPlan, level: Option[String]): IO[Registration] =
    sync.register(plan).flatMap(done => sync.plan(desired, level).attempt.map(Registration(done, plan.pending.size - done.size, _)))

  /** Each subject registered, a line (or a JSON value) each; how it ended is the job's [[Registration.line]]. */
  def rendered(r: Registration): Rendered =
    Rendered.all(r.registered.map { case (p, id) =>
      Rendered.result(List(io.circe.Json.obj("subject" -> p.desired.subject.asJson, "registered" -> true.asJson, "id" -> id.asJson)),
        s"registered  ${p.desired.subject}  id $id")
    })
}
