package bankops.base

import java.nio.ByteBuffer
import java.nio.charset.{CharacterCodingException, CodingErrorAction, StandardCharsets}

/** Files an operator hands bankops, read as UTF-8 strictly: bytes that are not UTF-8 are bad input naming the file and
  * line (the JDK's MalformedInputException names neither), never replaced silently.
  */
object TextFile {

  def read(file: os.Path): Either[String, String] = {
    val bytes = os.read.bytes(file)
    decode(bytes).left.map { _ =>
      // A newline byte is never part of a multi-byte UTF-8 sequence: lines can be decoded one by one.
      val starts = 0 :: bytes.indices.filter(bytes(_) == '\n'.toByte).map(_ + 1).toList
      val line =
        starts.zipWithIndex.collectFirst { case (start, n) if decode(bytes.slice(start, nextLine(bytes, start))).isLeft => n + 1 }.getOrElse(1)
      s"$file:$line: not UTF-8 text"
    }
  }

  def lines(file: os.Path): Either[String, List[String]] = read(file).map(_.linesIterator.toList)

  private def nextLine(bytes: Array[Byte], from: Int): Int = bytes.indexOf('\n'.toByte, from) match { case -1 => bytes.length; case i => i }

  private def decode(bytes: Array[Byte]): Either[CharacterCodingException, String] =
    try Right(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString)
    catch { case e: CharacterCodingException => Left(e) }
}
