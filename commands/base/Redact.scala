package bankops.base

/** Keeps secrets out of what bankops writes on stderr: the passwords of the run's settings once they are known
  * ([[remember]]), and any `scheme://user:password@` or `?password=` in a line, for library exception messages and
  * stack traces that quote a URL or a value bankops passed on. Global because those messages come from anywhere.
  */
object Redact {
  val Mask = "****"

  @volatile private var secrets: List[String] = Nil

  /** Values too short to be told from ordinary words are not masked (they would blank out unrelated text). */
  def remember(values: Iterable[String]): Unit = synchronized {
    secrets = (secrets ++ values.filter(_.length >= 4)).distinct.sortBy(-_.length)
  }

  def url(text: String): String =
    text
      .replaceAll("(://[^/@:\\s]*):[^/@\\s]*@", "$1:" + Mask + "@")
      .replaceAll("(?i)([?&;][a-z]*password=)[^&;\\s]*", "$1" + Mask)

  def apply(text: String): String = secrets.foldLeft(url(text))((t, s) => t.replace(s, Mask))
}
