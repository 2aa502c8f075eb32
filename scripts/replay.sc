#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Replays records between topics and files: `bankops replay`, flags passed through.
bankops.Main.main(Array("replay") ++ args)
