#!/bin/sh
# Starts and stops the etcd that the tests use: members on free loopback
# ports with temporary data folders, so that no test depends on an etcd
# started by hand. CTest runs `start` and `stop` as FIXTURES_SETUP and
# FIXTURES_CLEANUP tests (tests/etcd/CMakeLists.txt); cleanup runs even when
# tests fail.
#
#   etcd-fixture.sh start DIR [MEMBERS] [auth|tls]   start a cluster; DIR/endpoints gets the
#                                                client URLs, comma-separated
#   etcd-fixture.sh stop DIR                     stop every member and remove DIR
#   etcd-fixture.sh kill-member DIR N            SIGKILL member N (0-based)
#   etcd-fixture.sh start-member DIR N           start member N again on its data
#   etcd-fixture.sh kill-all DIR                 SIGKILL every member (etcd lost)
#   etcd-fixture.sh start-all DIR                start every member again, wait for quorum
#
# With "auth": user root (role root) and user "baton" with read-write on the
# prefix "auth/", authentication enabled; DIR/credentials holds "baton:<password>".
# The passwords come from the suite's secrets file (BATON_TEST_SECRETS,
# tests/common/test-secrets.txt), so that the secrets scan knows them (R2).
#
# With "tls": clients speak HTTPS and must show a certificate signed by the
# fixture's CA (--client-cert-auth). A throw-away PKI is made with openssl in
# DIR/pki at every start: ca.crt; server.crt/.key for 127.0.0.1 (also for
# client use: etcd's JSON gateway calls its own gRPC server with it); a client
# certificate client.crt/.key (CN baton); and, for the error cases, a CA
# that signed nothing (other-ca.crt), an expired client certificate
# (expired.crt/.key) and a key that belongs to no certificate (other.key).
#
# With BATON_TEST_ARTIFACTS set, `stop` keeps each member's log there for the
# secrets scan: etcd logs what it was asked, and must not have been given a
# secret in the clear either.
set -eu

command=${1:?usage: etcd-fixture.sh start|stop|kill-member|start-member DIR ...}
dir=${2:?DIR missing}
ctl() {
    if [ -f "$dir/pki/ca.crt" ]; then
        set -- --cacert="$dir/pki/ca.crt" --cert="$dir/pki/client.crt" --key="$dir/pki/client.key" "$@"
    fi
    etcdctl --dial-timeout=2s --command-timeout=5s "$@"
}

# make_pki: the certificates of the "tls" mode (P-256 keys: quick to make).
make_pki() {
    pki="$dir/pki"
    mkdir -p "$pki"
    (
        cd "$pki"
        umask 077
        key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"; }
        ca() { key "$1" && openssl req -x509 -new -key "$1.key" -subj "/CN=$2" -days 2 -out "$1.crt"; }
        # sign NAME SUBJECT DAYS EXTENSIONS: NAME.crt for NAME.key, signed by ca.
        sign() {
            printf '%b' "$4" > "$1.ext"
            openssl req -new -key "$1.key" -subj "$2" -out "$1.csr" &&
                openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial \
                    -days "$3" -extfile "$1.ext" -out "$1.crt"
        }
        ca ca "baton test etcd CA" &&
            key server && sign server "/CN=127.0.0.1" 2 \
                "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n" &&
            key client && sign client "/CN=baton" 2 "extendedKeyUsage=clientAuth\n" &&
            key expired && sign expired "/CN=baton" -1 "extendedKeyUsage=clientAuth\n" &&
            ca other-ca "baton test CA that signed nothing" &&
            key other
    ) >"$dir/pki.log" 2>&1 || {
        echo "etcd-fixture: openssl could not make the certificates:" >&2
        cat "$dir/pki.log" >&2
        return 1
    }
}

