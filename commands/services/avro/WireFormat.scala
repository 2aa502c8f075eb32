package bankops.services.avro

import org.apache.avro.Schema
import org.apache.avro.generic.{GenericDatumReader, GenericDatumWriter}
import org.apache.avro.io.{DecoderFactory, EncoderFactory}
import vulcan.{AvroError, Codec}

import java.io.ByteArrayOutputStream
import java.nio.ByteBuffer
import scala.util.control.NonFatal

/** The Confluent wire format: magic byte 0, the schema id as a 4-byte big-endian int, then Avro binary. */
object WireFormat {
  val MagicByte: Byte = 0
  val HeaderSize = 5

  def frame(schemaId: Int, payload: Array[Byte]): Array[Byte] =
    ByteBuffer.allocate(HeaderSize + payload.length).put(MagicByte).putInt(schemaId).put(payload).array()

  /** The schema id of a framed value, without copying the payload. */
  def schemaIdOf(bytes: Array[Byte]): Either[DecodeError, Int] =
    if (bytes == null) Left(DecodeError.NotFramed("no value (tombstone)"))
    else if (bytes.length < HeaderSize) Left(DecodeError.NotFramed(s"${bytes.length} bytes, shorter than the 5-byte header"))
    else if (bytes(0) != MagicByte) Left(DecodeError.NotFramed(f"first byte is 0x${bytes(0)}%02x, not the magic byte 0x00"))
    else Right(idOf(bytes))

  /** For loops over many records: whether `bytes` start with a frame's header, and then its id, with no allocation. */
  def isFramed(bytes: Array[Byte]): Boolean = bytes != null && bytes.length >= HeaderSize && bytes(0) == MagicByte
  def idOf(framed: Array[Byte]): Int = ((framed(1) & 0xff) << 24) | ((framed(2) & 0xff) << 16) | ((framed(3) & 0xff) << 8) | (framed(4) & 0xff)

  /** Avro binary of a generic datum (GenericRecord, or any value Avro's generic model holds) under `schema`. */
  def encodeGeneric(datum: Any, schema: Schema): Either[String, Array[Byte]] = encodeAfter(datum, schema, None)

  /** [[frame]] of [[encodeGeneric]], written into one buffer: the header, then the datum (no second copy per record). */
  def encodeFramed(datum: Any, schema: Schema, schemaId: Int): Either[String, Array[Byte]] = encodeAfter(datum, schema, Some(schemaId))

  private def encodeAfter(datum: Any, schema: Schema, schemaId: Option[Int]): Either[String, Array[Byte]] =
    try {
      val out = new ByteArrayOutputStream(128)
      schemaId.foreach { id => out.write(MagicByte.toInt); out.write(id >>> 24); out.write(id >>> 16); out.write(id >>> 8); out.write(id) }
      val encoder = EncoderFactory.get().directBinaryEncoder(out, null)
      new GenericDatumWriter[Any](schema).write(datum, encoder)
      encoder.flush()
      Right(out.toByteArray)
    } catch { case NonFatal(e) => Left(Option(e.getMessage).getOrElse(e.getClass.getSimpleName)) }

  private val decoders = new ThreadLocal[org.apache.avro.io.BinaryDecoder]

  /** The hot path of reading topics: a framed value decoded in place with a prepared reader (readers are
    * made once per schema id; the binary decoder is reused per thread). Every byte must be used.
    */
  def decodeFramed(bytes: Array[Byte], schemaId: Int, reader: GenericDatumReader[Any]): Either[DecodeError, Any] =
    try {
      val decoder = DecoderFactory.get().binaryDecoder(bytes, HeaderSize, bytes.length - HeaderSize, decoders.get)
      decoders.set(decoder)
      val datum = reader.read(null, decoder)
      if (decoder.isEnd) Right(datum) else Left(DecodeError.Corrupt(schemaId, "bytes left over after the record"))
    } catch { case NonFatal(e) => Left(DecodeError.Corrupt(schemaId, Option(e.getMessage).getOrElse(e.getClass.getSimpleName))) }

  /** A reusable encoder for one schema id: one Avro writer and buffer for many values (not thread-safe),
    * for hot loops such as load generation. `toDatum` turns a value into Avro's generic data: a vulcan
    * codec's `encode` ([[Writer.apply]]), or a hand-filled record where vulcan's per-value interpretation
    * of the codec costs too much.
    */
  final class Writer[A](schemaId: Int, schema: Schema, toDatum: A => Either[AvroError, Any]) {
    private val writer = new GenericDatumWriter[Any](schema)
    private val out = new ByteArrayOutputStream(256)
    private var encoder = EncoderFactory.get().directBinaryEncoder(out, null)
    private val header = ByteBuffer.allocate(HeaderSize).put(MagicByte).putInt(schemaId).array()

    def apply(a: A): Either[AvroError, Array[Byte]] = toDatum(a).map { datum =>
      out.reset()
      out.write(header)
      encoder = EncoderFactory.get().directBinaryEncoder(out, encoder)
      writer.write(datum, encoder)
      out.toByteArray
    }
  }

  object Writer {
    def apply[A](schemaId: Int)(implicit codec: Codec[A]): Writer[A] =
      new Writer[A](schemaId, codec.schema.fold(e => throw new IllegalArgumentException(e.message), identity), a => codec.encode(a))
  }

  /** Typed decoding for many values: one resolving Avro reader per writer schema id, made once, then
    * each value decoded in place ([[decodeFramed]]) and handed to the codec. Safe to share across threads.
    */
  final class Reader[A](implicit codec: Codec[A]) {
    private val readerSchema = codec.schema.fold(e => throw new IllegalArgumentException(e.message), identity)
    private val readers = scala.collection.concurrent.TrieMap.empty[Int, GenericDatumReader[Any]]

    def apply(bytes: Array[Byte], writerSchema: Int => Option[Schema]): Either[DecodeError, A] =
      for {
        id <- schemaIdOf(bytes)
        reader <- readers.get(id).orElse(writerSchema(id).map(w => readers.getOrElseUpdate(id, new GenericDatumReader[Any](w, readerSchema))))
          .toRight(DecodeError.UnknownSchemaId(id, "not resolved"))
        datum <- decodeFramed(bytes, id, reader)
        a <- (try codec.decode(datum, readerSchema)
        catch { case NonFatal(e) => Left(AvroError(String.valueOf(e.getMessage))) })
          .left.map(e => DecodeError.Corrupt(id, e.message))
      } yield a
  }
}
