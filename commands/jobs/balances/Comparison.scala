package bankops.jobs.balances

import scala.collection.parallel.CollectionConverters._

import bankops.services.bank.BankRules

/** Pure: the findings for two maps of accounts, compared in parallel (scala-parallel-collections). */
private[balances] object Comparison {

  def findings(kafka: Map[String, AccountChain], db: Map[String, DbAccount]): List[Finding] = {
    val ibans = (kafka.keySet ++ db.keySet).toVector
    ibans.par.flatMap(iban => forAccount(iban, kafka.get(iban), db.get(iban))).toList
      .sortBy(f => (Finding.kinds.indexOf(f.kind), f.iban))
  }

  def forAccount(iban: String, chain: Option[AccountChain], row: Option[DbAccount]): List[Finding] = {
    val invalid = if (BankRules.isValidIban(iban)) Nil else List(Finding.InvalidIban(iban, if (row.isDefined) "database" else "events"))
    val broken = chain.flatMap(_.firstBreak).map(Finding.ChainBreak(iban, _)).toList
    val compared = (chain, row) match {
      case (Some(c), None) => List(Finding.MissingInDb(iban, c.last, c.events))
      case (Some(c), Some(r)) if c.last != r.amount => List(Finding.AmountMismatch(iban, r.amount, c.last))
      case (None, Some(r)) if r.amount != AccountChain.initial(iban) => List(Finding.MissingEvents(iban, r.amount, AccountChain.initial(iban)))
      case _ => Nil
    }
    val limit = row.filter(r => r.amount < r.lmt).map(r => Finding.BelowLimit(iban, r.amount, r.lmt)).toList
    val duplicated = row.filter(_.rows > 1).map(r => Finding.DuplicateIban(iban, r.rows)).toList
    duplicated ++ invalid ++ broken ++ compared ++ limit
  }

  /** Accounts whose figures differ (the ones `--settle` looks at again). */
  def differing(findings: List[Finding]): Set[String] = findings.collect {
    case f @ (_: Finding.AmountMismatch | _: Finding.MissingInDb | _: Finding.MissingEvents) => f.iban
  }.toSet
}
