package bankops.jobs.latency

class ProcSampleSuite extends munit.FunSuite {
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  private val stat = "4034 (java (x) y) S 1 4033 4033 0 -1 4194560 52000 0 12 0 1500 250 0 0 20 0 40 0 12345 2000000000 40000 18446744073709551615"
  private val status = "Name:\tjava\nVmPeak:\t 3000000 kB\nVmRSS:\t  160512 kB\nThreads:\t40\n"

  test("CPU ticks are utime + stime; RSS is VmRSS in bytes") {
    assertEquals(ProcSample.parse(4034, stat, status), Some(ProcSample(4034, 1750, 160512L * 1024)))
  }

  test("unreadable texts give nothing rather than a wrong figure") {
    assertEquals(ProcSample.parse(1, "garbage", status), None)
    assertEquals(ProcSample.parse(1, stat, "Name: java\n"), None)
  }

  test("CPU percent of one core between two samples") {
    val a = ProcSample(1, 1000, 0)
    val b = ProcSample(1, 1150, 0)
    assertEquals(ProcSample.cpuPercent(a, 0L, b, 2000000000L, 100), Some(75.0))
    assertEquals(ProcSample.cpuPercent(b, 0L, a, 1000000000L, 100), None)
    assertEquals(ProcSample.cpuPercent(a, 5L, b, 5L, 100), None)
  }

  test("labels: the handler, the broker, the registry, PostgreSQL, else the command name") {
    def cmd(args: String*) = args.mkString("\u0000")
    assertEquals(ProcSample.label(cmd("java", "-cp", "x", "bankops.Main", "handler", "--instance", "sandbox"), "java"), "handler")
    assertEquals(ProcSample.label(cmd("java", "-Xmx1g", "kafka.Kafka", "server.properties"), "java"), "kafka")
    assertEquals(ProcSample.label(cmd("java", "-jar", "/x/apicurio/quarkus-run.jar"), "java"), "registry")
    assertEquals(ProcSample.label(cmd("postgres", "-D", "/x"), "postgres"), "postgres")
    assertEquals(ProcSample.label(cmd("sleep", "10"), "sleep\n"), "sleep")
  }

  test("two processes of one kind are each named with their pid; the others keep their short name") {
    assertEquals(ProcSample.distinctLabels(List(11L -> "handler", 21L -> "kafka", 22L -> "kafka", 23L -> "kafka")),
      List(11L -> "handler", 21L -> "kafka 21", 22L -> "kafka 22", 23L -> "kafka 23"))
    assertEquals(ProcSample.distinctLabels(Nil), Nil)
  }
}
