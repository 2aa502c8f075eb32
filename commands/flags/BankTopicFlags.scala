package bankops.flags

import cats.syntax.all._
import com.monovore.decline.Opts

import bankops.services.bank.BankTopics

/** The flags that name the bank's topics (`--commands-topic`, `--feedback-topic`, `--balance-topic`,
  * `--heartbeat-topic`): their names, checks and defaults (those of [[BankTopics]]) live here once. Each job says what
  * the topic is to it (the help) and which of them it takes; `opts` gathers them into one [[BankTopics]], the others at
  * their defaults.
  */
object BankTopicFlags {

  /** One of the bank's topics as a flag: its usual name, and its place in [[BankTopics]]. */
  sealed abstract class Role(val flag: String, val of: BankTopics => String, val set: (BankTopics, String) => BankTopics) {
    /** This role's flag with a job's help; `name` only where a job has long spelled it otherwise (`handler --topic`). */
    def apply(help: String, name: String = flag): Flag = Flag(this, name, help)

    /** The flag with no default, for a job that picks the topic itself when it is not given. */
    def optional(help: String): Opts[Option[String]] = TopicFlags.option(flag, help).orNone
  }
  object Commands extends Role("commands-topic", _.commands, (t, v) => t.copy(commands = v))
  object Feedback extends Role("feedback-topic", _.feedback, (t, v) => t.copy(feedback = v))
  object Balance extends Role("balance-topic", _.balance, (t, v) => t.copy(balance = v))
  object Heartbeat extends Role("heartbeat-topic", _.heartbeat, (t, v) => t.copy(heartbeat = v))

  final case class Flag(role: Role, name: String, help: String) {
    def opts: Opts[String] = TopicFlags.option(name, help, role.of(BankTopics()))
  }

  /** The flags a job takes, in the order its help lists them. */
  def opts(flags: Flag*): Opts[BankTopics] =
    flags.foldLeft(Opts(BankTopics()))((topics, f) => (topics, f.opts).mapN(f.role.set))
}
