#!/usr/bin/env -S scala-cli shebang
//> using file ../project.scala
//> using file ../commands

// Validates balances on Kafka against PostgreSQL: `bankops balances validate`, flags passed through.
bankops.Main.main(Array("balances", "validate") ++ args)
