package bankops.jobs.doctor

import org.apache.kafka.common.acl.AclOperation
import org.apache.kafka.common.acl.AclOperation._
import org.apache.kafka.common.resource.ResourceType

import bankops.services.bank.BankNames

/** One thing a job needs from Kafka's authorizer: an operation on a resource, by name or (`prefixed`) on every name
  * starting with it, as a transactional-id prefix is granted.
  */
private[doctor] final case class Need(operation: AclOperation, resource: ResourceType, name: String, prefixed: Boolean = false) {
  def kind: String = resource.name.toLowerCase.replace('_', '-')
  def text: String = s"${operation.name} $kind ${if (prefixed) s"$name*" else name}"
}

/** What each job needs on the bank's default names ([[BankNames]]), as the Java clients ask for it: a consumer READs
  * its topics (READ implies DESCRIBE) and its group, a producer WRITEs its topics, a transactional one also its
  * transactional ids; admin reads DESCRIBE. A job run with other names needs the same on those.
  */
object JobNeeds {
  import BankNames._

  private val bankTopics = List(Heartbeat, Commands, DeadLetters, Feedback, BalanceChanged)
  private def topics(op: AclOperation, names: String*) = names.toList.map(Need(op, ResourceType.TOPIC, _))
  private def group(op: AclOperation, name: String) = Need(op, ResourceType.GROUP, name)
  /** Kafka names its one cluster resource so. */
  private def cluster(op: AclOperation) = Need(op, ResourceType.CLUSTER, "kafka-cluster")

  val table: List[(String, List[Need])] = List(
    "inspect" -> topics(READ, bankTopics: _*),
    "produce" -> topics(WRITE, Commands),
    "heartbeat" -> topics(WRITE, Heartbeat),
    "replay" -> (topics(READ, DeadLetters) ++ topics(WRITE, Commands)),
    "balances" -> topics(READ, BalanceChanged),
    "capture" -> (topics(READ, bankTopics: _*) ++ topics(DESCRIBE_CONFIGS, bankTopics: _*) :+ group(DESCRIBE, HandlerGroup)),
    "latency" -> (topics(WRITE, Commands) ++ topics(READ, Feedback, BalanceChanged) :+ group(DESCRIBE, HandlerGroup)),
    "handler" ->
      ((topics(READ, Commands, Feedback) :+ group(READ, HandlerGroup)) ++ topics(WRITE, Feedback, BalanceChanged, DeadLetters) :+
        Need(WRITE, ResourceType.TRANSACTIONAL_ID, HandlerGroup, prefixed = true)),
    "groups" -> (group(DESCRIBE, HandlerGroup) :: topics(DESCRIBE, Commands)),
    // The topology declares access: plan reads the cluster's ACLs and SCRAM users, apply changes them.
    "plan" -> (topics(DESCRIBE, bankTopics: _*) ++ topics(DESCRIBE_CONFIGS, bankTopics: _*) :+ cluster(DESCRIBE)),
    "apply" -> (topics(CREATE, bankTopics: _*) ++ topics(ALTER, bankTopics: _*) ++ topics(ALTER_CONFIGS, bankTopics: _*) :+ cluster(ALTER))
  )

  def jobs: List[String] = table.map(_._1)

  /** The jobs with no row, and why (a test holds this and [[table]] to the CLI's whole list of jobs). */
  val without: Map[String, String] = Map(
    "config" -> "prints the settings a job would use",
    "context" -> "stores settings on this machine",
    "completion" -> "prints a shell's completion script",
    "reference" -> "writes the command reference from the options",
    "doctor" -> "checks the other jobs' needs",
    "schemas" -> "talks to the schema registry only",
    "topics" -> "plan's and apply's needs on the topics (their rows)",
    "sandbox" -> "runs the sandbox as its operator, a super user",
    "demo" -> "runs on the sandbox, each step as that job's identity there",
    "restore" -> "writes under the --topic-prefix the operator chooses, names no row can know"
  )

  /** The needs as people read them, grouped: `WRITE topics command_feedback, balance_changed; READ group g`. */
  def summary(needs: List[Need]): String =
    needs.groupBy(n => (n.operation, n.kind)).toList.sortBy { case ((op, kind), _) => (needs.indexWhere(n => n.operation == op && n.kind == kind)) }
      .map { case ((op, kind), ns) =>
        val names = ns.map(n => if (n.prefixed) s"${n.name}*" else n.name).distinct
        s"${op.name} $kind${if (names.size > 1) "s" else ""} ${names.mkString(", ")}"
      }.mkString("; ")
}
