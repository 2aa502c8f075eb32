#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Named cluster settings; subcommands and flags as for `bankops context`.
bankops.Main.main(Array("context") ++ args)
