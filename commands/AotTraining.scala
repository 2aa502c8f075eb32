package bankops

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}

import scala.jdk.CollectionConverters._

import cats.effect.ExitCode

/** The workload that trains the AOT cache a distribution carries (`./bankops dist --aot-jdk`, project/aot-train.sh): each
  * line of the file named is one bankops command line, its arguments separated by tabs, run in order in this one JVM, so
  * that one cache holds the classes of every job (one per job took 1.4 GB; a larger cache than a job needs costs it
  * ~60 ms of start-up). Not a job: the launcher runs it only when asked to train (BANKOPS_AOT_TRAIN).
  */
object AotTraining {
  def main(args: Array[String]): Unit = {
    val file = Paths.get(args.headOption.getOrElse(sys.error("usage: AotTraining FILE")))
    val lines = Files.readAllLines(file, StandardCharsets.UTF_8).asScala.filter(_.nonEmpty)
    lines.foreach { line =>
      val argv = line.split('\t').toList
      System.err.println(s"aot-training: bankops ${argv.mkString(" ")}")
      val code = Main.run(argv).unsafeRunSync()(Main.forkJoin)
      if (code != ExitCode.Success) {
        System.err.println(s"aot-training: bankops ${argv.mkString(" ")} exited ${code.code}")
        sys.exit(1)
      }
    }
    // A client's thread left behind must not keep the JVM (and the cache it writes as it exits) waiting.
    sys.exit(0)
  }
}
