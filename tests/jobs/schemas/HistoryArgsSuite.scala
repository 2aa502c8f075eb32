package bankops.jobs.schemas

class HistoryArgsSuite extends munit.FunSuite {

  test("SUBJECT[@VERSION]: the latest without one; a bad version is named") {
    assertEquals(HistoryArgs.subjectAt("s"), Right("s" -> VersionRef.Latest))
    assertEquals(HistoryArgs.subjectAt("s@3"), Right("s" -> VersionRef.Number(3)))
    assertEquals(HistoryArgs.subjectAt("s@latest"), Right("s" -> VersionRef.Latest))
    assertEquals(HistoryArgs.subjectAt("team@x-s"), Right("team@x-s" -> VersionRef.Latest))
    assertEquals(HistoryArgs.subjectAt("s@0"), Left("s@0: version '0': expected a positive number or latest"))
    assert(HistoryArgs.subjectAt("@2").isLeft)
    // A bad version is named as one, not looked up as a subject that holds '@'.
    assertEquals(HistoryArgs.subjectAt("s@abc"), Left("s@abc: version 'abc': expected a positive number or latest"))
    assertEquals(HistoryArgs.subjectAt("s@"), Left("s@: no version after '@' (a positive number or latest)"))
    assertEquals(HistoryArgs.subjectAt("s@-1"), Left("s@-1: version '-1': expected a positive number or latest"))
  }

  test("diff's sides: latest against the one before, V1 against the latest, V1 against V2 or a file") {
    val file = os.pwd / "new" / "Heartbeat.avsc"
    assertEquals(HistoryArgs.diff(Nil), Right(None -> DiffSide.Registered(VersionRef.Latest)))
    assertEquals(HistoryArgs.diff(List("2")), Right(Some(VersionRef.Number(2)) -> DiffSide.Registered(VersionRef.Latest)))
    assertEquals(HistoryArgs.diff(List("1", "3")), Right(Some(VersionRef.Number(1)) -> DiffSide.Registered(VersionRef.Number(3))))
    assertEquals(HistoryArgs.diff(List("new/Heartbeat.avsc")), Right(Some(VersionRef.Latest) -> DiffSide.File(file)))
    assertEquals(HistoryArgs.diff(List("2", "new/Heartbeat.avsc")), Right(Some(VersionRef.Number(2)) -> DiffSide.File(file)))
    assert(HistoryArgs.diff(List("new/Heartbeat.avsc", "2")).isLeft)
    assert(HistoryArgs.diff(List("1", "2", "3")).left.exists(_.startsWith("too many arguments")))
    assert(HistoryArgs.diff(List("two")).left.exists(_.contains("version 'two'")))
  }
}
