# Sourced by the scripts: sets JAVA to the newest JDK 21+ (JAVA_HOME if it qualifies, else /usr/lib/jvm/*).
java_home() {
  local best="" best_version=0 home version
  for home in "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [ -n "$home" ] && [ -x "$home/bin/java" ] || continue
    version=$("$home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    version="${version%%.*}"
    if [ "${version:-0}" -ge 21 ] 2>/dev/null && [ "$version" -gt "$best_version" ]; then
      best="$home"; best_version="$version"
    fi
  done
  [ -n "$best" ] || { echo "No JDK 21+ found (set JAVA_HOME)" >&2; return 1; }
  echo "$best"
}
JAVA="$(java_home)/bin/java"
