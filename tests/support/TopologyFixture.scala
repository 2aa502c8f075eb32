package bankops.support

/** Names for the topics (and databases) a test makes on the sandbox. A suite naming it reaches the sandbox, so takes
  * its turns there (OnSandbox) and is not in the quick tier; topology files alone are [[TopologyFiles]].
  */
object TopologyFixture {
  /** A unique prefix so each test's topics cannot meet another test's; removed when its suite ends (Leftovers). */
  def unique(name: String): String = {
    val prefix = s"t${java.util.UUID.randomUUID().toString.take(8)}-$name"
    Leftovers.madePrefix(prefix)
    prefix
  }
}
