#!/usr/bin/env bash
# retr.sh: one big RETR into a file, `fetch get -o` beside `lftp get` and `curl -o`,
# and beside fetch built from another revision, side by side in one run; writes the
# medians and ratios to bench/retr.md.
#
#   bash scripts/bench/retr.sh [--rounds N] [--size MIB] [--base REV] [--out FILE]
#
#   --rounds N   rounds (default 9); each round runs every command once, in an
#                order that rotates from round to round, after one check run of
#                each (the file arrives byte-exact) that is not timed
#   --size MIB   size of the file (default 512): random bytes generated into the
#                server's tree for the run and removed at the end (never committed)
#   --base REV   also time fetch built from REV (default main), as "fetch (REV)"
#   --out FILE   the report (default bench/retr.md in the repository)
#
# The files are written under $TMPDIR (default /tmp): TMPDIR=/dev/shm takes the disk
# out of the comparison. Each output file is removed before the next command.
# Target (issue 17): fetch at most 0.8x the time of lftp (median of the per-round
# ratios).
#
# The server: the vsftpd named by FETCH_TEST_ENV (DIR/env from scripts/servers.sh)
# when set, else scripts/servers.sh is started in a temporary directory (root
# needed) and stopped at the end. Tools: curl, lftp, python3, go, git. Talks only to
# 127.0.0.1.
set -euo pipefail

prog=bench/retr
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

rounds=9 size=512 base=main out=""
invocation="bash scripts/bench/retr.sh $*"
[ -n "${TMPDIR:-}" ] && invocation="TMPDIR=$TMPDIR $invocation"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--size) size=${2:?}; shift 2 ;;
	--base) base=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,25p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case $rounds$size in *[!0-9]*) die "--rounds and --size take numbers" ;; esac
[ "$rounds" -ge 1 ] && [ "$rounds" -le 100 ] || die "--rounds must be 1..100"
[ "$size" -ge 1 ] && [ "$size" -le 4096 ] || die "--size must be 1..4096 (MiB)"

top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$top"
out=${out:-$top/bench/retr.md}
for tool in curl lftp python3 go git; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found (bash scripts/ci-deps.sh --bench)"
done
git rev-parse --verify -q "$base^{commit}" >/dev/null || die "--base $base is not a revision"

work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-bench-retr.XXXXXX")
srvdir="" bigfile=""
cleanup() {
	[ -n "$bigfile" ] && rm -f -- "$bigfile"
	[ -n "$srvdir" ] && bash "$top/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
	rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$top/scripts/bench/lib.sh"
bench_servers
addr=$(getenv FETCH_TEST_FTP)
root=$(getenv FETCH_TEST_ROOT)
[ -n "$addr" ] && [ -d "$root/ftp" ] || die "no usable vsftpd in $envfile"
case $addr in 127.0.0.1:*) ;; *) die "vsftpd at $addr is not on 127.0.0.1" ;; esac

say "building fetch, and fetch at $base"
go build -o "$work/fetch" ./cmd/fetch
mkdir -p "$work/base-src"
git archive "$base" | tar -x -C "$work/base-src"
(cd "$work/base-src" && go build -o "$work/fetch-base" ./cmd/fetch)
base_commit=$(git rev-parse --short "$base")
rm -rf -- "$work/base-src"

mkdir -p "$root/ftp/bench"
bigfile=$root/ftp/bench/retr-$size.bin
say "generating $size MiB in $bigfile"
head -c "$((size << 20))" /dev/urandom >"$bigfile"
chmod 0644 "$bigfile"
url=ftp://$addr/bench/retr-$size.bin
o=$work/out.bin

tools=(fetch base lftp curl)
cmd() {
	case $1 in
	fetch) echo "$work/fetch get -s -o $o $url" ;;
	base) echo "$work/fetch-base get -s -o $o $url" ;;
	lftp) echo "lftp -c 'get $url -o $o'" ;;
	curl) echo "curl -s -o $o $url" ;;
	esac
}
: >"$work/times"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for round in check $(seq 1 "$rounds"); do
	k=0
	[ "$round" != check ] && k=$round
	for ((j = 0; j < ${#tools[@]}; j++)); do
		t=${tools[$(((j + k) % ${#tools[@]}))]}
		rm -f -- "$o"
		s=$(date +%s%N)
		timeout 300 bash -c "$(cmd "$t")" >/dev/null 2>&1 || die "$t failed: $(cmd "$t")"
		e=$(date +%s%N)
		if [ "$round" = check ]; then
			cmp -s "$o" "$bigfile" || die "$t: the file differs from the server's"
		else
			echo "$t $round $(((e - s) / 1000))" >>"$work/times"
		fi
	done
	say "round $round of $rounds done"
done
rm -f -- "$o"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$(dirname -- "$out")"
export work rounds size base base_commit server_from load_before load_after invocation
export outfs="$(stat -f -c %T "$work")"
export machine="$(uname -srm); $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
export versions="$(go version | cut -d' ' -f3); $(lftp --version | head -n 1 | sed 's/ | Copyright.*//; s/ |//g'); $(curl --version | head -n 1 | cut -d' ' -f1-2); vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null || echo '?')"
export commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')"
export date="$(date -u '+%Y-%m-%d %H:%M UTC')"
python3 - "$out" <<'PY'
import collections, os, statistics, sys

env = os.environ
t = collections.defaultdict(dict)
with open(os.path.join(env["work"], "times")) as f:
    for line in f:
        tool, rnd, us = line.split()
        t[tool][int(rnd)] = int(us) / 1e6
label = {"fetch": "fetch get -o", "base": f"fetch get -o at {env['base']} ({env['base_commit']})",
         "lftp": "lftp get", "curl": "curl -o"}
def ratio(a, b):
    return statistics.median(t[a][r] / t[b][r] for r in t[a])
L = [f"# One RETR of {env['size']} MiB into a file: fetch beside lftp and curl", "",
     "Written by `scripts/bench/retr.sh`; do not edit by hand. One check run of each command",
     "(the file byte-exact), then rounds in which every command runs once, in an order that",
     "rotates; medians of the rounds, ratios are medians of the per-round ratios. The",
     "machine is shared with other work and noisy: compare within one run only.", "",
     f"- output file: under {os.path.dirname(env['work'])} ({env['outfs']})",
     f"- command: `{env['invocation'].strip()}`",
     f"- date: {env['date']}, commit {env['commit']}",
     f"- machine: {env['machine']}",
     f"- load average before / after: {env['load_before']} / {env['load_after']}",
     f"- versions: {env['versions']}",
     f"- servers: {env['server_from']}", "",
     "| command | median (s) | min to max (s) | ratio to lftp | ratio to fetch at base |",
     "| --- | ---: | --- | ---: | ---: |"]
for tool in ("fetch", "base", "lftp", "curl"):
    v = t[tool].values()
    L.append(f"| {label[tool]} | {statistics.median(v):.3f} | {min(v):.3f} to {max(v):.3f} | {ratio(tool, 'lftp'):.2f} | {ratio(tool, 'base'):.2f} |")
x = ratio("fetch", "lftp")
L += ["", f"Target (issue 17): fetch at most 0.8x lftp: {x:.2f}, {'met' if x <= 0.8 else 'MISSED'}.", ""]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(L))
PY
say "wrote $out"
