package bankops.services.registry

import bankops.base.Failures

class RegistryErrorSuite extends munit.FunSuite {

  test("Confluent's error body: status, error_code and message") {
    val e = RegistryError.from(404, """{"error_code":40401,"message":"Subject 'x' not found."}""")
    assertEquals(e, RegistryError(404, Some(40401), "Subject 'x' not found."))
    assertEquals(e.getMessage, "schema registry answered 404 (error_code 40401): Subject 'x' not found.")
  }

  test("a body that is not Confluent's JSON is kept, shortened") {
    assertEquals(RegistryError.from(502, "<html>Bad Gateway</html>"), RegistryError(502, None, "<html>Bad Gateway</html>"))
    assertEquals(RegistryError.from(500, "x" * 500).message.length, 200)
  }

  test("kinds and exit codes: not found and rejected are about what was asked, 1; the rest is the service's, 3; busy and broken retried") {
    import RegistryError.Kind._
    val kinds = List(401 -> Refused, 403 -> Refused, 404 -> NotFound, 409 -> Rejected, 422 -> Rejected, 400 -> Other, 407 -> Other, 408 -> Busy,
      429 -> Busy, 500 -> Broken, 503 -> Broken)
    kinds.foreach { case (s, k) => assertEquals(RegistryError(s, None, "m").kind, k, s) }
    List(400, 401, 403, 407, 408, 429, 500, 503).foreach(s => assertEquals(RegistryError(s, None, "m").exitCode, 3, s))
    List(404, 409, 422).foreach(s => assertEquals(RegistryError(s, None, "m").exitCode, 1, s))
    assertEquals(kinds.filter(_._2.retried).map(_._1), List(408, 429, 500, 503))
  }

  test("a garbled answer and another server at the address are exit 3, the answer shortened to one line") {
    val g = RegistryGarbled("http://r", "the list of subjects", "list of subjects", "{\n \"a\":\n 1}" + "x" * 500)
    assertEquals(Failures.classify(g)._2, 3)
    assert(g.getMessage.startsWith("schema registry at http://r answered the list of subjects with no list of subjects: { \"a\": 1}xx"), g.getMessage)
    assert(g.getMessage.length < 320, g.getMessage)
    assertEquals(Failures.classify(NotARegistry("http://r", "404 on /subjects")),
      ("no Confluent-compatible registry at http://r (404 on /subjects)", 3))
  }

  test("the CLI reports it with its own message and exit code, also when wrapped") {
    val e = RegistryError(403, Some(40301), "forbidden")
    assertEquals(Failures.classify(e), (e.getMessage, 3))
    assertEquals(Failures.classify(new RuntimeException("wrapped", RegistryError(422, Some(42201), "invalid schema"))),
      ("schema registry answered 422 (error_code 42201): invalid schema", 1))
  }
}
