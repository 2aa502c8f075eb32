package bankops.jobs.latency

class LoadStepsSuite extends munit.FunSuite {
  test("a list of rates, in the order given, spaces allowed") {
    assertEquals(LoadSteps.parseList("0,200, 500,1000"), Right(List(0, 200, 500, 1000)))
    assertEquals(LoadSteps.parseList("300"), Right(List(300)))
  }

  test("a list with a bad element names it") {
    assertEquals(LoadSteps.parseList("0,x,5"), Left("--load must be records per second (a whole number, 0 or more), not 'x'"))
    assert(LoadSteps.parseList("0,-5").isLeft)
    assert(LoadSteps.parseList("0,,5").isLeft)
    assert(LoadSteps.parseList("").isLeft)
  }

  test("a ramp from START by STEP up to END, END included when on the step") {
    assertEquals(LoadSteps.parseRamp("0:500:2000"), Right(List(0, 500, 1000, 1500, 2000)))
    assertEquals(LoadSteps.parseRamp("100:300:1000"), Right(List(100, 400, 700, 1000)))
    assertEquals(LoadSteps.parseRamp("100:300:900"), Right(List(100, 400, 700)))
    assertEquals(LoadSteps.parseRamp("5:1:5"), Right(List(5)))
  }

  test("bad ramps: wrong shape, zero step, END below START, too many steps") {
    assert(LoadSteps.parseRamp("0:500").swap.exists(_.contains("START:STEP:END")))
    assert(LoadSteps.parseRamp("0:0:100").swap.exists(_.contains("STEP must be above 0")))
    assert(LoadSteps.parseRamp("500:100:100").swap.exists(_.contains("END must not be below START")))
    assert(LoadSteps.parseRamp("0:1:100000").swap.exists(_.contains("at most 1000")))
    assert(LoadSteps.parseRamp("a:1:2").swap.exists(_.contains("--ramp START")))
  }
}
