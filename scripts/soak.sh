#!/usr/bin/env bash
# Soak: verified mixed traffic over many iwarp connections, part of them through fault proxies (split, delay,
# corrupt, drop, reset), reconnecting after each session, for a bounded time; prints a summary and exits non-zero on
# any failure. Usage: scripts/soak.sh [DURATION] [jndk soak options...]   (DURATION: 60s, 10m, 1h; default 10m)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/jdk.sh"
jndk_require_jdk
jndk_require_maven
DURATION="${1:-10m}"
if [[ ! "$DURATION" =~ ^[0-9]+[smh]?$ ]]; then
    echo "soak: bad duration '$DURATION' (examples: 60s, 10m, 1h)" >&2
    exit 2
fi
shift $(( $# > 0 ? 1 : 0 ))
cd "$ROOT"
echo "soak: building jndk-tools..." >&2
if ! mvn -B -q -ntp -DskipTests package -pl jndk-tools -am >"$ROOT/jndk-tools/build.log" 2>&1; then
    echo "soak: the build failed; see jndk-tools/build.log" >&2
    tail -n 20 "$ROOT/jndk-tools/build.log" >&2
    exit 3
fi
exec "$JAVA_HOME/bin/java" -Xmx1g -XX:+UseParallelGC -Xss2m -jar "$ROOT/jndk-tools/target/jndk.jar" soak \
    --duration "$DURATION" "$@"
