#!/usr/bin/env bash
# Prints a JDK 25 or newer to train the distribution's AOT cache with (./bankops dist --aot-jdk): BANKOPS_AOT_JDK if
# set, else the first under /usr/lib/jvm (a Temurin 25 sits beside the system's JDK 17 on this project's machines).
# Exit 1, printing nothing, when there is none.
set -euo pipefail
for jdk in ${BANKOPS_AOT_JDK:-} /usr/lib/jvm/*; do
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*"/\1/p' "$jdk/release" 2>/dev/null || true)
  if [ -x "$jdk/bin/java" ] && [ -n "$major" ] && [ "$major" -ge 25 ]; then echo "$jdk"; exit 0; fi
done
exit 1
