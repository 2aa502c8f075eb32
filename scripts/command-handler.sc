#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands
// A long-running service with a small heap (the launcher gives `bankops handler` the same, and says why).
//> using javaOpt -Xms16m -Xmx48m -Xmn8m -XX:TieredStopAtLevel=1 -XX:MetaspaceSize=64m

// The bank's command handler: `bankops handler`, flags passed through.
bankops.Main.main(Array("handler") ++ args)
