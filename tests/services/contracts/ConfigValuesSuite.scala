package bankops.services.contracts

class ConfigValuesSuite extends munit.FunSuite {
  import ConfigValues._

  test("durations on *.ms keys") {
    assertEquals(canonical("retention.ms", "900000"), Right("900000"))
    assertEquals(canonical("retention.ms", "15m"), Right("900000"))
    assertEquals(canonical("retention.ms", "7d"), Right("604800000"))
    assertEquals(canonical("retention.ms", "-1"), Right("-1"))
    assertEquals(canonical("segment.ms", "900_000"), Right("900000"))
    assert(canonical("retention.ms", "soon").isLeft)
  }

  test("sizes on *.bytes keys, binary and decimal") {
    assertEquals(canonical("segment.bytes", "1MiB"), Right("1048576"))
    assertEquals(canonical("retention.bytes", "2GB"), Right("2000000000"))
    assertEquals(canonical("max.message.bytes", "1000"), Right("1000"))
  }

  test("lists are order- and case-insensitive; booleans lower case") {
    assertEquals(canonical("cleanup.policy", "Delete, compact"), Right("compact,delete"))
    assertEquals(canonical("unclean.leader.election.enable", "TRUE"), Right("true"))
  }

  test("same compares meaning against the effective value") {
    assert(same("retention.ms", "900000", "900000"))
    assert(same("cleanup.policy", "compact,delete", "delete,compact"))
    assert(same("compression.type", "lz4", "LZ4"))
    assert(!same("retention.ms", "900000", "604800000"))
  }
}
