#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Produces records from JSON, checked against the registry's schema: `bankops produce`, flags passed through.
bankops.Main.main(Array("produce") ++ args)
