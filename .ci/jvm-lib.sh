# Sourced by the JVM install scripts (.ci/install-restcatalog,
# .ci/install-opensearch): the cache directory they share, Maven and a JDK,
# and the classpath of a POM's dependencies. Not a target of its own.
#
#   $ONTOINDEX_JVM_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/ontoindex-jvm),
#   the directory internal/testkit/jvmtest reads.

cache=${ONTOINDEX_JVM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ontoindex-jvm}
mkdir -p "$cache"

sudo=""
if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1 || ! command -v javac >/dev/null 2>&1; then
  echo "== installing Maven and a JDK"
  $sudo apt-get update
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y maven openjdk-17-jdk-headless
fi

# classpath POM OUT: the classpath of POM's dependencies into OUT, redone
# only when the POM changed since (its copy is kept beside OUT).
classpath() {
  local pom=$1 out=$2
  if [ -s "$out" ] && cmp -s "$pom" "$out.pom"; then
    return 0
  fi
  echo "== resolving $pom"
  mvn -q -B -Dstyle.color=never -f "$pom" dependency:build-classpath -Dmdep.outputFile="$out.tmp"
  mv "$out.tmp" "$out"
  cp "$pom" "$out.pom"
}
