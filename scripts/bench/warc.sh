#!/usr/bin/env bash
# warc.sh: what --warc-file costs a fresh mirror: `fetch mirror` without and with
# `--warc-file --warc-cdx`, side by side (scripts/bench/ab.sh: rounds interleaved,
# medians), of 2,000 small files from vsftpd and from nginx, on loopback and through
# scripts/bench/faultproxy at a 10 ms round trip; writes the medians, ratios and
# floors to bench/warc.md.
#
#   bash scripts/bench/warc.sh [--rounds N] [--far-rounds N] [--out FILE]
#
#   --rounds N      rounds on loopback (default 30)
#   --far-rounds N  rounds at 10 ms (default 6; a round there takes about 7 s)
#   --out FILE      the report (default bench/warc.md in the repository)
#
# Target (issue 16): WARC costs at most 10 % of a fresh mirror's time. The mirror
# targets and WARC files go to /dev/shm (tmpfs): the disk is not what is measured.
# The HTTP case mirrors a copy of the FTP tree's pub/many made under the server's
# www/ for the run (www/warc-bench-many) and removed at the end. Floors at 10 ms:
# one round trip a file over 8 connections (the mirror pipelines each next
# request), 2,000 x 10 ms / 8 = 2.5 s.
#
# The servers: those named by FETCH_TEST_ENV when set, else scripts/servers.sh is
# started in a temporary directory (root needed) and stopped at the end. Talks only
# to 127.0.0.1.
set -euo pipefail

prog=bench/warc
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

rounds=30 far=6 out=""
invocation="bash scripts/bench/warc.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--far-rounds) far=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,23p' "$0"; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done
for n in "$rounds" "$far"; do
	case $n in '' | *[!0-9]* | 0) die "rounds must be positive numbers" ;; esac
done
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${out:-$top/bench/warc.md}
[ -d /dev/shm ] || die "no /dev/shm"

work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-warc-bench.XXXXXX")
srvdir="" copy="" proxypids=()
cleanup() {
	for p in "${proxypids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$copy" ] && rm -rf "$copy"
	[ -n "$srvdir" ] && bash "$top/scripts/servers.sh" stop "$srvdir" >&2 || true
	rm -rf "$work" /dev/shm/fetch-ab-warc /dev/shm/fetch-ab-warc.* 2>/dev/null || true
}
trap cleanup EXIT

# shellcheck source=scripts/bench/lib.sh
. "$top/scripts/bench/lib.sh"
bench_servers
ftp=$(getenv FETCH_TEST_FTP) nginx=$(getenv FETCH_TEST_NGINX) root=$(getenv FETCH_TEST_ROOT)
[ -n "$ftp" ] && [ -n "$nginx" ] && [ -n "$root" ] || die "$envfile names no FTP server, nginx or root"
[ -d "$root/ftp/pub/many" ] || die "no $root/ftp/pub/many"

say "building fetch and faultproxy"
(cd "$top" && go build -o "$work/fetch" ./cmd/fetch && go build -o "$work/faultproxy" ./scripts/bench/faultproxy)
copy=$root/www/warc-bench-many
rm -rf "$copy"
cp -r "$root/ftp/pub/many" "$copy"
chmod -R a+rX "$copy"

# proxy MODE TARGET: starts a faultproxy delaying every byte 5 ms each way (in this
# shell, so that cleanup stops it) and sets proxy_addr to its address.
proxy() {
	local f=$work/proxy.$1
	"$work/faultproxy" -target "$2" -mode "$1" -delay 5ms -for 2h >"$f" 2>&1 &
	proxypids+=($!)
	for _ in $(seq 50); do [ -s "$f" ] && break; sleep 0.1; done
	proxy_addr=$(head -n 1 "$f")
	case $proxy_addr in 127.0.0.1:*) ;; *) die "faultproxy did not start: $(cat "$f")" ;; esac
}
proxy ftp "$ftp"
ftpfar=$proxy_addr
proxy http "$nginx"
httpfar=$proxy_addr

# row NAME ROUNDS URL: one ab.sh series; appends a table row to $work/rows.
row() {
	local name=$1 n=$2 url=$3 res
	say "$name: $n rounds"
	# The WARC files of the last round are removed before each command
	# (PREP, not timed), so that B's time is not charged with removing them.
	res=$(TARGET=/dev/shm/fetch-ab-warc PREP='rm -f /dev/shm/fetch-ab-warc.*' bash "$top/scripts/bench/ab.sh" "$envfile" "$n" \
		"$work/fetch mirror -s -j 8 $url \$TARGET" \
		"$work/fetch mirror -s -j 8 --warc-file /dev/shm/fetch-ab-warc --warc-cdx $url \$TARGET")
	printf '%s\n' "$res" >&2
	printf '%s\n' "$res" | awk -v name="$name" '
		/^  wall/ { wa = $3; wb = $5; wr = $7 }
		/^  command CPU/ { ca = $4; cb = $6; cr = $8 }
		END { printf "| %s | %d ms | %d ms | **%s** | %d ms | %d ms | %s |\n", name, wa, wb, wr, ca, cb, cr }' >>"$work/rows"
}
load0=$(cut -d' ' -f1-3 /proc/loadavg)
row "FTP, loopback" "$rounds" "ftp://$ftp/pub/many/"
row "HTTP, loopback" "$rounds" "http://$nginx/warc-bench-many/"
row "FTP, 10 ms round trip (floor 2.5 s)" "$far" "ftp://$ftpfar/pub/many/"
row "HTTP, 10 ms round trip (floor 2.5 s)" "$far" "http://$httpfar/warc-bench-many/"
load1=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "# What --warc-file costs a fresh mirror of 2,000 small files"
	echo
	echo "Written by \`scripts/bench/warc.sh\`; do not edit by hand. Each series is"
	echo "\`scripts/bench/ab.sh\`: A is \`fetch mirror -s -j 8 URL DIR\`, B the same with"
	echo "\`--warc-file --warc-cdx\`, rounds interleaved, medians; the target and the WARC"
	echo "files on tmpfs, the last round's WARC files removed before each command, untimed"
	echo "(ab.sh PREP). The machine is shared and noisy: compare within one run only."
	echo
	echo "- command: \`$invocation\`"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M') UTC, commit $(git -C "$top" rev-parse --short HEAD)"
	echo "- machine: $(uname -sr) $(uname -m); $(nproc) CPUs"
	echo "- load average before / after: $load0 / $load1"
	echo "- servers: $server_from"
	echo
	echo "| case | wall A (no WARC) | wall B (WARC) | B/A wall | CPU A | CPU B | B/A CPU |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	cat "$work/rows"
	echo
	echo "Target (issue 16): B/A wall at most 1.10."
} >"$out"
say "wrote $out"
