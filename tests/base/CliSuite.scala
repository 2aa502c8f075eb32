package bankops.base

import cats.syntax.all._

import bankops.support.{IOSuite, TestShell}

class CliSuite extends IOSuite {

  test("--help lists each job with a description and an example, exit 0") {
    TestShell.run(List("--help")).map { r =>
      assertEquals(r.code, 0)
      assert(r.out.contains("config"), r.out)
      assert(r.out.contains("Example: bankops config show"), r.out)
    }
  }

  test("no arguments at all print the same overview of jobs as --help, exit 0, nothing on stderr") {
    (TestShell.run(Nil), TestShell.run(List("--help"))).mapN { (none, help) =>
      assertEquals(none.code, 0)
      assertEquals(none.out, help.out)
      assertEquals(none.err, "")
    }
  }

  test("--version") {
    // The build stamps the commit it built from (a checkout with changed sources adds -modified) and when.
    val line = raw"bankops (\S+) \(commit ([0-9a-f]{12}(-modified)?), built (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\)".r
    TestShell.run(List("--version")).map { r =>
      assertEquals(r.code, 0)
      r.out.trim match {
        case line(version, _, _, built) =>
          assertEquals(version, bankops.base.Version.current)
          assert(!java.time.Instant.parse(built).isAfter(java.time.Instant.now()), built)
        case other => fail(s"--version printed: $other")
      }
    }
  }

  test("an unknown flag is one line on stderr and exit 2") {
    TestShell.run(List("config", "show", "--bogus")).map { r =>
      assertEquals(r.code, 2)
      assertEquals(r.err.linesIterator.size, 1, r.err)
      assert(r.err.contains("--bogus"), r.err)
      assertEquals(r.out, "")
    }
  }

  test("a flag's value its type refuses is one line naming the flag, exit 2: the types' Argument instances, read by Flags.option") {
    List(
      List("inspect", "--topic", "t", "--from", "soon") -> "--from 'soon' is not a start position (beginning, end, offset:N",
      List("inspect", "--topic", "t", "--to", "beginning") -> "--to 'beginning' is not a stop position",
      List("inspect", "--topic", "t", "--from", "offset:-1") -> "--from '-1' is not an offset",
      List("inspect", "--topic", "t", "--where", "amount") -> "--where 'amount' is not FIELD=VALUE",
      List("inspect", "--topic", "t", "--header", "=x") -> "--header '=x' has no key before '='",
      List("heartbeat", "--kind", "beats") -> "--kind must be heartbeat, commands or mixed, not 'beats'",
      List("heartbeat", "--subject-strategy", "colour") -> "--subject-strategy 'colour' is not a subject name strategy",
      List("latency", "--slo", "p99>1s") -> "--slo must look like p99<200ms",
      List("latency", "--slo", "cpu:p99<1s") -> "--slo 'cpu:p99<1s': the measure must be feedback, balance or db, not 'cpu'",
      List("config", "show", "-o", "xml") -> "--output must be table or json, not 'xml'",
      List("capture", "--topic", "t", "--from", "soon", "--dry-run") -> "--from 'soon' is not a start position",
      List("inspect", "--topic", "t", "-o", "xml") -> "--output must be json, pretty or avro-json, not 'xml'",
      List("groups", "reset", "g", "--topic", "t", "--to", "yesterday") -> "--to 'yesterday' is not a reset target (earliest, latest",
      List("groups", "reset", "g", "--topic", "t", "--to", "shift:0") -> "--to '0' is not a shift",
      // A line break or an escape sequence in a value is shown, never printed: the refusal stays one line.
      List("inspect", "--topic", "t", "--from", "soon\nend\u001b[2J") -> "--from 'soon\\nend\\u001b[2J' is not a start position"
    ).traverse_ { case (args, message) =>
      TestShell.run(args).map { r =>
        assertEquals(r.code, 2, s"${args.mkString(" ")}: ${r.err}")
        assertEquals(r.err.linesIterator.size, 1, r.err)
        assert(r.err.contains(message), s"${args.mkString(" ")}: ${r.err}")
        assertEquals(r.out, "")
      }
    }
  }

  test("a malformed --command-config is exit 2 naming the file; nothing on stdout") {
    val dir = os.temp.dir()
    os.write(dir / "bad.properties", "security.protocol\n")
    TestShell.run(List("config", "show", "--command-config", (dir / "bad.properties").toString)).map { r =>
      assertEquals(r.code, 2)
      assert(r.err.startsWith(s"bankops: $dir/bad.properties:1:"), r.err)
      assertEquals(r.out, "")
    }
  }

  test("config show in JSON says where each setting came from, and never prints the DB password") {
    val env = Map("KAFKA_BROKERS" -> "k1:9093", "DB_PASSWORD" -> "hunter2")
    TestShell.run(List("config", "show", "--output", "json", "--db-user", "alice"), env).map { r =>
      assertEquals(r.code, 0)
      assert(r.outLines.contains("""{"setting":"kafka.bootstrap.servers","value":"k1:9093","source":"env KAFKA_BROKERS"}"""), r.out)
      assert(r.outLines.contains("""{"setting":"db.user","value":"alice","source":"flag --db-user"}"""), r.out)
      assert(!r.out.contains("hunter2"))
    }
  }

  test("--verbose is accepted after the subcommand too") {
    TestShell.run(List("config", "show", "--verbose", "-o", "json")).map(r => assertEquals(r.code, 0, r.err))
  }
}
