package bankops.services.load

import java.util.UUID
import java.util.concurrent.ConcurrentHashMap

/** The accounts a command load has learned from the handler's AccountCreationConfirmed feedback (iban and token),
  * for creations it asked for itself. Filled by the feedback reader, drawn from by the generator's thread.
  */
final class AccountPool {
  private val asked = ConcurrentHashMap.newKeySet[UUID]()
  @volatile private var learned = Vector.empty[(String, String)]

  def ask(id: UUID): Unit = { asked.add(id); () }
  def outstanding: Int = asked.size

  /** Whether feedback keyed by `id` answers one of our creations (and so is worth decoding). */
  def awaits(id: UUID): Boolean = asked.contains(id)

  /** Feedback for one of our creations: the account is ours to use. */
  def learn(id: UUID, iban: String, token: String): Unit =
    if (asked.remove(id)) synchronized { learned = learned :+ (iban -> token) }

  def accounts: Vector[(String, String)] = learned
}
