package bankops.jobs.handler

import bankops.base.DurationText

/** Deterministic fault points for the exactly-once tests, from the environment; each fires once, the first time its
  * point is reached (the batch points only in a batch that writes):
  *  - `BANKOPS_HANDLER_CRASH=POINT` halts the JVM there, as kill -9 would;
  *  - `BANKOPS_HANDLER_PAUSE=POINT:DURATION` holds the handler there (a long GC pause, a stalled host);
  *    `POINT:/ABSOLUTE/FILE` holds it until that file exists (at most two minutes): a test releases it once what
  *    should happen meanwhile has happened, however slow the machine;
  *  - `BANKOPS_HANDLER_LOSE=POINT` throws there as if Kafka's answer never came (at `before-kafka-commit` the commit
  *    request was never sent, at `after-kafka-commit` it was and committed).
  * Points: `before-prepare` (database written, marker acknowledged), `after-prepare`, `before-kafka-commit`,
  * `after-kafka-commit`, `before-commit-prepared` (on the committer's thread, the next batch going on meanwhile),
  * `during-recovery` (an outcome decided, the prepared transaction not yet settled).
  */
private[handler] object HandlerFaults {
  def apply(env: Map[String, String], log: String => Unit): String => Unit = {
    val crash = env.get("BANKOPS_HANDLER_CRASH")
    val pause = env.get("BANKOPS_HANDLER_PAUSE").flatMap { s =>
      s.split(":", 2) match {
        case Array(point, file) if file.startsWith("/") => Some(point -> Right(java.nio.file.Paths.get(file)))
        case Array(point, d) => DurationText.parse(d).toOption.map(d => point -> Left(d))
        case _ => None
      }
    }
    val lose = env.get("BANKOPS_HANDLER_LOSE")
    if (crash.isEmpty && pause.isEmpty && lose.isEmpty) _ => ()
    else {
      var fired = Set.empty[String]
      // The loop's thread and the committer's reach their points: each fires once, and a pause holds only its own thread.
      def firstTime(point: String): Boolean = synchronized { val first = !fired(point); fired += point; first }
      point =>
        if (crash.contains(point)) { log(s"handler: crashing $point (BANKOPS_HANDLER_CRASH)"); Runtime.getRuntime.halt(137) }
        else if (pause.exists(_._1 == point) || lose.contains(point)) {
          if (firstTime(point)) {
            pause.filter(_._1 == point).foreach {
              case (_, Left(d)) =>
                log(s"handler: pausing $point for ${d.toMillis} ms (BANKOPS_HANDLER_PAUSE)")
                Thread.sleep(d.toMillis)
              case (_, Right(file)) =>
                log(s"handler: pausing $point until $file exists (BANKOPS_HANDLER_PAUSE)")
                val deadline = System.nanoTime() + 120L * 1000 * 1000 * 1000
                while (!java.nio.file.Files.exists(file) && System.nanoTime() < deadline) Thread.sleep(50)
                // Said, so a test that never released it reads why the handler went on.
                if (!java.nio.file.Files.exists(file)) log(s"handler: $file still missing after 120 s; going on from $point (BANKOPS_HANDLER_PAUSE)")
                else log(s"handler: released at $point (BANKOPS_HANDLER_PAUSE)")
            }
            if (lose.contains(point)) {
              log(s"handler: losing Kafka's answer $point (BANKOPS_HANDLER_LOSE)")
              throw new org.apache.kafka.common.errors.TimeoutException(s"fault: Kafka's answer lost $point (BANKOPS_HANDLER_LOSE)")
            }
          }
        }
    }
  }

  /** `BANKOPS_HANDLER_DRAWS=N,N,...`: the account numbers' last nine digits that the next creations draw, in order,
    * before random ones: two batches given the same number collide on purpose. Anything but numbers is ignored.
    */
  def draws(env: Map[String, String]): Iterator[Long] =
    env.get("BANKOPS_HANDLER_DRAWS").toList.flatMap(_.split(',').toList.flatMap(_.trim.toLongOption)).filter(n => n >= 0 && n < 1000000000L)
      .iterator
}
