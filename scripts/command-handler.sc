#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands
// scala-cli reads only literal directives: these are bankops.base.JvmOptions.Handler (JvmOptionsSuite keeps them equal).
//> using javaOpt -XX:-UseParallelGC -XX:+UseSerialGC -Xms64m -Xmx128m -Xmn48m -Xss512k -XX:ReservedCodeCacheSize=48m -XX:MetaspaceSize=64m

// The bank's command handler: `bankops handler`, flags passed through.
bankops.Main.main(Array("handler") ++ args)
