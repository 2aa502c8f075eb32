package bankops.jobs

import cats.effect.{IO, Resource}
import cats.syntax.all._
import org.apache.kafka.clients.admin.NewTopic
import org.apache.kafka.clients.producer.ProducerRecord

import scala.concurrent.duration._
import scala.jdk.CollectionConverters._

import bankops.services.kafka.{ChunkProducer, KafkaClients}
import bankops.support.{CliProcess, IOSuite, Jvm, OnSandbox, SandboxFixture, Setup, TopologyFiles, TopologyFixture}

/** The data jobs stream: each one takes a topic (or its archive, its file, or standard input) larger than its whole heap
  * and finishes with exact counts. A job that held its input, or a fetch, per record would die of OutOfMemoryError here.
  */
class BoundedMemorySuite extends IOSuite with OnSandbox {
  override val munitIOTimeout: Duration = 10.minutes

  private val records = 15000
  private val size = 4096
  // With a young generation sized to it, as an operator sets a small heap: the data jobs' -Xmn128m alone (JvmOptions)
  // would take 43 of the 48 MiB, leaving the old generation 5 MiB, and replay (a consumer's fetches and a producer's
  // buffer at once) ran out of heap there in one run of two.
  private val heap = List("-Xmx48m", "-Xmn16m")
  private val dir = os.temp.dir(prefix = "bounded")

