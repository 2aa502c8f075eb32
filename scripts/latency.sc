#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// The original experiment: `bankops latency`, flags passed through.
bankops.Main.main(Array("latency") ++ args)
