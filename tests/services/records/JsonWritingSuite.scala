package bankops.services.records

import io.circe.Json

import java.time.Instant

import bankops.services.avro.JsonText
import bankops.support.Seeded

/** The hand-written writers of inspect's hot path say exactly what the library writers they replaced say: times as
  * `Instant.toString`, strings as circe's printer escapes them (for the characters bankops escapes).
  */
class JsonWritingSuite extends munit.FunSuite with Seeded {
  private def iso(t: Instant): String = { val sb = new java.lang.StringBuilder; IsoTime.append(t, sb); sb.toString }

  test("times read as Instant.toString writes them: whole seconds, milliseconds, finer fractions, far years") {
    val fixed = List(0L, 1L, 10L, 100L, 999L, 1000L, 1795849560306L, 253402300799999L, 253402300800000L).map(Instant.ofEpochMilli) ++
      List(Instant.ofEpochSecond(1795849560L, 1000L), Instant.ofEpochSecond(1795849560L, 123456789L), Instant.ofEpochSecond(5L, 120000000L))
    val drawn = List.fill(20000)(Instant.ofEpochMilli(1795849560000L + random.nextInt(5000)))
    (fixed ++ drawn).foreach(t => assertEquals(iso(t), t.toString))
  }

  // circe also escapes DEL (U+007F); inspect's lines never have, and keep it raw (valid JSON either way).
  test("strings escape as circe escapes quotes, backslashes and control characters, DEL left raw") {
    val alphabet = "aZ09 \"\\\n\r\t\u0000\u001f\u007fé€\u2028😀/"
    val drawn = List.fill(5000)(List.fill(random.nextInt(12))(alphabet(random.nextInt(alphabet.length))).mkString)
    ("" :: "plain" :: drawn).foreach { s =>
      val sb = new java.lang.StringBuilder
      JsonText.string(s, sb)
      assertEquals(sb.toString, Json.fromString(s).noSpaces.replace("\\u007f", "\u007f"), s)
    }
  }
}
