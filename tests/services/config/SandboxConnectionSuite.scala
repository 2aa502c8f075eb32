package bankops.services.config

import bankops.support.IOSuite

class SandboxConnectionSuite extends IOSuite {

  test("SandboxConnection survives a JSON round trip") {
    val dir = os.temp.dir()
    val c = SandboxConnection("localhost:29092", dir / "client.properties", "http://localhost:28081/apis/ccompat/v7",
      "jdbc:postgresql://127.0.0.1:25432/balancedb", "bank", "p\"w ü")
    for {
      none <- SandboxConnection.read(dir)
      _ <- SandboxConnection.write(dir, c)
      back <- SandboxConnection.read(dir)
    } yield {
      assertEquals(none, None)
      assertEquals(back, Some(c))
      assertEquals(os.perms(dir / SandboxConnection.FileName).toString, "rw-------")
    }
  }
}
