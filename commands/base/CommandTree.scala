package bankops.base

import com.monovore.decline.{Command, Opts}

/** A flag or option of a command: its names (`--output`, `-o`), its value's metavar when it takes one, its help. */
final case class FlagSpec(names: List[String], metavar: Option[String], help: String) {

  /** The values a metavar written `a|b|c` lists (as `--output table|json`); none otherwise. */
  def choices: List[String] = metavar.filter(_.contains('|')).map(_.split('|').toList.filter(_.nonEmpty)).getOrElse(Nil)
}

/** A command's shape as decline holds it: flags, positional arguments, subcommands. Shell completion is generated from
  * it, so it cannot drift from the options.
  */
final case class CommandTree(name: String, help: String, flags: List[FlagSpec], arguments: List[String], commands: List[CommandTree]) {

  /** Every command below and including this one, with its path of names from the root. */
  def paths: List[(List[String], CommandTree)] = {
    def go(prefix: List[String], t: CommandTree): List[(List[String], CommandTree)] =
      (prefix :+ t.name, t) :: t.commands.flatMap(go(prefix :+ t.name, _))
    go(Nil, this)
  }
}

object CommandTree {
  private final case class Parts(flags: Vector[FlagSpec] = Vector.empty, arguments: Vector[String] = Vector.empty,
                                 commands: Vector[CommandTree] = Vector.empty) {
    def ++(o: Parts): Parts = Parts(flags ++ o.flags, arguments ++ o.arguments, commands ++ o.commands)
  }

  /** decline keeps its `Opts` cases package-private; they are case classes, so their public `Product` side is read here.
    * A case this walk does not know (a newer decline) fails loudly: its test catches it before a script goes wrong.
    */
  def of(command: Command[_]): CommandTree = {
    val parts = walk(command.options)
    CommandTree(command.name, command.header, parts.flags.distinctBy(_.names).toList, parts.arguments.toList,
      parts.commands.toList)
  }

  private def unknown(what: Any) = new IllegalStateException(s"decline's options have a shape this walk does not know: $what")

  private def walk(opts: Any): Parts = opts match {
    case p: Product =>
      (p.productPrefix, p.productIterator.toList) match {
        case ("Single" | "Repeated", List(opt)) => single(opt)
        case ("Subcommand", List(c: Command[_])) => Parts(commands = Vector(of(c)))
        case ("App" | "OrElse", List(a, b)) => walk(a) ++ walk(b)
        case ("Validate", List(a, _)) => walk(a)
        case ("HelpFlag", List(flag)) => walk(flag)
        case ("Pure" | "Env", _) | ("Missing", Nil) => Parts()
        case _ => throw unknown(p.productPrefix)
      }
    case other => throw unknown(other)
  }

  private def single(opt: Any): Parts = opt match {
    case p: Product =>
      (p.productPrefix, p.productIterator.toList) match {
        case ("Regular", List(names: List[_], metavar: String, help: String, _)) =>
          Parts(flags = Vector(FlagSpec(nameList(names), Some(metavar), help)))
        case ("Flag", List(names: List[_], help: String, _)) => Parts(flags = Vector(FlagSpec(nameList(names), None, help)))
        case ("Argument", List(metavar: String)) => Parts(arguments = Vector(metavar))
        case _ => throw unknown(p.productPrefix)
      }
    case other => throw unknown(other)
  }

  private def nameList(names: List[_]): List[String] = names.map {
    case Opts.LongName(f) => s"--$f"
    case Opts.ShortName(c) => s"-$c"
    case other => throw unknown(other)
  }
}
