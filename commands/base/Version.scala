package bankops.base

object Version {
  val current: String = "0.1.0"
}
