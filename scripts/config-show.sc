#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Prints the effective connection settings; flags as for `bankops config show`.
bankops.Main.main(Array("config", "show") ++ args)
