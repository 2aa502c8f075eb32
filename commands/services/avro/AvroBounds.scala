package bankops.services.avro

import org.apache.avro.Schema
import org.apache.avro.Schema.Type._

import scala.jdk.CollectionConverters._

/** An admission check of Avro binary before Avro's reader sees it: Avro allocates what a string, bytes or array
  * declares before reading it, so 26 bytes declaring a 10^9-byte string end a 128 MiB heap. This walks the value under
  * its writer schema allocating nothing and refuses any length or item count larger than the bytes that follow it,
  * nesting deeper than [[MaxDepth]], and branch or symbol indexes out of range. A value it admits makes the reader
  * allocate at most a small multiple of its own size.
  */
object AvroBounds {

  /** Deeper than any schema bankops reads; recursive schemas (a linked list) could otherwise end the stack. */
  val MaxDepth = 64

  /** Why `bytes` from `from` on is refused under `schema`; None when every length fits. Leftover bytes are the reader's
    * to judge.
    */
  def check(schema: Schema, bytes: Array[Byte], from: Int): Option[String] =
    try { new Walk(bytes, from).value(schema, "", 0); None }
    catch { case r: Refused => Some(r.getMessage) }

  private final class Refused(why: String) extends RuntimeException(why, null, false, false)

  private final class Walk(bytes: Array[Byte], start: Int) {
    private var pos = start

    private def remaining: Long = (bytes.length - pos).toLong
    private def at(path: String) = if (path.isEmpty) "the value" else s"field $path"
    private def refuse(why: String) = throw new Refused(why)

    private def skip(n: Long, path: String, what: String): Unit = {
      if (n > remaining) refuse(s"${at(path)} declares $n $what, but only $remaining bytes remain")
      pos += n.toInt
    }

    /** Avro's zig-zag varint, at most 10 bytes. */
    private def long(path: String): Long = {
      var shift = 0
      var acc = 0L
      var more = true
      while (more) {
        if (pos >= bytes.length) refuse(s"${at(path)} is cut short")
        if (shift > 63) refuse(s"${at(path)} holds a varint longer than 10 bytes")
        val b = bytes(pos) & 0xff
        pos += 1
        acc |= (b & 0x7fL) << shift
        shift += 7
        more = (b & 0x80) != 0
      }
      (acc >>> 1) ^ -(acc & 1)
    }

    private def length(path: String, what: String): Unit = {
      val n = long(path)
      if (n < 0) refuse(s"${at(path)} declares a negative length ($n)")
      skip(n, path, what)
    }

    private def index(path: String, size: Int, what: String): Int = {
      val i = long(path)
      if (i < 0 || i >= size) refuse(s"${at(path)} names $what $i of $size")
      i.toInt
    }

    def value(s: Schema, path: String, depth: Int): Unit = {
      if (depth > MaxDepth) refuse(s"${at(path)} nests deeper than $MaxDepth levels")
      s.getType match {
        case NULL => ()
        case BOOLEAN => skip(1, path, "bytes")
        case INT | LONG => long(path)
        case FLOAT => skip(4, path, "bytes")
        case DOUBLE => skip(8, path, "bytes")
        case STRING | BYTES => length(path, "bytes")
        case FIXED => skip(s.getFixedSize.toLong, path, "bytes")
        case ENUM => index(path, s.getEnumSymbols.size, "symbol")
        case UNION =>
          val branches = s.getTypes
          value(branches.get(index(path, branches.size, "branch")), path, depth + 1)
        case RECORD =>
          s.getFields.asScala.foreach(f => value(f.schema, if (path.isEmpty) f.name else s"$path.${f.name}", depth + 1))
        case ARRAY => blocks(path, depth, value(s.getElementType, s"$path[]", depth + 1))
        case MAP => blocks(path, depth, { length(s"$path{key}", "bytes"); value(s.getValueType, s"$path{}", depth + 1) })
      }
    }

    /** An array's or a map's blocks: each a count (negative: followed by the block's size in bytes), 0 ends them. No
      * item takes less than a byte in any value worth reading, so a count over the bytes left is refused: a count of a
      * billion empty items would otherwise be a billion steps here and a billion slots in the reader's list.
      */
    private def blocks(path: String, depth: Int, item: => Unit): Unit = {
      var count = long(path)
      while (count != 0) {
        if (count < 0) {
          if (count == Long.MinValue) refuse(s"${at(path)} declares an impossible item count")
          count = -count
          val size = long(path)
          if (size < 0 || size > remaining) refuse(s"${at(path)} declares a block of $size bytes, but only $remaining bytes remain")
        }
        if (count > remaining) refuse(s"${at(path)} declares $count items, but only $remaining bytes remain")
        var i = 0L
        while (i < count) { item; i += 1 }
        count = long(path)
      }
    }
  }
}
