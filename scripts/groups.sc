#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Consumer-group lag and offset moves: `bankops groups`, flags passed through.
bankops.Main.main(Array("groups") ++ args)
