package bankops.services.records

/** Which records are shown: by record type (simple or full name), key, headers, and value conditions. */
final case class RecordFilter(records: List[String], key: Option[String], where: List[Condition], headers: List[HeaderMatch] = Nil) {
  def isEmpty: Boolean = records.isEmpty && key.isEmpty && where.isEmpty && headers.isEmpty

  /** For copying: a record or value filter admits only records that decoded and match. */
  def selects(e: Envelope): Boolean = accepts(e) && (e.error.isEmpty || (records.isEmpty && where.isEmpty))

  /** Undecodable records pass the record and value filters: they are what a debugging session is after. */
  def accepts(e: Envelope): Boolean =
    key.forall(k => e.keyText.contains(k)) && headers.forall(_.matches(e.headers)) &&
      (e.error.isDefined ||
        (records.isEmpty || e.record.exists(r => records.exists(n => n == r || r.endsWith("." + n)))) && where.forall(c => e.value.exists(c.matches)))
}
