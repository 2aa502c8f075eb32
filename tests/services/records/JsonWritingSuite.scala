package bankops.services.records

import io.circe.Json

import java.time.Instant

import bankops.services.avro.JsonText
import bankops.support.Seeded

/** The hand-written writers of inspect's hot path say exactly what the library writers they replaced say: times as
  * `Instant.toString`, strings as circe's printer escapes them (for the characters bankops escapes); and the reader of
  * times on replay's and restore's hot path reads them as `Instant.parse` does.
  */
class JsonWritingSuite extends munit.FunSuite with Seeded {
  private def iso(t: Instant): String = { val sb = new java.lang.StringBuilder; IsoTime.append(t, sb); sb.toString }

  test("times read as Instant.toString writes them: whole seconds, milliseconds, finer fractions, far years") {
    val fixed = List(0L, 1L, 10L, 100L, 999L, 1000L, 1795849560306L, 253402300799999L, 253402300800000L).map(Instant.ofEpochMilli) ++
      List(Instant.ofEpochSecond(1795849560L, 1000L), Instant.ofEpochSecond(1795849560L, 123456789L), Instant.ofEpochSecond(5L, 120000000L))
    // Over 500 seconds: seconds that share a slot of IsoTime's cache (64 apart) are written between each other.
    val drawn = List.fill(20000)(Instant.ofEpochMilli(1795849560000L + random.nextInt(500000)))
    (fixed ++ drawn).foreach(t => assertEquals(iso(t), t.toString))
  }

  test("times read as Instant.parse reads them: the same milliseconds, or the same refusal, whatever second was read before") {
    def same(text: String): Unit = {
      val want = scala.util.Try(Instant.parse(text).toEpochMilli)
      val got = scala.util.Try(IsoTime.parseMillis(text))
      assertEquals(got.toOption, want.toOption, text)
      assertEquals(got.failed.toOption.map(_.getClass), want.failed.toOption.map(_.getClass), text)
    }
    val base = "2026-11-29T14:15:07"
    val tails = List("Z", ".5Z", ".850Z", ".123456789Z", ".1234567890Z", ".Z", ".85", "z", ".8a0Z", "+00:00", ".850+01:00", "Zx", "")
    // 14:16:11 is 64 seconds after 14:15:07: the same slot of IsoTime's cache.
    val seconds = List(base, "2026-11-29T14:15:08", "2026-11-29T14:16:11", "2024-02-29T00:00:00", "2023-02-29T00:00:00", "2026-12-31T23:59:60",
      "2026-11-29T24:00:00",
      "0000-01-01T00:00:00", "9999-12-31T23:59:59", "2026-11-29 14:15:07", "2026-11-29T14:15:7")
    // Every pair in both orders, so each text is read with each other second in the cache.
    for (a <- seconds; b <- seconds; ta <- tails; tb <- tails) { same(a + ta); same(b + tb) }
    val drawn = List.fill(20000)(Instant.ofEpochMilli(1795849560000L + random.nextLong(200000L)).plusNanos(random.nextInt(1000000).toLong))
    drawn.foreach(t => same(t.toString))
    List("-0001-01-01T00:00:00Z", "+10000-01-01T00:00:00Z", "+10000-01-01T00:00:00.5Z").foreach(same)
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
