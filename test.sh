#!/usr/bin/env bash
# Runs the whole jndk test suite (unit, codec and conformance tests over every transport).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$ROOT/scripts/jdk.sh"
jndk_require_jdk
jndk_require_maven
cd "$ROOT"
exec mvn -B -ntp verify "$@"
