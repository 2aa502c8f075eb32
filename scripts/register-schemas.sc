#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Registers the topology's schemas: `bankops schemas register`, flags passed through.
bankops.Main.main(Array("schemas", "register") ++ args)
