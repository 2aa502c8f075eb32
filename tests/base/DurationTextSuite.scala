package bankops.base

import scala.concurrent.duration._

class DurationTextSuite extends munit.FunSuite {
  test("units, compounds, any case, spaces") {
    assertEquals(DurationText.parse("250ms"), Right(250.millis))
    assertEquals(DurationText.parse("90s"), Right(90.seconds))
    assertEquals(DurationText.parse("1h30m"), Right(90.minutes))
    assertEquals(DurationText.parse("1h 30m"), Right(90.minutes))
    assertEquals(DurationText.parse("15 M"), Right(15.minutes))
    assertEquals(DurationText.parse("2d"), Right(2.days))
  }

  test("anything else is named") {
    List("", "soon", "15", "15 fortnights", "-5m", "1h30", "m5").foreach { s =>
      assertEquals(DurationText.parse(s), Left(s"'$s' is not a duration (e.g. 90s, 15m, 1h30m, 2d)"), s)
    }
    assertEquals(DurationText.parse("99999999999999999999d"), Left("'99999999999999999999d' is too large"))
  }
}
