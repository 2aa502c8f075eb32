package bankops.services.load

import java.util.UUID
import scala.collection.mutable
import scala.util.Random

import bankops.services.bank.{ConfirmAccountCreation, ConfirmMoneyTransfer}
import bankops.support.{ModelBank, Seeded}

/** `heartbeat --kind commands`' generator against a model of the bank ([[ModelBank]], the bank's rules written out in
  * the tests): it promises (docs/guide/load-and-balances.md) that exactly `--fail-share` of the transfers fail, in turn by
  * each reason the handler gives, and that the rest succeed.
  */
class LearningGeneratorSuite extends munit.FunSuite with Seeded {
  private val Reasons =
    Set("invalid token", "insufficient funds", "both to and from not known at this bank", "from and to can't be same for transfer")

  /** What the bank answered to one run of `count` commands: each transfer with its outcome, and the creations. */
  private final case class Run(transfers: Vector[(ConfirmMoneyTransfer, Option[String])], creations: Vector[ConfirmAccountCreation],
                               mostWaiting: Int) {
    def failures: Vector[String] = transfers.flatMap(_._2)
    /** The deposits that keep the load going until two accounts are known. */
    def warmUp: Vector[ConfirmMoneyTransfer] = transfers.map(_._1).filter(_.to == ModelBank.SeededIban)
  }

  /** `count` commands; the bank answers each creation `delay` commands after it (0: before the next command). */
  private def run(seed: Long, share: Double, count: Int, delay: Int): Run = {
    val pool = new AccountPool
    val generator = new LearningGenerator(seed, share, pool)
    val bank = new ModelBank(new Random(seed))
    val waiting = mutable.Queue.empty[(Int, UUID)]
    val transfers = Vector.newBuilder[(ConfirmMoneyTransfer, Option[String])]
    val creations = Vector.newBuilder[ConfirmAccountCreation]
    var mostWaiting = 0
    (0 until count).foreach { i =>
      while (waiting.headOption.exists(_._1 <= i)) {
        val (_, id) = waiting.dequeue()
        val (iban, token) = bank.open()
        pool.learn(id, iban, token)
      }
      if (pool.accounts.size < 2) mostWaiting = mostWaiting max pool.outstanding
      generator.next() match {
        case Left(c) => creations += c; waiting.enqueue((i + 1 + delay, c.id))
        case Right(t) => transfers += t -> bank.transfer(t)
      }
    }
    Run(transfers.result(), creations.result(), mostWaiting)
  }

  private def cases(n: Int): List[(Long, Double, Int)] = {
    List.fill(n)((random.nextLong(), List(0.0, 0.01, 0.1, 0.25, 1.0 / 3, 0.5, 0.9, 1.0)(random.nextInt(8)), 50 + random.nextInt(3000)))
  }

  test("a bank that answers at once: exactly floor(share x transfers) of the transfers fail, for every --count") {
    cases(60).foreach { case (seed, share, count) =>
      val r = run(seed, share, count, delay = 0)
      assert(r.transfers.size > count / 2, s"seed $seed: ${r.transfers.size} transfers of $count")
      assertEquals(r.warmUp, Vector.empty, s"seed $seed: two accounts were known in time, no deposit to the seeded account is needed")
      // A run may stop after any command: the promise holds for each prefix.
      r.transfers.map(_._2.isDefined).scanLeft(0)((n, failed) => n + (if (failed) 1 else 0)).zipWithIndex.foreach { case (failed, n) =>
        assertEquals(failed, math.floor(n * share).toInt, s"seed $seed, share $share: after $n transfers")
      }
    }
  }

  test("the failures come from the four reasons the handler gives, and nothing else fails") {
    cases(60).foreach { case (seed, share, count) =>
      val r = run(seed, share, count, delay = 0)
      assert(r.failures.forall(Reasons), s"seed $seed: ${r.failures.filterNot(Reasons).distinct}")
      if (r.failures.size >= 8) assertEquals(r.failures.toSet, Reasons, s"seed $seed")
    }
  }

  test("the failures take the reasons in turn: any four failures in a row give four different reasons") {
    // The invalid-token and insufficient-funds failures once drew from and to independently: with two accounts known,
    // half of them had from equal to to, and the bank gave that reason instead.
    cases(60).foreach { case (seed, share, count) =>
      val r = run(seed, share, count, delay = 0)
      r.failures.sliding(4).filter(_.size == 4).foreach(four => assertEquals(four.toSet.size, 4, s"seed $seed, share $share: $four"))
    }
  }

  test(
    "a bank slow to answer: the load keeps going with deposits to the seeded account, at most 20 creations waiting; the share holds for the rest") {
    cases(40).foreach { case (seed, share, count) =>
      val r = run(seed, share, count, delay = 60)
      assertEquals(r.mostWaiting, 20, s"seed $seed: creations waiting for an answer while fewer than two accounts were known")
      assert(r.warmUp.nonEmpty || count <= 20, s"seed $seed: no warm-up deposits although no account was known for 60 commands")
      assert(r.warmUp.forall(t => t.from == ModelBank.Cash && t.amount > 0), r.warmUp.take(3).toString)
      val rest = r.transfers.filterNot(_._1.to == ModelBank.SeededIban)
      assertEquals(r.transfers.count(t => t._1.to == ModelBank.SeededIban && t._2.isDefined), 0, "warm-up deposits succeed")
      assertEquals(rest.count(_._2.isDefined), math.floor(rest.size * share).toInt, s"seed $seed, share $share")
    }
  }

  test("deterministic for a seed and the same answers; another seed, other commands") {
    cases(10).foreach { case (seed, share, count) =>
      assertEquals(run(seed, share, count, 3), run(seed, share, count, 3))
      assertNotEquals(run(seed, share, count, 3).creations.map(_.id), run(seed + 1, share, count, 3).creations.map(_.id))
    }
  }
}
