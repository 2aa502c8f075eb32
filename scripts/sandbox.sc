#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Starts, inspects or stops the local services: sandbox.sc up|status|down|logs|env [flags].
bankops.Main.main(Array("sandbox") ++ args)
