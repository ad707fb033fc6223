#!/usr/bin/env bash
# ab.sh: compare two commands that each mirror into $TARGET, side by side.
#
#   bash scripts/bench/ab.sh ENVFILE ROUNDS 'COMMAND A' 'COMMAND B'
#
# Each round runs A then B (B then A every other round), each from the same state:
# TARGET removed (default /dev/shm/fetch-ab, exported to the commands; its name must
# start with fetch-ab), the TIME_WAIT connections to or from the passive ports of
# ENVFILE's vsftpd removed with `ss -K` (root), `sync`. It prints, for A and B, the
# median wall time, the command's own CPU time (user + system, from /usr/bin/time)
# and the machine's busy CPU time over the run (user + nice + system + irq + softirq
# in /proc/stat, so that the servers' work counts too), and the ratios B/A. The
# commands are run with `bash -c`; FETCH_TEST_FTP and the other lines of ENVFILE are
# in their environment. PREP, when set, is a command run (with `bash -c`, not timed)
# before each of them, for the cleaning the state needs besides TARGET (the WARC
# files of the last run): in the timed command, its process and its work would be
# counted to that command alone. Only 127.0.0.1 is contacted (by the commands you
# give).
set -euo pipefail

die() { printf 'bench/ab: %s\n' "$*" >&2; exit 1; }
[ $# -eq 4 ] || die "usage: ab.sh ENVFILE ROUNDS 'COMMAND A' 'COMMAND B'"
envfile=$1 rounds=$2 a=$3 b=$4
case $rounds in '' | *[!0-9]* | 0) die "ROUNDS must be a positive number" ;; esac
[ -r "$envfile" ] || die "cannot read $envfile"
command -v python3 >/dev/null || die "python3 not found"
[ -x /usr/bin/time ] || die "/usr/bin/time not found (Debian package time)"
set -a
# shellcheck disable=SC1090
. <(grep -E '^FETCH_TEST_[A-Z_]+=' "$envfile")
set +a
export TARGET=${TARGET:-/dev/shm/fetch-ab}
# TARGET is deleted before every run: only a directory named for this script.
case $(basename -- "$TARGET") in fetch-ab*) ;; *) die "TARGET=$TARGET: its name must start with fetch-ab" ;; esac
pasv=${FETCH_TEST_FTP_PASV:-}
filter=""
[ -n "$pasv" ] && filter="( sport >= :${pasv%-*} and sport <= :${pasv#*-} ) or ( dport >= :${pasv%-*} and dport <= :${pasv#*-} )"

work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-ab.XXXXXX")
trap 'rm -rf "$work" "$TARGET"' EXIT

busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
tick=$(getconf CLK_TCK)
one() { # one COMMAND OUTFILE: append "wall_ms cpu_ms busy_ms"
	rm -rf "$TARGET"
	[ -n "${PREP:-}" ] && { bash -c "$PREP" || die "PREP failed: $PREP"; }
	[ -n "$filter" ] && { ss -K -Htn state time-wait "$filter" >/dev/null 2>&1 || true; }
	sync
	sleep 0.3
	local b0 t0 t1 b1
	b0=$(busy) t0=$(date +%s%N)
	/usr/bin/time -f '%U %S' -o "$work/time" bash -c "$1" >/dev/null 2>"$work/err" || die "failed: $1: $(tail -3 "$work/err")"
	t1=$(date +%s%N) b1=$(busy)
	echo "$(((t1 - t0) / 1000000)) $(awk '{printf "%d", ($1 + $2) * 1000}' "$work/time") $(((b1 - b0) * 1000 / tick))" >>"$2"
}
for ((i = 0; i < rounds; i++)); do
	if ((i % 2 == 0)); then one "$a" "$work/a"; one "$b" "$work/b"; else one "$b" "$work/b"; one "$a" "$work/a"; fi
done
python3 - "$work/a" "$work/b" "$rounds" <<'PY'
import statistics, sys
a, b = ([list(map(float, l.split())) for l in open(f)] for f in sys.argv[1:3])
print(f"{sys.argv[3]} rounds, medians (ms):")
for i, what in enumerate(["wall", "command CPU", "machine busy CPU"]):
    ma, mb = statistics.median(x[i] for x in a), statistics.median(x[i] for x in b)
    print(f"  {what:17} A {ma:7.0f}  B {mb:7.0f}  B/A {mb / ma:.3f}")
PY
