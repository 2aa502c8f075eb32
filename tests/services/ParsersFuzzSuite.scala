package bankops.services

import org.scalacheck.{Gen, Prop, Test}

import java.time.Instant
import scala.util.Try

import bankops.services.config.ClientProperties
import bankops.services.contracts.{SchemaFiles, TopologyFile}
import bankops.services.kafka.{StartAt, StopAt}
import bankops.services.records.{Condition, RecordLine}
import bankops.support.Repo

/** Every parser of what users write (topology, .avsc files, command-config, replay's JSON lines, positions and --where)
  * takes 10,000 random and mutated inputs without throwing: a bad input is always a Left naming the problem (exit 2),
  * never an "unexpected error". The mutations start from valid inputs, so most runs exercise the deep paths.
  */
class ParsersFuzzSuite extends bankops.support.PropertySuite {
  override def scalaCheckTestParameters: Test.Parameters = super.scalaCheckTestParameters.withMinSuccessfulTests(10000).withWorkers(1)
  override val munitTimeout: scala.concurrent.duration.Duration = scala.concurrent.duration.Duration(5, "min")

  private val tricky = List("{", "}", "[", "]", "\"", ":", ",", "\\", "\\u", "\\uZZZZ", "\u0000", "\n", "\r", "=", "#", "!", ".", "-", "e",
    "1e309", "-0", "99999999999999999999", "NaN", "null", "true", "ago:", "offset:", "timestamp:", "\uD800", "é", " ", "\t", "*", "%")

  /** A valid seed mutated: bytes flipped, ranges cut or doubled, tricky tokens put in. */
  private def mutated(seed: String): Gen[String] = {
    val one: Gen[String => String] = Gen.oneOf(
      Gen.choose(0, 1000).flatMap(i => Gen.choose(0, 20).map(n => (s: String) => { val a = i % (s.length + 1); s.take(a) + s.drop(a + n) })),
      Gen.choose(0, 1000).flatMap(i => Gen.oneOf(tricky).map(t => (s: String) => { val a = i % (s.length + 1); s.take(a) + t + s.drop(a) })),
      Gen.choose(0, 1000).flatMap(i =>
        Gen.choose(0, 30).map(n => (s: String) => { val a = i % (s.length + 1); s.take(a) + s.slice(a, a + n) + s.drop(a) })),
      Gen.choose(0, 1000).flatMap(i =>
        Gen.choose(Char.MinValue, Char.MaxValue).map(c =>
          (s: String) =>
            if (s.isEmpty) c.toString else { val a = i % s.length; s.updated(a, c) })),
      Gen.choose(0, 1000).map(i => (s: String) => s.take(i % (s.length + 1)))
    )
    Gen.choose(1, 6).flatMap(n => Gen.listOfN(n, one)).map(_.foldLeft(seed)((s, f) => f(s)))
  }

  private def inputs(seeds: List[String]): Gen[String] =
    Gen.frequency(1 -> Gen.asciiPrintableStr, 1 -> Gen.alphaNumStr, 1 -> Gen.listOf(Gen.oneOf(tricky)).map(_.mkString),
      7 -> Gen.oneOf(seeds).flatMap(mutated))

  /** Never throws, never hangs (munit's timeout): a Left or a Right, whatever the input. */
  private def total[A](gen: Gen[String])(parse: String => A): Prop =
    Prop.forAllNoShrink(gen)(in =>
      Try(parse(in)).fold(e => { throw new AssertionError(s"threw ${e.getClass.getName}: ${e.getMessage} on ${pprint(in)}", e) }, _ => true))

  private def pprint(s: String): String = "\"" + s.flatMap(c => if (c < ' ' || c > '~') f"\\u${c.toInt}%04x" else c.toString) + "\""

  private val schemasDir = Repo.root / "schemas"

  property("topology.json") {
    val dir = os.temp.dir(prefix = "fuzz-topology")
    os.list(schemasDir).filter(_.ext == "avsc").foreach(f => os.copy.into(f, dir))
    val file = dir / "topology.json"
    total(inputs(List(os.read(schemasDir / "topology.json")))) { text => os.write.over(file, text); TopologyFile.load(file) }
  }

  property(".avsc files") {
    val dir = os.temp.dir(prefix = "fuzz-avsc")
    val file = dir / "Fuzzed.avsc"
    val seeds = os.list(schemasDir).filter(_.ext == "avsc").map(os.read(_)).toList
    val known = SchemaFiles.load(schemasDir).toOption.get
    total(inputs(seeds)) { text => os.write.over(file, text); SchemaFiles.loadOne(file, known) }
  }

  property("command-config files") {
    val seed = "security.protocol=SSL\nssl.truststore.location=/tmp/t.jks\nssl.truststore.password=secret\n# a comment\nlinger.ms = 5\n" +
      "schema.registry.url=https://r:8081\nbasic.auth.user.info=u:p\\\n  continued\n"
    total(inputs(List(seed)))(ClientProperties.parse(_, "fuzz.properties"))
  }

  property("replay JSON lines") {
    val seeds = List(
      """{"topic":"commands","partition":1,"offset":7,"timestamp":"2026-11-23T10:00:00Z","timestampType":"CreateTime","key":"abc","headers":[{"key":"h","value":"dg=="}],"schemaId":4,"record":"nl.openweb.data.ConfirmMoneyTransfer","value":{"id":"5f0c...","amount":100}}""",
      """{"record":"ConfirmAccountCreation","key":"k","value":{"id":"6d5e2f1e-0f7a-4c55-9b4f-0d2f7c1c1a11","a_type":"AUTO"}}""",
      """{"topic":"t","partition":0,"offset":1,"raw":"AAAAAAQC","error":"not decodable","keyBase64":"AQID"}""")
    total(inputs(seeds))(RecordLine.parse(_, 1))
  }

  property("start and stop positions") {
    val seeds = List("beginning", "end", "offset:42", "timestamp:2026-11-23T10:00:00Z", "ago:1h30m", "ago:15m")
    total(inputs(seeds)) { s => (StartAt.parse(s, Instant.now()), StopAt.parse(s)) }
  }

  property("--where conditions") {
    val seeds = List("amount>1000", "value.from=cash", "record!=Heartbeat", "amount<=1e3", "a.b.c >= -5.25")
    total(inputs(seeds))(Condition.parse)
  }
}
