package bankops.services.load

import scala.concurrent.duration._

class PacingSuite extends munit.FunSuite {
  test("ticks: every 1/rate s, but at least 10 ms apart") {
    assertEquals(Pacing.tick(10), 100.millis)
    assertEquals(Pacing.tick(100), 10.millis)
    assertEquals(Pacing.tick(1000000), 10.millis)
  }

  test("the first record at once, then what the clock says is due; a late tick is made up") {
    assertEquals(Pacing.due(0.millis, 100, 0), 1L)
    assertEquals(Pacing.due(10.millis, 100, 1), 1L)
    assertEquals(Pacing.due(15.millis, 100, 2), 0L)
    assertEquals(Pacing.due(500.millis, 100, 11), 40L)
    assertEquals(Pacing.due(500.millis, 100, 60), 0L)
  }

  test("never more than a second's worth at once; a rate below 1/s still makes one") {
    assertEquals(Pacing.due(10.seconds, 100, 1), 100L)
    assertEquals(Pacing.due(0.millis, 0, 0), 1L)
  }

  test("over a run the rate holds whatever the ticks: the sum is what the clock allows") {
    val ticks = List(0, 7, 31, 32, 250, 251, 999).map(_.millis)
    val sent = ticks.foldLeft(0L)((s, t) => s + Pacing.due(t, 1000, s))
    assertEquals(sent, 1000L)
  }
}
