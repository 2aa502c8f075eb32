#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Reads and decodes records: `bankops inspect`, flags passed through.
bankops.Main.main(Array("inspect") ++ args)
