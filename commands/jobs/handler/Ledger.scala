package bankops.jobs.handler

import java.util.UUID

import bankops.services.bank._
import bankops.services.bank.FailureReasons._

/** An account as the handler sees it while applying a batch. */
final case class Account(iban: String, token: String, amount: Long, lmt: Long)

/** A `cac` row: the remembered outcome of an account creation (reason set when it failed). */
private[handler] final case class CreationRow(id: UUID, iban: Option[String], token: Option[String], aType: String, reason: Option[String])

/** What the database knows of a batch before it is applied: earlier outcomes of its command ids
  * (`cac`, `cmt`: reason None = confirmed) and the accounts its transfers name (locked for the batch).
  */
private[handler] final case class Known(creations: Map[UUID, CreationRow], transfers: Map[UUID, Option[String]], accounts: Map[String, Account],
                                        taken: Set[String] = Set.empty)

/** A record the handler publishes: feedback keyed by the command id, or a balance change keyed by the iban. */
private[handler] sealed trait Emitted
private[handler] object Emitted {
  final case class Created(record: AccountCreationConfirmed) extends Emitted
  final case class CreationFailed(record: AccountCreationFailed) extends Emitted
  final case class Confirmed(record: MoneyTransferConfirmed) extends Emitted
  final case class TransferFailed(record: MoneyTransferFailed) extends Emitted
  final case class Changed(record: BalanceChanged) extends Emitted
}

/** Per-batch outcome counts, added up for the handler's status lines. */
final case class Counts(created: Long = 0, creationFailed: Long = 0, confirmed: Long = 0, failed: Map[String, Long] = Map.empty,
                        repeated: Long = 0, balanceChanges: Long = 0) {
  def +(o: Counts): Counts = Counts(created + o.created, creationFailed + o.creationFailed, confirmed + o.confirmed,
    (failed.keySet ++ o.failed.keySet).map(k => k -> (failed.getOrElse(k, 0L) + o.failed.getOrElse(k, 0L))).toMap,
    repeated + o.repeated, balanceChanges + o.balanceChanges)
  def commands: Long = created + creationFailed + confirmed + failed.values.sum + repeated
}

/** What applying a batch changes: rows to insert and update, and the records to publish, in command order. */
private[handler] final case class Applied(
    newAccounts: Vector[(Account, String)],
    amounts: Map[String, Long],
    creations: Vector[CreationRow],
    transfers: Vector[(UUID, Option[String])],
    emitted: Vector[Emitted],
    counts: Counts
) {
  def writes: Boolean = newAccounts.nonEmpty || amounts.nonEmpty || creations.nonEmpty || transfers.nonEmpty
}

/** The bank's rules applied to a batch of commands, as the original handler applied them one by one
  * (commands/DESIGN.md, The bank's rules): pure, so every rule and reason is unit-tested without a database.
  */
object Ledger {
  type Command = Either[ConfirmAccountCreation, ConfirmMoneyTransfer]

