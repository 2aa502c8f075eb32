package bankops.jobs.doctor

/** `doctor` knows what each job needs from Kafka's authorizer by the job's name: a job added, renamed or removed
  * without its row (or a reason for having none) fails here rather than in an operator's `doctor --require`.
  */
class JobNeedsSuite extends munit.FunSuite {
  test("every job of the CLI has a row of needs or a reason for none, and every row names a job") {
    val cli = bankops.Jobs.all.map(_.name).toSet
    assertEquals(JobNeeds.jobs.toSet -- cli, Set.empty[String], "rows for jobs the CLI does not have")
    assertEquals(JobNeeds.without.keySet -- cli, Set.empty[String], "reasons for jobs the CLI does not have")
    assertEquals(JobNeeds.jobs.toSet intersect JobNeeds.without.keySet, Set.empty[String], "a job with a row and a reason")
    assertEquals(cli -- JobNeeds.jobs -- JobNeeds.without.keySet, Set.empty[String], "jobs with neither a row nor a reason")
  }
}
