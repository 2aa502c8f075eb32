package bankops.jobs.doctor

class BankLimitsSuite extends munit.FunSuite {
  private val topics = List(("balance_changed", BankLimits.BalanceChangedMax, Some(1048588L)), ("commands.dlq", BankLimits.DeadLetterMax, None))

  test("Kafka's defaults (1 MiB a request, 1 MiB a topic's batch) hold the bank's largest records") {
    assertEquals(BankLimits.problems(1048576L, topics), Nil)
  }

  test("a producer or a topic that takes less than the bank's largest record is named with both figures") {
    assertEquals(BankLimits.problems(100000L, topics.take(1)),
      List(s"balance_changed takes records up to ${BankLimits.BalanceChangedMax} bytes but max.request.size is 100000"))
    assertEquals(BankLimits.problems(1048576L, List(("commands.dlq", BankLimits.DeadLetterMax, Some(65536L)))),
      List(s"commands.dlq has max.message.bytes 65536, under the ${BankLimits.DeadLetterMax} bytes its records may take"))
  }
}
