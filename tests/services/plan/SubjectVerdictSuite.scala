package bankops.services.plan

import org.apache.avro.Schema

import bankops.services.contracts.SchemaFile
import bankops.services.registry.{Compatibility, Lookup, SubjectVersion}

class SubjectVerdictSuite extends munit.FunSuite {

  private val text = """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[{"name":"beat","type":"long"}]}"""
  private val contract = SchemaFile(os.pwd / "Heartbeat.avsc", new Schema.Parser().parse(text), Nil, text)

  test("a level changes only when asked for and different, whatever the case") {
    assertEquals(SubjectVerdict.levelChange("BACKWARD", None), None)
    assertEquals(SubjectVerdict.levelChange("BACKWARD", Some("backward")), None)
    assertEquals(SubjectVerdict.levelChange("BACKWARD", Some("FULL")), Some("FULL"))
  }

  test("a lookup settles registered (unchanged) and missing subjects (new); otherwise compare with the latest") {
    assertEquals(SubjectVerdict.fromLookup(Lookup.Found(SubjectVersion("s", 3, 42, text, Nil))), Some(SubjectStatus.Unchanged(42, 3)))
    assertEquals(SubjectVerdict.fromLookup(Lookup.SubjectMissing), Some(SubjectStatus.New))
    assertEquals(SubjectVerdict.fromLookup(Lookup.NotRegistered), None)
  }

  test("the latest version is the contract when only formatting or documentation differs") {
    val reformatted = new Schema.Parser().parse(
      """{"type": "record", "name": "Heartbeat", "namespace": "nl.openweb.data", "doc": "d", "fields": [{"name": "beat", "type": "long"}]}""")
    assert(SubjectVerdict.sameAsLatest(contract, reformatted))
    val grown = new Schema.Parser().parse(
      """{"type":"record","name":"Heartbeat","namespace":"nl.openweb.data","fields":[{"name":"beat","type":"long"},{"name":"n","type":"int","default":0}]}""")
    assert(!SubjectVerdict.sameAsLatest(contract, grown))
  }

  test("the registry's answer: compatible, its reasons, or the local check's when it gave none") {
    assertEquals(SubjectVerdict.problems(Compatibility(isCompatible = true, Nil), List("ignored")), Nil)
    assertEquals(SubjectVerdict.problems(Compatibility(isCompatible = false, List("READER_FIELD_MISSING_DEFAULT_VALUE")), Nil),
      List("READER_FIELD_MISSING_DEFAULT_VALUE"))
    assertEquals(SubjectVerdict.problems(Compatibility(isCompatible = false, Nil), List("field n has no default")), List("field n has no default"))
    assertEquals(SubjectVerdict.problems(Compatibility(isCompatible = false, Nil), Nil), List("the registry refused it without a reason"))
  }

  test("a changed contract is a new version, or incompatible under the level in force") {
    assertEquals(SubjectVerdict.newVersion(4, "BACKWARD", Nil), SubjectStatus.NewVersion(4))
    assertEquals(SubjectVerdict.newVersion(4, "FULL", List("p")), SubjectStatus.Incompatible("FULL", List("p")))
  }
}
