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

  test("exit codes: refused (401, 403) or broken (5xx) is 3; any other answer is about what was asked, 1") {
    List(401, 403, 500, 503).foreach(s => assertEquals(RegistryError(s, None, "m").exitCode, 3, s))
    List(404, 409, 422).foreach(s => assertEquals(RegistryError(s, None, "m").exitCode, 1, s))
  }

  test("the CLI reports it with its own message and exit code, also when wrapped") {
    val e = RegistryError(403, Some(40301), "forbidden")
    assertEquals(Failures.classify(e), (e.getMessage, 3))
    assertEquals(Failures.classify(new RuntimeException("wrapped", RegistryError(422, Some(42201), "invalid schema"))),
      ("schema registry answered 422 (error_code 42201): invalid schema", 1))
  }
}
