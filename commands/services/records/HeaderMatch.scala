package bankops.services.records

/** `--header KEY=VALUE`: a record passes when one of its headers has this key and, as UTF-8 text, this value. */
final case class HeaderMatch(key: String, value: String) {
  def matches(headers: List[(String, Option[Array[Byte]])]): Boolean =
    headers.exists { case (k, v) => k == key && v.flatMap(Envelope.utf8).contains(value) }
}

object HeaderMatch {
  /** Split at the first '=': the value may hold more of them, or be empty; the key may not. */
  def parse(s: String): Either[String, HeaderMatch] = s.indexOf('=') match {
    case -1 => Left(s"'$s' is not KEY=VALUE")
    case 0 => Left(s"'$s' has no key before '=' (KEY=VALUE)")
    case i => Right(HeaderMatch(s.take(i), s.drop(i + 1)))
  }
}
