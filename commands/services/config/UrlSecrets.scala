package bankops.services.config

import java.net.{URI, URLDecoder}
import java.nio.charset.StandardCharsets.UTF_8

/** Secrets written into a URL, found by parsing the URL as its client does (a pattern over the text misses a parameter
  * after a newline, or one whose name is percent-encoded). Pure.
  */
object UrlSecrets {

  /** The position of the first control character (a newline, a tab, NUL, DEL…) in `text`. */
  def controlCharacter(text: String): Option[Int] = text.indexWhere(c => c < 0x20 || c == 0x7f) match {
    case -1 => None
    case i => Some(i)
  }

  /** Names of the parameters of a JDBC URL (`jdbc:postgresql://host/db?k=v&k=v`) that hold a password (`password`,
    * `sslpassword`, in any case or encoding), and `user:password@` before the host; PgJDBC reads both.
    */
  def jdbc(url: String): List[String] = {
    val (head, query) = url.indexOf('?') match {
      case -1 => (url, "")
      case i => (url.take(i), url.drop(i + 1))
    }
    val authority = head.split("//", 2).lift(1).map(_.takeWhile(_ != '/')).getOrElse("")
    val inAuthority = if (authority.contains('@')) List("user:password@ before the host") else Nil
    val params = query.split("[&;]").toList.filter(_.nonEmpty).map { p =>
      val key = p.takeWhile(_ != '=')
      scala.util.Try(URLDecoder.decode(key, UTF_8)).getOrElse(key).trim
    }
    inAuthority ++ params.filter(_.toLowerCase.contains("password")).distinct
  }

  /** Whether an HTTP URL holds user info (`https://user:token@host`), as java.net.URI parses it; a URL that does not
    * parse is named.
    */
  def userInfo(url: String): Either[String, Boolean] =
    scala.util.Try(new URI(url)).toEither.left.map(_ => "is not a URL").map { u =>
      Option(u.getRawUserInfo).nonEmpty || Option(u.getRawAuthority).exists(_.contains('@'))
    }
}
