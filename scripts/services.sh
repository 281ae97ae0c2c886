#!/usr/bin/env bash
# Bring up what the browser and database tests need: Debian's Chromium and a
# private PostgreSQL server on 127.0.0.1. Safe to run again: it reuses what is there.
# The last two lines on stdout are the settings for the tests:
#   PY421_TEST_POSTGRES=postgresql+psycopg://postgres@127.0.0.1:PORT/py421test
#   PY421_CHROMIUM=/usr/bin/chromium
# Everything else goes to stderr. The server keeps running afterwards;
#   bash scripts/services.sh status    says whether it runs, and how to stop it
#   bash scripts/services.sh stop      stops it (its data stay for the next start)
# Environment: PY421_PG_PORT (default 55432), PY421_PG_DIR (default /tmp/py421-pg).
set -euo pipefail

# Keep stdout for the two result lines only.
exec 3>&1 1>&2

# Run a command with no file descriptor open but 0, 1 and 2 (Python's subprocess
# closes the rest). Whatever may leave a daemon behind (apt's post-install scripts,
# pg_ctl) runs this way: a daemon holding a caller's pipe keeps it waiting forever.
no_inherited_fds() {
    python3 -c 'import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))' "$@"
}

port=${PY421_PG_PORT:-55432}
base=$(realpath -m "${PY421_PG_DIR:-/tmp/py421-pg}")
data=$base/data
db=py421test
wait_s=30

die() {
    echo "services.sh: $*" >&2
    exit 1
}

[[ $port =~ ^[0-9]+$ ]] || die "PY421_PG_PORT must be a port number, not '$port'"

mode=${1:-start}
case $mode in
    start | status | stop) ;;
    *) die "unknown mode '$mode'; accepted: start (the default), status, stop" ;;
esac

as_root=()
if [[ $(id -u) -ne 0 ]] && command -v sudo > /dev/null; then
    as_root=(sudo -n)
fi

# The command that stops this server, with the settings that differ from the defaults.
stop_command="bash scripts/services.sh stop"
[[ $base != /tmp/py421-pg ]] && stop_command="PY421_PG_DIR=$base $stop_command"
[[ $port != 55432 ]] && stop_command="PY421_PG_PORT=$port $stop_command"

if [[ $mode != start ]]; then
    pg_bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
    answering=false
    if [[ -x $pg_bin/pg_isready ]] && "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$port" -t 2; then
        answering=true
    fi
    if [[ $mode == status ]]; then
        if $answering; then
            echo "services.sh: PostgreSQL for the tests is running on 127.0.0.1:$port; stop it with: $stop_command"
        else
            echo "services.sh: PostgreSQL for the tests is not running on 127.0.0.1:$port"
        fi
        exit 0
    fi
    if [[ ! -f $data/postmaster.pid ]]; then
        $answering && die "a server answers on 127.0.0.1:$port, but not from $data: stop it where it was started"
        echo "services.sh: PostgreSQL is not running from $data: nothing to stop"
        exit 0
    fi
    served_port=$(sed -n 4p "$data/postmaster.pid")
    # The server's own binaries, and its own user: pg_ctl refuses to run as root.
    own_bin=/usr/lib/postgresql/$(< "$data/PG_VERSION")/bin
    [[ -x $own_bin/pg_ctl ]] && pg_bin=$own_bin
    as_pg=()
    [[ $(id -u) -eq 0 ]] && as_pg=(runuser -u postgres --)
    cd "$base" # the server user may not be allowed into the caller's directory
    if ! "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$data" -m fast -w -t "$wait_s" stop > "$base/pg_ctl.log" 2>&1; then
        cat "$base/pg_ctl.log"
        die "PostgreSQL in $data did not stop (log: $base/postgres.log)"
    fi
    echo "services.sh: stopped PostgreSQL on 127.0.0.1:$served_port (its data stay in $data)"
    exit 0
fi

# --- Debian packages -------------------------------------------------------

missing=()
for pkg in chromium postgresql; do
    dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q 'ok installed' || missing+=("$pkg")
done

