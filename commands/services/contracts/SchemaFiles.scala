package bankops.services.contracts

import io.circe.parser.parse
import org.apache.avro.{Schema, SchemaParseException}

import scala.jdk.CollectionConverters._

import bankops.services.avro.NamedTypes
import scala.util.{Failure => TryFailure, Success, Try}

/** Reads a directory of `.avsc` files. A file may use named types another file
  * defines (Avro has no import statement): such files are parsed after the files
  * they depend on, with those types made known, and record what they import.
  */
object SchemaFiles {

  /** Every `.avsc` in `dir`, by record full name; the error names file and problem. */
  def load(dir: os.Path): Either[String, Map[String, SchemaFile]] =
    if (!os.isDir(dir)) Left(s"$dir: no such schema directory")
    else {
      val files = os.list(dir).filter(p => os.isFile(p) && p.ext == "avsc").sorted.toList
      files.foldLeft[Either[String, List[(os.Path, String)]]](Right(Nil)) { (acc, f) =>
        acc.flatMap(list => checkJson(f).map(text => list :+ (f -> text)))
      }.flatMap(resolve)
    }

  /** One file on its own, plus the types of `known` it may use (for `schemas check`). */
  def loadOne(file: os.Path, known: Map[String, SchemaFile]): Either[String, SchemaFile] = loadWithTypes(file, knownTypes(known.values))

  /** One file on its own, plus named types it may use (for `schemas diff`: those of the version it is compared with). */
  def loadWithTypes(file: os.Path, types: Map[String, Schema]): Either[String, SchemaFile] =
    checkJson(file).flatMap(text => parseWith(file, text, types).left.map(e => s"$file: $e"))

  private def checkJson(f: os.Path): Either[String, String] = {
    bankops.base.TextFile.read(f).flatMap(text => bankops.base.JsonInput.parse(text).left.map(e => s"$f: $e").map(_ => text))
  }

  /** Parses files whose dependencies are parsed, repeating until all are done or none progresses. */
  private def resolve(pending: List[(os.Path, String)]): Either[String, Map[String, SchemaFile]] = {
    @annotation.tailrec
    def loop(todo: List[(os.Path, String)], done: List[SchemaFile]): Either[String, List[SchemaFile]] =
      if (todo.isEmpty) Right(done)
      else {
        val known = knownTypes(done)
        val attempts = todo.map { case (f, text) => (f, text, parseWith(f, text, known)) }
        val parsed = attempts.collect { case (_, _, Right(s)) => s }
        if (parsed.isEmpty) {
          val (f, _, err) = attempts.head
          Left(s"$f: ${err.left.getOrElse("")}")
        } else loop(attempts.collect { case (f, t, Left(_)) => (f, t) }, done ++ parsed)
      }
    loop(pending, Nil).flatMap { all =>
      val byName = all.groupBy(_.fullName)
      byName.collectFirst { case (name, fs) if fs.size > 1 => s"${fs.map(_.path).mkString(" and ")} both define $name" }
        .toLeft(byName.map { case (n, fs) => n -> fs.head })
    }
  }

  /** Every named type the given schemas define, so a later file may use them. */
  private def knownTypes(files: Iterable[SchemaFile]): Map[String, Schema] =
    NamedTypes.byName(files.map(_.schema))

  private def parseWith(f: os.Path, text: String, known: Map[String, Schema]): Either[String, SchemaFile] = {
    val plain = Try(new Schema.Parser().setValidateDefaults(true).parse(text))
    plain match {
      case Success(s) if s.getType == Schema.Type.RECORD => Right(SchemaFile(f, s, Nil, compact(text)))
      case Success(s) => Left(s"top-level type must be a record, not ${s.getType.getName}")
      case TryFailure(e: SchemaParseException) if known.nonEmpty && undefinedName(e) =>
        val parser = new Schema.Parser().setValidateDefaults(true)
        parser.addTypes(known.asJava)
        Try(parser.parse(text)).toEither.left.map(describe).flatMap { s =>
          // A name both known before and used here came from another file: it cannot be redefined.
          Right(SchemaFile(f, s, NamedTypes.of(s).map(_.getFullName).distinct.filter(known.contains).sorted, compact(text)))
        }
      case TryFailure(e) => Left(describe(e))
    }
  }

  private def compact(text: String): String = parse(text).map(_.noSpaces).getOrElse(text)

  private def undefinedName(e: Throwable): Boolean =
    Option(e.getMessage).exists(m => m.contains("is not a defined name") || m.contains("Undefined name"))

  private def describe(e: Throwable): String = s"not a valid Avro schema: ${Option(e.getMessage).getOrElse(e.getClass.getSimpleName)}"
}
