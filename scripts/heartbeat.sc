#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Generates heartbeat and command load: `bankops heartbeat`, flags passed through.
bankops.Main.main(Array("heartbeat") ++ args)
