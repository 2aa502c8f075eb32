package bankops.support

import scala.util.Random

import bankops.services.avro.WireFormat

/** Frames mutated as a fuzzer would: bits flipped in the payload, cut anywhere, huge varints put in, another schema id,
  * bytes over, or random bytes.
  */
object FuzzFrames {
  private val huge = Vector(Array(0xfe, 0xff, 0xff, 0xff, 0x0f), Array(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
    Array(0x80, 0xa8, 0xd6, 0xb9, 0x07), Array(0x01)).map(_.map(_.toByte))

  def mutate(frame: Array[Byte], random: Random, ids: Vector[Int]): Array[Byte] = {
    def once(v: Array[Byte]): Array[Byte] = random.nextInt(6) match {
      case 0 if v.length > WireFormat.HeaderSize =>
        v.updated(WireFormat.HeaderSize + random.nextInt(v.length - WireFormat.HeaderSize), random.nextInt().toByte)
      case 1 => v.take(random.nextInt(v.length + 1))
      case 2 =>
        val at = WireFormat.HeaderSize + random.nextInt((v.length - WireFormat.HeaderSize).max(0) + 1)
        v.take(at) ++ huge(random.nextInt(huge.size)) ++ v.drop(at)
      case 3 => WireFormat.frame(ids(random.nextInt(ids.size)), v.drop(WireFormat.HeaderSize))
      case 4 => v ++ Array.fill(random.nextInt(20))(random.nextInt().toByte)
      case _ => Array.fill(1 + random.nextInt(40))(random.nextInt().toByte)
    }
    Iterator.iterate(frame)(once).drop(1 + random.nextInt(3)).next()
  }
}
