#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Creates the topology's topics: `bankops topics apply`, flags passed through.
bankops.Main.main(Array("topics", "apply") ++ args)
