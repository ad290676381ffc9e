# Sourced by ./jndk and ./test.sh: finds JDK 25 (JAVA_HOME when it is 25 or newer, else /usr/lib/jvm/*25*)
# and Maven, and says clearly what is missing.

jndk_java_major() {
    "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n1
}

jndk_find_jdk() {
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
        local v
        v=$(jndk_java_major "$JAVA_HOME")
        if [ -n "$v" ] && [ "${v%%.*}" -ge 25 ] 2>/dev/null; then
            echo "$JAVA_HOME"
            return 0
        fi
    fi
    local d
    for d in /usr/lib/jvm/*25*; do
        if [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ]; then
            echo "$d"
            return 0
        fi
    done
    return 1
}

jndk_require_jdk() {
    local given="${JAVA_HOME:-unset}"
    if ! JAVA_HOME=$(jndk_find_jdk); then
        echo "jndk: JDK 25 not found." >&2
        echo "  Looked at JAVA_HOME ($given; needs Java 25 or newer) and /usr/lib/jvm/*25*." >&2
        echo "  Install a JDK 25 (for example Temurin 25) or point JAVA_HOME at one." >&2
        exit 3
    fi
    export JAVA_HOME
}

jndk_require_maven() {
    if ! command -v mvn >/dev/null 2>&1; then
        echo "jndk: Maven (mvn) not found; it is needed to build jndk." >&2
        echo "  Install it (Debian/Ubuntu: apt-get install maven) and run the command again." >&2
        exit 3
    fi
}
