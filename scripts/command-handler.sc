#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands
// A long-running service with a small heap (the launcher gives `bankops handler` the same).
//> using javaOpt -Xmx128m

// The bank's command handler: `bankops handler`, flags passed through.
bankops.Main.main(Array("handler") ++ args)