if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 && ${#as_root[@]} -eq 0 ]]; then
        die "missing Debian packages (${missing[*]}) and neither root nor sudo to install them"
    fi
    echo "services.sh: installing ${missing[*]}..."
    apt_log=$(mktemp)
    trap 'rm -f "$apt_log"' EXIT
    apt_install() {
        no_inherited_fds "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y -q --no-install-recommends "${missing[@]}" >> "$apt_log" 2>&1
    }
    # The package lists are fetched only when they are too old or absent to install from.
    if ! apt_install; then
        if ! "${as_root[@]}" apt-get update -q >> "$apt_log" 2>&1 || ! apt_install; then
            cat "$apt_log"
            die "apt-get could not install ${missing[*]}"
        fi
    fi
fi

chromium=$(command -v chromium) || die "chromium is installed but not on PATH"

# --- PostgreSQL --------------------------------------------------------------

# A data directory made by an older server keeps its own binaries; otherwise the newest.
if [[ -f $data/PG_VERSION && -x /usr/lib/postgresql/$(< "$data/PG_VERSION")/bin/postgres ]]; then
    pg_bin=/usr/lib/postgresql/$(< "$data/PG_VERSION")/bin
else
    pg_bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
[[ -x $pg_bin/postgres ]] || die "no PostgreSQL server binaries under /usr/lib/postgresql"

# PostgreSQL refuses to run as root.
if [[ $(id -u) -eq 0 ]]; then
    as_pg=(runuser -u postgres --)
else
    as_pg=()
fi

# Answers 0 when accepting connections, 1 when starting or stopping, 2 when nobody answers.
pg_ready() {
    local rc=0
    "$pg_bin/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres -t 2 || rc=$?
    return $rc
}

wait_ready() {
    local deadline=$((SECONDS + wait_s))
    until pg_ready; do
        if ((SECONDS >= deadline)); then
            [[ -f $base/postgres.log ]] && tail -n 20 "$base/postgres.log"
            die "PostgreSQL on 127.0.0.1:$port not ready after ${wait_s}s (log: $base/postgres.log)"
        fi
        sleep 0.2
    done
}

rc=0
pg_ready || rc=$?
if ((rc == 1)); then
    wait_ready
elif ((rc != 0)); then
    mkdir -p "$base"
    if ((${#as_pg[@]})); then
        chown postgres:postgres "$base"
        "${as_pg[@]}" test -w "$base" ||
            die "the postgres user cannot write to $base: choose a PY421_PG_DIR it can reach"
    fi
    cd "$base" # the server user may not be allowed into the caller's directory

    # Two runs at once must not both initdb or start.
    exec 9> "$base/.lock"
    flock -w "$wait_s" 9 || die "another run holds $base/.lock"

    if ! pg_ready; then
        if [[ ! -f $data/PG_VERSION ]]; then
            # Left over from an interrupted initdb: nothing in it is worth keeping.
            rm -rf "$data"
            echo "services.sh: initdb $data ($pg_bin)"
            if ! "${as_pg[@]}" "$pg_bin/initdb" -D "$data" -U postgres --auth=trust \
                --encoding=UTF8 --locale=C --no-sync > "$base/initdb.log" 2>&1; then
                cat "$base/initdb.log"
                die "initdb failed"
            fi
        fi

        # After a reboot the pid file can name a live process that is not the server.
        if [[ -f $data/postmaster.pid ]]; then
            pid=$(head -1 "$data/postmaster.pid")
            comm=$(cat "/proc/$pid/comm" 2> /dev/null || true)
            if [[ $comm != postgres && $comm != postmaster ]]; then
                rm -f "$data/postmaster.pid"
            else
                die "$data is already served on port $(sed -n 4p "$data/postmaster.pid"), not $port:" \
                    "use that PY421_PG_PORT or stop it ($pg_bin/pg_ctl -D $data stop)"
            fi
        fi

        # A unix socket path is limited to 107 bytes.
        sockdir=$base
        ((${#base} + 16 < 107)) || sockdir=/tmp

        echo "services.sh: starting PostgreSQL on 127.0.0.1:$port"
        # Throwaway test data: durability is not worth the time.
        opts="-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$sockdir"
        opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        if ! no_inherited_fds "${as_pg[@]}" "$pg_bin/pg_ctl" -D "$data" -l "$base/postgres.log" \
            -w -t "$wait_s" -o "$opts" start > "$base/pg_ctl.log" 2>&1; then
            cat "$base/pg_ctl.log"
            [[ -f $base/postgres.log ]] && tail -n 20 "$base/postgres.log"
            die "PostgreSQL did not start on 127.0.0.1:$port (log: $base/postgres.log)"
        fi
    fi
    wait_ready
    cd /
fi

psql=("$pg_bin/psql" -X -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1)
exists=$("${psql[@]}" -tAc "select 1 from pg_database where datname = '$db'") ||
    die "cannot connect as postgres to 127.0.0.1:$port without a password"
if [[ $exists != 1 ]] && ! "${psql[@]}" -c "create database $db" 2> /dev/null; then
    # A run alongside may have just made it.
    [[ $("${psql[@]}" -tAc "select 1 from pg_database where datname = '$db'") == 1 ]] ||
        die "could not create database $db"
fi

# --- Chromium ----------------------------------------------------------------

chrome_log=$(mktemp)
if ! timeout 60 "$chromium" --headless --no-sandbox --disable-gpu --dump-dom about:blank \
    > "$chrome_log" 2>&1 || ! grep -qi '<html' "$chrome_log"; then
    cat "$chrome_log"
    rm -f "$chrome_log"
    die "$chromium does not run headless (--headless --no-sandbox --disable-gpu)"
fi
rm -f "$chrome_log"

echo "PY421_TEST_POSTGRES=postgresql+psycopg://postgres@127.0.0.1:$port/$db" >&3
echo "PY421_CHROMIUM=$chromium" >&3
