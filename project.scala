// The single source of truth for the Scala version, every dependency and the
// compiler options. scala-cli reads it directly; build.sbt parses it strictly.
//> using scala 2.13.17
//> using options -deprecation -feature -unchecked -Xlint:-byname-implicit,_ -Wunused:imports,privates,locals
//> using mainClass bankops.Main
// A short-lived CLI that streams records: the throughput collector with a fixed young generation ran
// inspect ~25% faster than G1 here, in half the memory (tests/bench/inspect-throughput.sh).
//> using javaOpt -XX:+UseParallelGC -Xmn256m
// TLS runs through the JDK's crypto in Java until C2 compiles its callers, which in a seconds-long run
// came too late: Java GHASH was a quarter of replay's CPU. Compiling the crypto providers early puts
// AES-GCM and SHA-2 on their CPU intrinsics from the first megabytes (replay of 500k: ~5.1 s -> ~4.3 s).
//> using javaOpt -XX:CompileCommand=quiet "-XX:CompileCommand=CompileThresholdScaling,com.sun.crypto.provider.*::*,0.05"
//> using javaOpt "-XX:CompileCommand=CompileThresholdScaling,sun.security.provider.*::*,0.05"
// Cats Effect's fiber tracing looks up each IO's call site as it is built: ~5% of replay --from-file's CPU in a profile.
// bankops reports a failure as one line, never a fiber trace, so it is off.
//> using javaOpt -Dcats.effect.tracing.mode=none

//> using dep com.github.fd4s::fs2-kafka:3.9.1
//> using dep com.github.fd4s::vulcan:1.12.0
//> using dep io.circe::circe-core:0.14.15
//> using dep io.circe::circe-parser:0.14.15
//> using dep io.circe::circe-generic:0.14.15
//> using dep com.monovore::decline:2.4.1
//> using dep com.lihaoyi::os-lib:0.11.5
//> using dep org.scala-lang.modules::scala-parallel-collections:1.2.0
//> using dep org.postgresql:postgresql:42.7.8
//> using dep io.get-coursier:interface:1.0.30
//> using dep org.slf4j:slf4j-simple:2.0.17
//> using dep org.hdrhistogram:HdrHistogram:2.2.2
//> using dep org.knowm.xchart:xchart:3.8.8
// XChart declares its SVG writer optional: SVG charts need it on the classpath.
//> using dep de.erichseifert.vectorgraphics2d:VectorGraphics2D:0.13
// The sandbox's CA and certificates, made in the JVM (commands/jobs/sandbox/Certificates.scala).
//> using dep org.bouncycastle:bcpkix-jdk18on:1.87
// Capture's records files as zstd frames (level 1: a fifth of deflate's CPU); the version kafka-clients 3.9.1 ships.
//> using dep com.github.luben:zstd-jni:1.5.6-4

//> using test.dep org.scalameta::munit:1.2.1
//> using test.dep org.scalameta::munit-scalacheck:1.2.0
//> using test.dep org.typelevel::munit-cats-effect:2.1.0
// The workflow harness (tests/workflows) reads .github/workflows/*.yml.
//> using test.dep org.yaml:snakeyaml:2.4
