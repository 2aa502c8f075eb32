// sbt build of the same sources scala-cli runs. Scala version, dependencies
// and options all come from project.scala; nothing is listed here twice.
import bankops.base.{Dependency, JvmOptions, ProjectDirectives}
import bankops.build.TestPrerequisites

lazy val directives: ProjectDirectives =
  ProjectDirectives.parse(IO.read(file("project.scala"))) match {
    case Right(d) => d
    case Left(error) => sys.error(error)
  }

def module(d: Dependency): ModuleID =
  if (d.scalaSuffix) d.organization %% d.name % d.version else d.organization % d.name % d.version

lazy val writeClasspath = taskKey[File]("Writes the runtime classpath for the ./bankops launcher")
lazy val dist = taskKey[File]("Packs bankops as bankops-VERSION.tar.gz under target/dist (./bankops dist)")
lazy val awaitTestPrerequisites = taskKey[Unit]("Waits for what ./bankops test installs while sbt compiles (project/TestPrerequisites.scala)")
lazy val buildProperties = settingKey[File]("The jar's bankops/build.properties: the commit and time of the build")

lazy val root = (project in file("."))
  .settings(
    name := "bankops",
    // The version the sources declare (the meta-build compiles commands/base/Version.scala), so the CLI and the build never disagree.
    version := bankops.base.Version.current,
    scalaVersion := directives.scalaVersion,
    libraryDependencies ++= directives.dependencies.map(module) ++ directives.testDependencies.map(module(_) % Test),
    scalacOptions ++= directives.scalacOptions,
    Test / scalacOptions ++= directives.testScalacOptions,
    Compile / mainClass := directives.mainClass,
    // The launcher's class-data archive (AppCDS) accepts only jars on the classpath, not class directories.
    exportJars := true,
    Compile / unmanagedSourceDirectories := Seq(baseDirectory.value / "commands"),
    Test / unmanagedSourceDirectories := Seq(baseDirectory.value / "tests"),
    // The build's own wait for the tests' set-up, tested as the rest is (tests/base/TestPrerequisitesSuite.scala).
    Test / unmanagedSources += baseDirectory.value / "project" / "TestPrerequisites.scala",
    Compile / unmanagedResourceDirectories := Nil,
    buildProperties := (Compile / resourceManaged).value / "bankops" / "build.properties",
    // `bankops --version`: the commit and time of the build (project/Distribution.scala).
    Compile / resourceGenerators += Def.task {
      Seq(Distribution.buildInfo(baseDirectory.value, buildProperties.value, sys.env.get("BANKOPS_SOURCE_STAMP")))
    }.taskValue,
    Test / unmanagedResourceDirectories := Nil,
    testFrameworks := Seq(new TestFramework("munit.Framework")),
    Test / fork := true,
    // The suites run in a few JVMs at once, each with a sandbox of its own (tests/support/SandboxFixture.scala): most of
    // a suite's time is spent waiting on Kafka, PostgreSQL and the processes it starts, not on the two cores.
    Test / testGrouping := {
      val suites = (Test / definedTests).value
      val fork = (Test / forkOptions).value
      val shards = TestShards.count(sys.env.get("BANKOPS_TEST_SHARDS"))
      val processors = java.lang.Runtime.getRuntime.availableProcessors
      val (atOnce, shared) = (TestShards.suitesAtOnce(processors, shards), TestShards.sharedAtOnce(processors, shards))
      TestShards.assign(suites.map(_.name), shards).zipWithIndex.map { case (names, i) =>
        Tests.Group(s"shard-$i", names.flatMap(n => suites.filter(_.name == n)),
          Tests.SubProcess(fork.withRunJVMOptions(fork.runJVMOptions ++
              Seq(s"-Dbankops.test.shard=$i", s"-Dbankops.test.shared=$shared", s"-XX:ActiveProcessorCount=$atOnce"))))
      }
    },
    // Within a shard's JVM, suites run as many at once as it has processors (sbt's ForkMain; TestShards.suitesAtOnce): they
    // share its sandbox, each test holding it shared (TestShards.sharedAtOnce at a time) or alone (tests/support/OnSandbox.scala).
    // Most of a test's time is spent waiting on timeouts, consumer groups and paced loads, so another suite's work fills
    // the cores meanwhile; the suites beyond the shared turns keep them busy while others wait to run a test alone.
    Test / testForkedParallel := true,
    // sbt's default runs one forked group at a time, and no more tasks at once than there are processors.
    Global / concurrentRestrictions := {
      val shards = TestShards.count(sys.env.get("BANKOPS_TEST_SHARDS"))
      Seq(Tags.limitAll(math.max(shards, java.lang.Runtime.getRuntime.availableProcessors)), Tags.limit(Tags.ForkedTestGroup, shards))
    },
    // The tests' temporary files go under target/test-tmp, emptied as each run starts: /tmp kept every run's (a hundred
    // topology directories and more), since deleteOnExit removes only empty directories.
    Test / javaOptions ++= {
      val tmp = target.value / "test-tmp"
      IO.delete(tmp)
      IO.createDirectory(tmp)
      // Each test JVM's collections and their pauses, one file per JVM (%p, its pid): a test that failed on a wait of
      // seconds can be checked against a pause of the JVM it ran in (.ci/run prints the longest).
      Seq(s"-Djava.io.tmpdir=${tmp.getAbsolutePath}", s"-Xlog:gc:file=${(tmp / "gc-%p.log").getAbsolutePath}:utctime",
        "-XX:+UnlockDiagnosticVMOptions",
        s"-XX:CompilerDirectivesFile=${(baseDirectory.value / "tests" / "support" / "jit-c2-crypto.json").getAbsolutePath}")
    },
    // Tests see library logging as the CLI does without --verbose (bankops.base.Logging): WARN and above, the Kafka clients silent.
    Test / javaOptions ++= directives.javaOptions ++ Seq(s"-Dbankops.home=${baseDirectory.value}", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
      "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=off") ++
      // The Python with confluent-kafka that ./bankops test prepared (tests/support/PythonClients.scala).
      sys.env.get("BANKOPS_PYTHON").map(p => s"-Dbankops.python=$p"),
    // A script body runs inside main(args), as scala-cli runs it with `args` in scope.
    Compile / sourceGenerators += Def.task {
      val out = (Compile / sourceManaged).value / "scripts"
      IO.delete(out)
      ((baseDirectory.value / "scripts") * "*.sc").get.sorted.map { sc =>
        val obj = sc.base.replaceAll("[^A-Za-z0-9_]", "_")
        // Directive lines become blank lines so compile errors keep the script's line numbers.
        val body = IO.readLines(sc).map(l => if (l.startsWith("#!") || l.trim.startsWith("//>")) "" else l)
        val src = out / s"$obj.scala"
        IO.write(src, s"package bankops.scripts; object $obj { def main(args: Array[String]): Unit = {\n" + body.mkString("\n") + "\n}}\n")
        src
      }
    }.taskValue,
    writeClasspath := {
      val cp = (Runtime / fullClasspath).value.map(_.data.getAbsolutePath).mkString(java.io.File.pathSeparator)
      val dir = baseDirectory.value / ".bankops" / "build"
      IO.write(dir / "classpath", cp)
      // project.scala's javaOpt directives, one per line: the launcher's JVM runs with what scala-cli's would.
      IO.write(dir / "java-options", directives.javaOptions.map(_ + "\n").mkString)
      // `bankops handler`'s own, added after those.
      IO.write(dir / "handler-java-options", JvmOptions.Handler.map(_ + "\n").mkString)
      // The data jobs' own (a bounded heap), added after project.scala's.
      IO.write(dir / "data-java-options", JvmOptions.DataJobs.map(_ + "\n").mkString)
      // What `--version` prints, for the launcher to print without a JVM (the jar's build.properties, made by now).
      IO.write(dir / "version", Distribution.versionLine(buildProperties.value) + "\n")
      // The launcher hashes the sources before sbt starts; the stamp says which sources this classpath holds.
      sys.env.get("BANKOPS_SOURCE_STAMP").foreach(stamp => IO.write(dir / "stamp", stamp))
      dir / "classpath"
    },
    awaitTestPrerequisites := {
      // sLog, not streams: sbt 1.11 printed no message for a task that failed after using its streams.
      val log = sLog.value
      sys.env.get("BANKOPS_TEST_SETUP").flatMap(TestPrerequisites.await(_, log.info(_))).foreach(why => throw new MessageOnlyException(why))
    },
    dist := Distribution.pack(baseDirectory.value, target.value / "dist", version.value,
      (Runtime / fullClasspath).value.map(_.data), Distribution.versionLine(buildProperties.value), directives.javaOptions,
      JvmOptions.Handler, JvmOptions.DataJobs,
      sys.env.getOrElse("BANKOPS_SOURCE_STAMP", ""), sys.env.get("BANKOPS_DIST_AOT_JDK").filter(_.nonEmpty).map(file),
      streams.value.log.info(_))
  )
