package bankops.jobs.sandbox

import cats.effect.unsafe.implicits.global

import java.net.{InetAddress, ServerSocket}

import bankops.base.Failure

class SandboxPortsSuite extends munit.FunSuite {
  test("a port another process listens on is refused in one line naming the port and the service") {
    val taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress)
    try {
      val port = taken.getLocalPort
      SandboxContext.requirePortFree("kafka-1", port).attempt.unsafeRunSync() match {
        case Left(Failure.Unavailable(message, _)) =>
          assert(message.startsWith(s"port $port for kafka-1 is already in use by another process"), message)
          assert(!message.contains("\n"), message)
        case other => fail(s"expected a refusal, got $other")
      }
    } finally taken.close()
  }

  test("a taken port in the ephemeral range says that a port below it is safe; one below it does not") {
    val range = Some((32768, 60999))
    assertEquals(
      SandboxContext.portTaken("kafka-1", 39092, range),
      "port 39092 for kafka-1 is already in use by another process (choose another port with the sandbox up flags; 39092 is in " +
        "this machine's ephemeral range 32768-60999, where any outgoing connection can take it: a port below 32768 is safe)"
    )
    assertEquals(SandboxContext.portTaken("registry", 18081, range),
      "port 18081 for registry is already in use by another process (choose another port with the sandbox up flags)")
    assertEquals(SandboxContext.portTaken("registry", 39081, None),
      "port 39081 for registry is already in use by another process (choose another port with the sandbox up flags)")
  }
}
