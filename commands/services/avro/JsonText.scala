package bankops.services.avro

/** JSON string literals written straight into a builder: the hot path of printing records, where a circe
  * value and printer per string cost more than the decoding did.
  */
object JsonText {
  private val hex = "0123456789abcdef"

  def string(s: String, sb: java.lang.StringBuilder): Unit = {
    sb.append('"')
    // Most strings (ids, names, ibans) need no escape: one bulk append, not one bounds-checked append per char.
    val first = firstEscape(s)
    if (first == s.length) sb.append(s)
    else {
      sb.append(s, 0, first)
      var i = first
      while (i < s.length) {
        val c = s.charAt(i)
        c match {
          case '"' => sb.append("\\\"")
          case '\\' => sb.append("\\\\")
          case '\n' => sb.append("\\n")
          case '\r' => sb.append("\\r")
          case '\t' => sb.append("\\t")
          case _ if c < ' ' => sb.append("\\u00").append(hex.charAt(c >> 4)).append(hex.charAt(c & 0xf))
          case _ => sb.append(c)
        }
        i += 1
      }
    }
    sb.append('"')
  }

  private def firstEscape(s: String): Int = {
    var i = 0
    while (i < s.length) {
      val c = s.charAt(i)
      if (c < ' ' || c == '"' || c == '\\') return i
      i += 1
    }
    i
  }
}
