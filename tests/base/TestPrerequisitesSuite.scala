package bankops.base

import bankops.build.TestPrerequisites

import scala.concurrent.duration._
import scala.concurrent.{Await, Future, Promise}
import scala.concurrent.ExecutionContext.Implicits.global

/** The build's wait for what `./bankops test` installs beside the compile (project/TestPrerequisites.scala). */
class TestPrerequisitesSuite extends munit.FunSuite {
  private val gone = 999999999L // above Linux's largest pid (4194304)

  private def status(text: String): os.Path = { val f = os.temp(suffix = ".status"); os.write.over(f, text); f }

  test("a status already written answers at once: 0 lets the tests run, any other names the failure") {
    assertEquals(TestPrerequisites.await(s"$gone:${status("0\n")}", _ => fail("waited")), None)
    assertEquals(TestPrerequisites.await(s"$gone:${status("3\n")}", _ => fail("waited")),
      Some("the tests' set-up failed (exit 3; its message is above)"))
  }

  test("a set-up that ended without its status was interrupted; a bad BANKOPS_TEST_SETUP is named") {
    val missing = os.temp.dir() / "status"
    assertEquals(TestPrerequisites.await(s"$gone:$missing", _ => ()),
      Some(s"the tests' set-up (process $gone) ended without writing its status to $missing: it was interrupted"))
    List("", "12", "abc:/tmp/x", ":/tmp/x", "99999999999:/tmp/x").foreach(spec =>
      assertEquals(TestPrerequisites.await(spec, _ => ()), Some(s"BANKOPS_TEST_SETUP must be PID:FILE, not '$spec'"), spec))
  }

  test("a running set-up is waited for until it ends, then its status read; one that outlasts the bound is named") {
    val file = os.temp.dir() / "status"
    // Ends (writing its status) only once this test writes a line to it.
    val setup = os.proc("sh", "-c", s"read line; echo 0 > '$file'").spawn()
    try {
      assertEquals(TestPrerequisites.await(s"${setup.wrapped.pid}:$file", _ => (), bound = 200.millis),
        Some(s"the tests' set-up (process ${setup.wrapped.pid}) has not ended within 200 milliseconds"))
      val waiting = Promise[Unit]()
      val answer = Future(TestPrerequisites.await(s"${setup.wrapped.pid}:$file", _ => waiting.success(())))
      Await.result(waiting.future, 30.seconds)
      setup.stdin.writeLine("go")
      setup.stdin.flush()
      assertEquals(Await.result(answer, 30.seconds), None)
    } finally setup.destroy()
  }
}
