package bankops.support

import scala.concurrent.duration._

/** A suite of ScalaCheck properties: hundreds to thousands of cases each, all CPU, in C1 code (the test JVM compiles
  * little with C2). On a loaded 2-core machine RecordLineSuite's round trip took 22 s of munit's default 30 (a fresh
  * clone, 2026-12-02): its timeout is there for a hang, which it still catches, not for a slow machine.
  */
abstract class PropertySuite extends munit.ScalaCheckSuite {
  override val munitTimeout: Duration = 5.minutes
}