  /** A topic of `records` values of `size` random bytes on 3 partitions: 59 MiB, past the heap. */
  private val topic = ResourceSuiteLocalFixture("topic",
    Resource.eval(OnSandbox.turns.io(alone = false)(for {
      settings <- SandboxFixture.settings
      t = s"${TopologyFixture.unique("bounded")}-big"
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a =>
        KafkaClients.await(a.createTopics(List(new NewTopic(t, 3, 1.toShort)).asJava).all()))
      random = new scala.util.Random(7)
      _ <- ChunkProducer.resource(settings.kafka, 60.seconds).use(p =>
        (1 to records).grouped(1000).toList.traverse_(is =>
          p.send(fs2.Chunk.from(is.map(i =>
                new ProducerRecord[Array[Byte], Array[Byte]](t, i % 3, s"k$i".getBytes, { val b = new Array[Byte](size); random.nextBytes(b); b }))))(
            (_, _, e) =>
              if (e != null) throw e).flatten))
    } yield t)))

  override def munitFixtures = List(topic)

  /** The client settings an operator gives a small heap: a producer buffer and fetches sized to it. */
  private lazy val small = os.temp(
    os.read(SandboxFixture.layout.dir / "client.properties") +
      "\nbuffer.memory=8388608\nmax.partition.fetch.bytes=1048576\nfetch.max.bytes=4194304\n", suffix = ".properties")

  private def run(args: String*): IO[(Int, os.Path, String)] =
    CliProcess.startJvm(heap ++ Jvm.DataMover, args ++ Seq("--command-config", small.toString): _*).flatMap(p =>
      p.exited(5.minutes).map(code => (code, p.out, os.read(p.err))))

  /** The JSON lines of a file (the JVM may print warnings about its heap to stdout), counted in its bytes: read as
    * strings, these files of 60 MiB and more were 6% of the test JVM's CPU in a full run (JFR).
    */
  private def lines(f: os.Path): Long = {
    val in = java.nio.file.Files.newInputStream(f.toNIO)
    try {
      val buf = new Array[Byte](1 << 16)
      // Per line: how many of its first two bytes were seen, and whether the first was a brace.
      var count = 0L
      var column = 0
      var brace = false
      var n = in.read(buf)
      while (n > 0) {
        var i = 0
        while (i < n) {
          val b = buf(i)
          if (b == '\n') column = 0
          else if (column < 2) {
            if (column == 0) brace = b == '{' else if (brace && b == '"') count += 1
            column += 1
          }
          i += 1
        }
        n = in.read(buf)
      }
      count
    } finally in.close()
  }

  test("produce and produce --dry-run take 59 MiB of JSON lines on standard input with a 48 MiB heap, each shown") {
    val topic = TopologyFixture.unique("bounded-produce")
    val topology = TopologyFiles.write(
      s"""{"topics": {"$topic": {"partitions": 3, "replicationFactor": 1, "records": [{"type": "nl.openweb.data.ConfirmMoneyTransfer", "key": "id"}]}}}""")
    val description = "d" * size
    def produce(extra: String*): IO[(Int, os.Path, String)] = for {
      p <- CliProcess.startJvm(heap ++ Jvm.DataMover,
        Seq("produce", "--topology", topology.toString, "--topic", topic, "--command-config", small.toString, "-o", "json") ++ extra: _*)
      // Written as the job reads them, through the pipe: the lines are never all in this test's memory or the job's. A job
      // that dies early breaks the pipe: its exit code and stderr below say why.
      _ <- IO.blocking {
        scala.util.Try {
          val in = new java.io.BufferedOutputStream(p.process.stdin, 1 << 16)
          (1 to records).foreach { i =>
            in.write(s"""{"id":"${new java.util.UUID(7L, i.toLong)}","token":"t$i","amount":$i,"from":"cash","to":"NL66OPEN0000000000",""".getBytes)
            in.write(s""""description":"$description"}\n""".getBytes)
          }
          in.close()
        }
      }
      code <- p.exited(5.minutes)
    } yield (code, p.out, os.read(p.err))
    for {
      _ <- Setup.cli("apply the test topology", "apply", "--topology", topology.toString)
      sent <- produce()
      written <- SandboxFixture.written(topic)
      dry <- produce("--dry-run")
      after <- SandboxFixture.written(topic)
    } yield {
      assertEquals(sent._1, 0, sent._3.takeRight(2000))
      assertEquals(written, records.toLong)
      assertEquals(lines(sent._2), records.toLong)
      assertEquals(dry._1, 0, dry._3.takeRight(2000))
      assertEquals(lines(dry._2), records.toLong)
      assert(dry._3.contains(s"produce: dry run: $records record(s) checked and encoded; nothing sent"), dry._3.takeRight(2000))
      assertEquals(after, written)
    }
  }

  // Separate tests, not one: a test alone waits for every shared test in flight, and the four jobs in one took 82 s on a
  // loaded machine (the run's last wait for a turn alone, 76 s, was for it).
  test("inspect takes 59 MiB with a 48 MiB heap") {
    run("inspect", "--topic", topic(), "--from", "beginning", "--to", "end", "-o", "json").map { inspected =>
      assertEquals((inspected._1, lines(inspected._2)), (0, records.toLong), inspected._3)
    }
  }

  test("capture, capture show --records and restore each take 59 MiB with a 48 MiB heap") {
    val t = topic()
    val archive = dir / "big.zip"
    for {
      captured <- run("capture", "--topic", t, "--out", archive.toString)
      shown <- CliProcess.startJvm(heap ++ Jvm.DataMover, "capture", "show", archive.toString, "--records").flatMap(p =>
        p.exited(5.minutes).map(code => (code, p.out, os.read(p.err))))
      restored <- run("restore", archive.toString, "--topic-prefix", "bm.")
      copied <- SandboxFixture.written(s"bm.$t").handleError(_ => -1L)
    } yield {
      assertEquals(captured._1, 0, captured._3)
      assert(captured._3.contains(s"capture: $records records from 1 topic(s)"), captured._3)
      assert(os.size(archive) > 48L * 1024 * 1024, os.size(archive))
      assertEquals((shown._1, lines(shown._2)), (0, records.toLong), shown._3)
      assertEquals(restored._1, 0, restored._3)
      assertEquals(copied, records.toLong)
    }
  }

  test("replay topic to topic takes 59 MiB with a 48 MiB heap, every record copied") {
    val dst = s"${TopologyFixture.unique("bounded")}-copy"
    for {
      settings <- SandboxFixture.settings
      _ <- KafkaClients.javaAdmin(settings.kafka).use(a => KafkaClients.await(a.createTopics(List(new NewTopic(dst, 3, 1.toShort)).asJava).all()))
      copied <- run("replay", "--from-topic", topic(), "--to-topic", dst)
      landed <- SandboxFixture.written(dst)
    } yield {
      assertEquals(copied._1, 0, copied._3)
      assertEquals(landed, records.toLong)
    }
  }

  test("replay --to-file takes 59 MiB with a 48 MiB heap") {
    val file = dir / "big.jsonl"
    run("replay", "--from-topic", topic(), "--to-file", file.toString).map { toFile =>
      assertEquals(toFile._1, 0, toFile._3)
      assertEquals(lines(file), records.toLong)
      assert(os.size(file) > 48L * 1024 * 1024, os.size(file))
    }
  }
}
