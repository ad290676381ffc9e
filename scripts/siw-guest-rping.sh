#!/bin/sh
# Guest side of scripts/interop-siw.sh (runs inside the siw VM under dash; the share is /mnt/host).
# cases.env in the share sets COUNT, A_CASES ("SIZE:PORT ...": rping clients to jndk servers on the host,
# reached as 10.0.2.2) and B_SIZES ("SIZE ...": rping servers on :7174 for jndk clients on the host).
# Every case leaves NAME.log and NAME.rc in the share; a B case also hands over with ready.NAME / done.NAME.
S=/mnt/host
. "$S/cases.env"
HOST=${SIWVM_HOST:-10.0.2.2}

for p in /sys/module/siw/parameters/*; do printf '%s=%s\n' "${p##*/}" "$(cat "$p")"; done > "$S/siw-params.txt"
if [ "${CAPTURE:-0}" = 1 ]; then
    tcpdump -i eth0 -s 0 -U -w "$S/guest-eth0.pcap" tcp > "$S/tcpdump.log" 2>&1 &
    TCPDUMP=$!
    sleep 1
fi

# (a) siw rping client -> jndk rping server on the host.
for c in $A_CASES; do
    size=${c%%:*}
    port=${c#*:}
    timeout 90 rping -c -a "$HOST" -p "$port" -C "$COUNT" -S "$size" -V > "$S/a-$size.log" 2>&1
    echo $? > "$S/a-$size.rc"
done

# (b) jndk rping client on the host (through the 127.0.0.1:17174 -> :7174 forward) -> siw rping server.
for size in $B_SIZES; do
    rping -s -a 0.0.0.0 -p 7174 -C "$COUNT" -S "$size" -V > "$S/b-$size.log" 2>&1 &
    pid=$!
    i=0
    until ss -ltn | grep -q ':7174 '; do
        i=$((i + 1))
        if [ $i -gt 100 ]; then
            echo "guest: no listener on :7174 after 10 s" >> "$S/b-$size.log"
            ss -ltn >> "$S/b-$size.log"
            break
        fi
        sleep 0.1
    done
    touch "$S/ready.b-$size"
    i=0
    while [ ! -e "$S/done.b-$size" ] && [ $i -lt 1200 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    # rping's server ends when its client disconnects.
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    if kill -0 $pid 2>/dev/null; then
        echo "guest: rping server still running 10 s after the client ended; killed" >> "$S/b-$size.log"
        kill $pid
    fi
    wait $pid
    echo $? > "$S/b-$size.rc"
done

[ -n "${TCPDUMP:-}" ] && kill "$TCPDUMP" && sleep 1
exit 0
