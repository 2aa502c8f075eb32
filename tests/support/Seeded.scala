package bankops.support

import scala.util.Random

/** Random inputs a failure can replay: each test draws from [[random]], seeded anew before it runs, and a failed test
  * prints its seed; `BANKOPS_TEST_SEED=N` runs every test of the suite with seed N.
  */
trait Seeded extends munit.FunSuite {
  @volatile private var current: (Long, Random) = (0L, new Random(0L))

  /** This test's random numbers. */
  def random: Random = current._2

  override def munitTestTransforms: List[TestTransform] = super.munitTestTransforms :+ new TestTransform("seeded",
    test =>
      test.withBody { () =>
        val seed = sys.env.get("BANKOPS_TEST_SEED").flatMap(_.toLongOption).getOrElse(System.nanoTime())
        current = (seed, new Random(seed))
        def say(): Unit = System.err.println(s"${test.name}: random seed $seed (BANKOPS_TEST_SEED=$seed replays it)")
        // A synchronous test may throw rather than return a failed future.
        val body = try test.body()
        catch { case e: Throwable => say(); throw e }
        body.transform { result =>
          if (result.isFailure) say()
          result
        }(munitExecutionContext)
      })
}