port_free() {
    # A port is taken when something accepts a connection on it.
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

pick_port() {
    while :; do
        port=$(( 20000 + $(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 40000 ))
        if port_free "$port" && ! grep -qx "$port" "$dir/ports" 2>/dev/null; then
            echo "$port" >> "$dir/ports"
            echo "$port"
            return
        fi
    done
}

tls_flags() {
    [ -f "$dir/pki/ca.crt" ] || return 0
    echo "--cert-file $dir/pki/server.crt --key-file $dir/pki/server.key" \
         "--client-cert-auth --trusted-ca-file $dir/pki/ca.crt"
}

start_member() {
    n=$1
    m="$dir/member-$n"
    etcd --name "m$n" --data-dir "$m/data" \
        --listen-client-urls "$(cat "$m/client")" --advertise-client-urls "$(cat "$m/client")" \
        --listen-peer-urls "$(cat "$m/peer")" --initial-advertise-peer-urls "$(cat "$m/peer")" \
        --initial-cluster "$(cat "$dir/initial-cluster")" --initial-cluster-state new \
        --initial-cluster-token "baton-test-$$" \
        --heartbeat-interval 50 --election-timeout 500 \
        $(tls_flags) >>"$m/log" 2>&1 &
    echo $! > "$m/pid"
}

wait_healthy() {
    # etcd takes about a second; a cluster needs its quorum. With auth on,
    # the health check reads a key, which takes root's credentials.
    user=""
    [ -f "$dir/root-credentials" ] && user="--user=$(cat "$dir/root-credentials")"
    i=0
    while [ $i -lt 150 ]; do
        if ctl --endpoints="$1" $user endpoint health >/dev/null 2>&1; then
            return 0
        fi
        # A member that exited (its port taken meanwhile, say) will never
        # answer: start again on new ports rather than wait it out.
        for pidfile in "$dir"/member-*/pid; do
            [ -f "$pidfile" ] || continue
            kill -0 "$(cat "$pidfile")" 2>/dev/null || { echo "etcd-fixture: $(basename "$(dirname "$pidfile")") exited" >&2; return 1; }
        done
        i=$((i + 1))
        sleep 0.1
    done
    return 1
}

stop_all() {
    for pidfile in "$dir"/member-*/pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        kill "$pid" 2>/dev/null || true
    done
    for pidfile in "$dir"/member-*/pid; do
        [ -f "$pidfile" ] || continue
        pid=$(cat "$pidfile")
        i=0
        while kill -0 "$pid" 2>/dev/null && [ $i -lt 10 ]; do sleep 0.1; i=$((i + 1)); done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$pidfile"
    done
}

case "$command" in
start)
    members=${3:-1}
    auth=${4:-}
    scheme=http
    [ "$auth" = tls ] && scheme=https
    attempt=0
    while :; do
        stop_all
        rm -rf "$dir"
        mkdir -p "$dir"
        if [ "$auth" = tls ]; then
            make_pki || exit 1
        fi
        cluster=""
        endpoints=""
        n=0
        while [ $n -lt "$members" ]; do
            mkdir -p "$dir/member-$n"
            echo "$scheme://127.0.0.1:$(pick_port)" > "$dir/member-$n/client"
            echo "http://127.0.0.1:$(pick_port)" > "$dir/member-$n/peer"
            cluster="${cluster:+$cluster,}m$n=$(cat "$dir/member-$n/peer")"
            endpoints="${endpoints:+$endpoints,}$(cat "$dir/member-$n/client")"
            n=$((n + 1))
        done
        echo "$cluster" > "$dir/initial-cluster"
        n=0
        while [ $n -lt "$members" ]; do start_member $n; n=$((n + 1)); done
        if wait_healthy "$endpoints"; then
            break
        fi
        attempt=$((attempt + 1))
        if [ $attempt -ge 3 ]; then
            echo "etcd-fixture: etcd did not become healthy; its log:" >&2
            cat "$dir"/member-*/log >&2
            stop_all
            exit 1
        fi
    done
    if [ "$auth" = auth ]; then
        e="--endpoints=$endpoints"
        secret() {
            awk -v name="$1" '$1 == name { print $2 }' "${BATON_TEST_SECRETS:?BATON_TEST_SECRETS unset}"
        }
        password=$(secret etcd-password)
        root_password=$(secret etcd-root-password)
        [ -n "$password" ] && [ -n "$root_password" ] || {
            echo "etcd-fixture: no etcd passwords in $BATON_TEST_SECRETS" >&2
            stop_all
            exit 1
        }
        ctl "$e" user add "root:$root_password" >/dev/null
        ctl "$e" user grant-role root root >/dev/null
        ctl "$e" user add "baton:$password" >/dev/null
        ctl "$e" role add baton >/dev/null
        ctl "$e" role grant-permission baton --prefix=true readwrite auth/ >/dev/null
        ctl "$e" user grant-role baton baton >/dev/null
        ctl "$e" auth enable >/dev/null
        echo "baton:$password" > "$dir/credentials"
        echo "root:$root_password" > "$dir/root-credentials"
    fi
    # Written last: its presence means the cluster is ready.
    echo "$endpoints" > "$dir/endpoints"
    echo "etcd-fixture: $members member(s) at $endpoints"
    ;;
stop)
    stop_all
    if [ -n "${BATON_TEST_ARTIFACTS:-}" ]; then
        kept="$BATON_TEST_ARTIFACTS/etcd-log/$(basename "$dir")"
        mkdir -p "$kept"
        for log in "$dir"/member-*/log; do
            [ -f "$log" ] && cp "$log" "$kept/$(basename "$(dirname "$log")").log"
        done
    fi
    rm -rf "$dir"
    ;;
kill-member)
    pidfile="$dir/member-${3:?N missing}/pid"
    kill -9 "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
    ;;
start-member)
    n=${3:?N missing}
    start_member "$n"
    wait_healthy "$(cat "$dir/member-$n/client")" || {
        echo "etcd-fixture: member $n did not come back" >&2
        exit 1
    }
    ;;
kill-all)
    for pidfile in "$dir"/member-*/pid; do
        [ -f "$pidfile" ] || continue
        kill -9 "$(cat "$pidfile")" 2>/dev/null || true
        rm -f "$pidfile"
    done
    ;;
start-all)
    n=0
    for member in "$dir"/member-*; do
        start_member $n
        n=$((n + 1))
    done
    wait_healthy "$(cat "$dir/endpoints")" || {
        echo "etcd-fixture: the cluster did not come back" >&2
        exit 1
    }
    ;;
*)
    echo "etcd-fixture: unknown command $command" >&2
    exit 2
    ;;
esac
