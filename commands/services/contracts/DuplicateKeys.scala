package bankops.services.contracts

import com.fasterxml.jackson.core.{JsonFactoryBuilder, JsonParseException, StreamReadFeature}

/** JSON parsers (circe's included) keep the last of two equal keys in one object; in a file an operator wrote, the
  * first one is then silently ignored. Jackson's streaming parser (already here for Avro) detects them.
  */
object DuplicateKeys {
  private val factory = new JsonFactoryBuilder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build()
  private val Field = "Duplicate field '(.*)'".r.unanchored

  /** `line 7: key 'partitions' appears twice in one object`, for the first such key; syntax errors are left to the
    * JSON parser that reads the file.
    */
  def find(text: String): Option[String] = {
    val parser = factory.createParser(text)
    try { while (parser.nextToken() != null) (); None }
    catch {
      case e: JsonParseException => e.getOriginalMessage match {
          case Field(key) => Some(s"line ${e.getLocation.getLineNr}: key '$key' appears twice in one object")
          case _ => None
        }
    } finally parser.close()
  }
}
