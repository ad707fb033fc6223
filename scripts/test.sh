#!/usr/bin/env bash
# test.sh: the project's test command.
#
#   bash scripts/test.sh [--install] [--keep] [GO TEST ARGS...]
#
# Starts the real servers (scripts/servers.sh) in a new temporary directory,
# runs `go test ./...` with FETCH_TEST_ENV pointing at their environment file,
# stops them on every exit path (success, failure, Ctrl-C) and exits with go
# test's status. Extra arguments go to go test (e.g. -count=1 -run Gopher); when
# one of them is a package pattern (./x/..., github.com/...) it replaces ./... .
#
#   --install  first install the Debian packages (scripts/ci-deps.sh)
#   --keep     keep the temporary directory (logs, fixtures) and print its path
#
# With CI=true every server must start and every integration test must find its
# server. Otherwise servers that cannot start are left out (SERVERS_OPTIONAL=1)
# and the tests that need them skip. Servers need root; without it sudo is used,
# and without sudo (locally) the tests run with no servers.
# The directory is made under /dev/shm when that is a tmpfs with room that
# allows executables (creating the ~4000 fixture files there takes 0.1 s, on a
# busy disk many seconds), else under $TMPDIR or /tmp; FETCH_TEST_TMP overrides.
set -euo pipefail

say() { printf 'test.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd -- "$here/.." && pwd -P)

install=0
keep=0
args=()
pkgs=0
while [ $# -gt 0 ]; do
	case $1 in
	--install) install=1 ;;
	--keep) keep=1 ;;
	--) shift; args+=("$@"); break ;;
	*) args+=("$1") ;;
	esac
	shift
done
for a in ${args[@]+"${args[@]}"}; do
	case $a in ./* | ../* | github.com/* | std | all) pkgs=1 ;; esac
done

ci=0
case ${CI:-} in true | TRUE | True | 1) ci=1 ;; esac

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	PATH=$PATH:/usr/local/go/bin
fi
command -v go >/dev/null 2>&1 || die "go not found"

# as_root CMD...: run CMD as root (directly, or through sudo).
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo -n -- "$@"
	fi
}
can_root=1
if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
	can_root=0
fi

if [ "$install" -eq 1 ]; then
	[ "$can_root" -eq 1 ] || die "--install needs root or sudo"
	as_root bash "$here/ci-deps.sh"
fi

# tmpfs_ok DIR: DIR is writable, has 100 MiB free and lets files execute.
tmpfs_ok() {
	local d=$1 avail probe
	[ -d "$d" ] && [ -w "$d" ] || return 1
	avail=$(df -Pk "$d" 2>/dev/null | awk 'NR == 2 {print $4}')
	[ -n "$avail" ] && [ "$avail" -ge 102400 ] || return 1
	probe=$(mktemp -p "$d" fetch-probe.XXXXXX) || return 1
	printf '#!/bin/sh\nexit 0\n' >"$probe"
	chmod 755 "$probe"
	if "$probe" 2>/dev/null; then
		rm -f "$probe"
		return 0
	fi
	rm -f "$probe"
	return 1
}

base=${FETCH_TEST_TMP:-}
if [ -z "$base" ]; then
	if tmpfs_ok /dev/shm; then
		base=/dev/shm
	else
		base=${TMPDIR:-/tmp}
	fi
fi

dir=""
sumbin=""
started=0
cleanup() {
	local rc=$?
	trap - EXIT INT TERM HUP
	[ -z "$sumbin" ] || rm -rf -- "$sumbin"
	if [ "$started" -eq 1 ]; then
		# Quiet when it works, so that the tests' summary stays the last line.
		if ! out=$(as_root bash "$here/servers.sh" stop "$dir" 2>&1); then
			printf '%s\n' "$out" >&2
			say "stopping the servers failed; see $dir/pids"
			[ "$rc" -ne 0 ] || rc=1
		fi
	fi
	if [ -n "$dir" ]; then
		if [ "$keep" -eq 1 ]; then
			say "kept $dir"
		else
			as_root rm -rf -- "$dir" || say "could not remove $dir"
		fi
	fi
	exit "$rc"
}
# go test runs in its own session so that a signal to this script can stop it
# and every test binary it started (its process group), not just this shell.
gopid=""
on_signal() {
	if [ -n "$gopid" ]; then
		kill -TERM -- "-$gopid" 2>/dev/null || true
		wait "$gopid" 2>/dev/null || true
	fi
	exit "$1"
}
trap cleanup EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

export FETCH_TEST_ENV=""
if [ "$can_root" -eq 1 ]; then
	dir=$(mktemp -d -p "$base" fetch-test.XXXXXX)
	optional=1
	[ "$ci" -eq 1 ] && optional=0
	started=1
	if ! as_root env SERVERS_OPTIONAL="${SERVERS_OPTIONAL:-$optional}" bash "$here/servers.sh" start "$dir" >&2; then
		die "the test servers did not start"
	fi
	FETCH_TEST_ENV=$dir/env
elif [ "$ci" -eq 1 ]; then
	die "CI=true: the test servers need root or password-less sudo"
else
	say "no root and no sudo: running without servers (integration tests skip)"
	unset FETCH_TEST_ENV
fi

cd "$repo"
gotest=(go test)
[ "$pkgs" -eq 1 ] || gotest+=(./...)
gotest+=(${args[@]+"${args[@]}"})
# Unless the caller asked for -json itself, go test's events go through
# scripts/testsum: a line per package as it ends, the output of what failed,
# and the summary lines at the end.
json=0
for a in ${args[@]+"${args[@]}"}; do
	[ "$a" = -json ] && json=1
done
if [ "$json" -eq 0 ]; then
	sumbin=$(mktemp -d "${TMPDIR:-/tmp}/fetch-testsum.XXXXXX")
	go build -o "$sumbin/testsum" ./scripts/testsum
	set -- "${gotest[@]}" -json
	runner=(bash -c 'set -o pipefail; bin=$1; shift; "$@" | "$bin"' testsum "$sumbin/testsum" "$@")
else
	runner=("${gotest[@]}")
fi
say "running: ${gotest[*]}"
# setsid does not fork here (this shell's background child is no group leader),
# so $! leads the new process group, and go and testsum are in it.
setsid "${runner[@]}" </dev/null &
gopid=$!
rc=0
wait "$gopid" || rc=$?
gopid=""
exit "$rc"