  /** `fresh`: for each new creation id, an unused iban and token, or None when none was found. */
  def apply(commands: Vector[Command], known: Known, fresh: Map[UUID, Option[(String, String)]]): Applied = {
    var accounts = known.accounts
    val changed = scala.collection.mutable.LinkedHashMap.empty[String, Long]
    var creations = known.creations
    var transfers = known.transfers
    val newAccounts = Vector.newBuilder[(Account, String)]
    val creationRows = Vector.newBuilder[CreationRow]
    val transferRows = Vector.newBuilder[(UUID, Option[String])]
    val out = Vector.newBuilder[Emitted]
    var counts = Counts()

    def creationFeedback(row: CreationRow, aType: Atype): Emitted = (row.reason, row.iban, row.token) match {
      case (None, Some(iban), Some(token)) => Emitted.Created(AccountCreationConfirmed(row.id, iban, token, aType))
      case (reason, _, _) => Emitted.CreationFailed(AccountCreationFailed(row.id, reason.getOrElse(IbanExists)))
    }
    def transferFeedback(id: UUID, reason: Option[String]): Emitted =
      reason.fold[Emitted](Emitted.Confirmed(MoneyTransferConfirmed(id)))(r => Emitted.TransferFailed(MoneyTransferFailed(id, r)))
    def set(a: Account): Unit = { accounts += a.iban -> a; changed(a.iban) = a.amount }

    commands.foreach {
      // A command id is unique across kinds: an id seen before, as either command, gets that command's stored outcome again.
      case Left(c) =>
        (creations.get(c.id), transfers.get(c.id)) match {
          case (Some(row), _) =>
            counts = counts.copy(repeated = counts.repeated + 1)
            out += creationFeedback(row, Atype.values.find(_.name == row.aType).getOrElse(c.aType))
          case (None, Some(reason)) =>
            counts = counts.copy(repeated = counts.repeated + 1)
            out += transferFeedback(c.id, reason)
          case (None, None) =>
            val row = fresh.get(c.id).flatten match {
              case Some((iban, token)) if !accounts.contains(iban) =>
                val account = Account(iban, token, 0L, BankRules.DefaultLimit)
                accounts += iban -> account
                newAccounts += account -> c.aType.name
                counts = counts.copy(created = counts.created + 1)
                CreationRow(c.id, Some(iban), Some(token), c.aType.name, None)
              case _ =>
                counts = counts.copy(creationFailed = counts.creationFailed + 1)
                CreationRow(c.id, None, None, c.aType.name, Some(IbanExists))
            }
            creations += c.id -> row
            creationRows += row
            out += creationFeedback(row, c.aType)
        }
      case Right(t) =>
        (transfers.get(t.id), creations.get(t.id)) match {
          case (Some(reason), _) =>
            counts = counts.copy(repeated = counts.repeated + 1)
            out += transferFeedback(t.id, reason)
          case (None, Some(row)) =>
            counts = counts.copy(repeated = counts.repeated + 1)
            out += creationFeedback(row, Atype.values.find(_.name == row.aType).getOrElse(Atype.Auto))
          case (None, None) =>
            val (reason, changes) = transfer(t, accounts)
            changes.foreach { case (account, _) => set(account) }
            transfers += t.id -> reason
            transferRows += t.id -> reason
            changes.foreach { case (_, event) => out += Emitted.Changed(event) }
            out += transferFeedback(t.id, reason)
            counts = reason.fold(counts.copy(confirmed = counts.confirmed + 1, balanceChanges = counts.balanceChanges + changes.size))(r =>
              counts.copy(failed = counts.failed.updated(r, counts.failed.getOrElse(r, 0L) + 1)))
        }
    }
    Applied(newAccounts.result(), changed.toMap, creationRows.result(), transferRows.result(), out.result(), counts)
  }

  /** One transfer against the accounts as they stand: a failure reason, or the accounts it changes with their events. */
  def transfer(t: ConfirmMoneyTransfer, accounts: Map[String, Account]): (Option[String], List[(Account, BalanceChanged)]) = {
    def local(iban: String) = if (BankRules.isValidIban(iban)) accounts.get(iban) else None
    BankRules.refusal(t) match {
      case Some(reason) => (Some(reason), Nil)
      case None => byAccounts(t, local(t.from), local(t.to))
    }
  }

  /** The rules that need the accounts: the token, the overdraft limit, whether either account is this bank's. */
  private def byAccounts(t: ConfirmMoneyTransfer, from: Option[Account], to: Option[Account]): (Option[String], List[(Account, BalanceChanged)]) = {
    def credit(a: Account, other: String) =
      add(a.amount, t.amount).map(n => a.copy(amount = n) -> BalanceChanged(a.iban, n, t.amount, other, t.description))
    from match {
      case Some(from) =>
        if (from.token != t.token) (Some(InvalidToken), Nil)
        else if (BigInt(from.amount) - t.amount < from.lmt) (Some(InsufficientFunds), Nil)
        else {
          val debited = add(from.amount, -t.amount).map(n => from.copy(amount = n) -> BalanceChanged(from.iban, n, -t.amount, t.to, t.description))
          val credited = to.map(credit(_, t.from))
          (debited, credited) match {
            case (Some(d), None) => (None, List(d))
            case (Some(d), Some(Some(c))) => (None, List(d, c))
            case _ => (Some(OutOfRange), Nil)
          }
        }
      case None =>
        to match {
          case Some(to) => credit(to, t.from).fold[(Option[String], List[(Account, BalanceChanged)])]((Some(OutOfRange), Nil))(c => (None, List(c)))
          case None => (Some(BothUnknown), Nil)
        }
    }
  }

  private def add(a: Long, b: Long): Option[Long] = if (b == Long.MinValue) None else scala.util.Try(Math.addExact(a, b)).toOption

  /** The ibans a batch's new transfers may touch: valid account numbers only (others are never this bank's). */
  def ibansOf(commands: Vector[Command]): Set[String] =
    commands.collect { case Right(t) => List(t.from, t.to) }.flatten.filter(BankRules.isValidIban).toSet
}
