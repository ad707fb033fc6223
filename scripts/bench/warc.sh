#!/usr/bin/env bash
# warc.sh: what --warc-file costs a fresh mirror: `fetch mirror` without and with
# `--warc-file --warc-cdx`, side by side (scripts/bench/ab.sh: rounds interleaved,
# medians), on loopback and through scripts/bench/faultproxy at a 10 ms and a 50 ms
# round trip (the proxy's link as fast as the loopback), and at 10 ms through a link
# of 1 Gbit/s (faultproxy -rate 125M, shared by the connections), for five trees:
# 2,000 files of 10 bytes (from vsftpd and from nginx), then, from nginx, 1,000
# random files of 10 KiB, 1,000 files of 10 KiB of text (Go source, which level-1
# deflate takes to about a third), 20 random files of 1 MiB and 20 of text; and
# for the other two schemes of the issue: a gopher menu of 2,000 texts of 17
# bytes from pygopherd (loopback), and three newsgroups of 880 articles from INN
# (loopback and 10 ms). The small files also at a round trip of 1 ms (a server
# on the local network).
# Then wget beside it: wget -r without and with its own --warc-file, and wget's WARC
# mirror against fetch's. Writes the medians, ratios and floors to bench/warc.md.
#
#   bash scripts/bench/warc.sh [--rounds N] [--far-rounds N] [--out FILE]
#
#   --rounds N      rounds on loopback (default 30; 10 for wget)
#   --far-rounds N  rounds at a distance (default 6; a round of the 2,000 files at
#                   10 ms takes about 7 s)
#   --out FILE      the report (default bench/warc.md in the repository)
#
# Target (issue 16): WARC costs at most 10 % of a fresh mirror's time. The mirror
# targets and WARC files go to /dev/shm (tmpfs): the disk is not what is measured.
# The HTTP trees are made under the server's www/ for the run (warc-bench-*: a copy
# of the FTP tree's pub/many, and the generated ones, the same bytes every run) and
# removed at the end. Floors at a distance: one round trip a file over 8
# connections (the mirror pipelines each next request): 2,000 x 10 ms / 8 = 2.5 s,
# 1,000 x 10 ms / 8 = 1.25 s; the 1 MiB files take a few round trips each to open
# the TCP window; through 1 Gbit/s, 20 MiB take 0.17 s.
#
# The servers: those named by FETCH_TEST_ENV when set, else scripts/servers.sh is
# started in a temporary directory (root needed) and stopped at the end. Needs
# python3 (to make the trees) and wget. Talks only to 127.0.0.1.
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
srvdir="" copies=() proxypids=()
cleanup() {
	for p in "${proxypids[@]}"; do kill "$p" 2>/dev/null || true; done
	for c in "${copies[@]}"; do rm -rf "$c"; done
	[ -n "$srvdir" ] && bash "$top/scripts/servers.sh" stop "$srvdir" >&2 || true
	rm -rf "$work" /dev/shm/fetch-ab-warc /dev/shm/fetch-ab-warc.* 2>/dev/null || true
}
trap cleanup EXIT

# shellcheck source=scripts/bench/lib.sh
. "$top/scripts/bench/lib.sh"
bench_servers
ftp=$(getenv FETCH_TEST_FTP) nginx=$(getenv FETCH_TEST_NGINX) root=$(getenv FETCH_TEST_ROOT)
gopher=$(getenv FETCH_TEST_GOPHER) nntp=$(getenv FETCH_TEST_NNTP)
[ -n "$ftp" ] && [ -n "$nginx" ] && [ -n "$root" ] || die "$envfile names no FTP server, nginx or root"
[ -n "$gopher" ] && [ -n "$nntp" ] || die "$envfile names no gopher or news server"
[ -d "$root/gopher/big" ] || die "no $root/gopher/big"
[ -d "$root/ftp/pub/many" ] || die "no $root/ftp/pub/many"
for tool in python3 wget go; do
	command -v "$tool" >/dev/null || die "$tool not found"
done

say "building fetch and faultproxy"
(cd "$top" && go build -o "$work/fetch" ./cmd/fetch && go build -o "$work/faultproxy" ./scripts/bench/faultproxy)
# The commit the binary was built from (the run takes half an hour: the
# checkout may move on meantime), and whether the tree had changes.
built=$(git -C "$top" rev-parse --short HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] || built="$built with uncommitted changes"
www=$root/www
copies=("$www/warc-bench-many" "$www/warc-bench-r10k" "$www/warc-bench-t10k" "$www/warc-bench-r1m" "$www/warc-bench-t1m")
for c in "${copies[@]}"; do rm -rf "$c"; done
cp -r "$root/ftp/pub/many" "$www/warc-bench-many"
say "making the trees of larger files"
# Random bytes from a seeded generator, and text cut from the Go sources of
# net/http: the same trees every run.
python3 - "$www" "$(go env GOROOT)/src/net/http" <<'PY'
import os, random, sys
www, src = sys.argv[1], sys.argv[2]
rnd = random.Random(16)
text = b"".join(open(os.path.join(src, f), "rb").read() for f in sorted(os.listdir(src)) if f.endswith(".go"))
for name, n, size in (("r10k", 1000, 10240), ("t10k", 1000, 10240), ("r1m", 20, 1 << 20), ("t1m", 20, 1 << 20)):
    d = os.path.join(www, "warc-bench-" + name)
    os.mkdir(d)
    for i in range(n):
        if name[0] == "t":
            at = (i * 7919 * size) % (len(text) - size)
            b = text[at:at + size]
        else:
            b = rnd.randbytes(size)
        with open(os.path.join(d, "f%04d" % i), "wb") as f:
            f.write(b)
PY
chmod -R a+rX "${copies[@]}"

proxy() {
	local f=$work/proxy.$1.$3.${4:-}
	"$work/faultproxy" -target "$2" -mode "$1" -delay "$3" ${4:+-rate "$4"} -for 2h >"$f" 2>&1 &
	proxypids+=($!)
	for _ in $(seq 50); do [ -s "$f" ] && break; sleep 0.1; done
	proxy_addr=$(head -n 1 "$f")
	case $proxy_addr in 127.0.0.1:*) ;; *) die "faultproxy did not start: $(cat "$f")" ;; esac
}
proxy ftp "$ftp" 5ms
ftpfar=$proxy_addr
proxy http "$nginx" 5ms
httpfar=$proxy_addr
proxy http "$nginx" 25ms
httpfar50=$proxy_addr
proxy http "$nginx" 5ms 125M
httpgig=$proxy_addr
proxy ftp "$ftp" 500us
ftplan=$proxy_addr
proxy http "$nginx" 500us
httplan=$proxy_addr
proxy plain "$nntp" 5ms
nntpfar=$proxy_addr

# series NAME ROUNDS 'COMMAND A' 'COMMAND B': one ab.sh series; appends a table row
# to $work/rows.
series() {
	local name=$1 n=$2 res
	say "$name: $n rounds"
	# The WARC files of the last round are removed before each command
	# (PREP, not timed), so that B's time is not charged with removing them.
	res=$(TARGET=/dev/shm/fetch-ab-warc PREP='rm -f /dev/shm/fetch-ab-warc.* /dev/shm/fetch-ab-warc-*' bash "$top/scripts/bench/ab.sh" "$envfile" "$n" "$3" "$4")
	printf '%s\n' "$res" >&2
	printf '%s\n' "$res" | awk -v name="$name" '
		/^  wall/ { wa = $3; wb = $5; wr = $7 }
		/^  command CPU/ { ca = $4; cb = $6; cr = $8 }
		END { printf "| %s | %d ms | %d ms | **%s** | %d ms | %d ms | %s |\n", name, wa, wb, wr, ca, cb, cr }' >>"$work/rows"
}

# row NAME ROUNDS URL: fetch mirror without and with WARC.
row() {
	series "$1" "$2" "$work/fetch mirror -s -j 8 $3 \$TARGET" \
		"$work/fetch mirror -s -j 8 --warc-file /dev/shm/fetch-ab-warc --warc-cdx $3 \$TARGET"
}

# wget's recursive retrieval of an index page, into $TARGET.
wgetr() { echo "wget -q -r -np -nH -l inf -P \$TARGET $*"; }
load0=$(cut -d' ' -f1-3 /proc/loadavg)
h=http://$nginx
row "FTP, 2,000 x 10 B, loopback" "$rounds" "ftp://$ftp/pub/many/"
row "HTTP, 2,000 x 10 B, loopback" "$rounds" "$h/warc-bench-many/"
row "HTTP, 1,000 x 10 KiB random, loopback" "$rounds" "$h/warc-bench-r10k/"
row "HTTP, 1,000 x 10 KiB text, loopback" "$rounds" "$h/warc-bench-t10k/"
row "HTTP, 20 x 1 MiB random, loopback" "$rounds" "$h/warc-bench-r1m/"
row "HTTP, 20 x 1 MiB text, loopback" "$rounds" "$h/warc-bench-t1m/"
row "FTP, 2,000 x 10 B, 10 ms (floor 2.5 s)" "$far" "ftp://$ftpfar/pub/many/"
row "HTTP, 2,000 x 10 B, 10 ms (floor 2.5 s)" "$far" "http://$httpfar/warc-bench-many/"
row "HTTP, 1,000 x 10 KiB random, 10 ms (floor 1.25 s)" "$far" "http://$httpfar/warc-bench-r10k/"
row "HTTP, 1,000 x 10 KiB text, 10 ms (floor 1.25 s)" "$far" "http://$httpfar/warc-bench-t10k/"
row "HTTP, 20 x 1 MiB random, 10 ms" "$far" "http://$httpfar/warc-bench-r1m/"
row "HTTP, 20 x 1 MiB text, 10 ms" "$far" "http://$httpfar/warc-bench-t1m/"
row "HTTP, 20 x 1 MiB random, 50 ms" "$far" "http://$httpfar50/warc-bench-r1m/"
row "HTTP, 20 x 1 MiB random, 10 ms, 1 Gbit/s (floor 0.17 s)" "$far" "http://$httpgig/warc-bench-r1m/"
row "HTTP, 20 x 1 MiB text, 10 ms, 1 Gbit/s (floor 0.17 s)" "$far" "http://$httpgig/warc-bench-t1m/"
row "HTTP, 1,000 x 10 KiB text, 10 ms, 1 Gbit/s (floor 1.25 s)" "$far" "http://$httpgig/warc-bench-t10k/"
# A server on the local network: a round trip of 1 ms.
row "FTP, 2,000 x 10 B, 1 ms (floor 0.25 s)" "$rounds" "ftp://$ftplan/pub/many/"
row "HTTP, 2,000 x 10 B, 1 ms (floor 0.25 s)" "$rounds" "http://$httplan/warc-bench-many/"
# Gopher: pygopherd forks a process a request, which sets the pace even on
# loopback (some 5 ms a file over 8 connections); each menu is also asked for
# its items' attributes ("$"), a metadata record. Not through the proxy: a
# menu names the server's own address in every item, so a mirror started at
# the proxy's would find every item on another server.
row "gopher, 2,000 x 17 B, pygopherd, loopback" "$far" "gopher://$gopher/1/big"
# News: the three archive groups from INN (880 articles, 800 distinct, 433 KiB).
row "news, 880 articles, INN, loopback" "$rounds" "'nntp://$nntp/archive.*'"
row "news, 880 articles, INN, 10 ms" "$far" "'nntp://$nntpfar/archive.*'"
wr=$(((rounds + 2) / 3))
for t in many:"2,000 x 10 B" t10k:"1,000 x 10 KiB text" r1m:"20 x 1 MiB random"; do
	series "wget, its WARC against none: HTTP, ${t#*:}, loopback" "$wr" "$(wgetr "$h/warc-bench-${t%%:*}/")" \
		"$(wgetr --warc-file=/dev/shm/fetch-ab-warc --warc-cdx "$h/warc-bench-${t%%:*}/")"
	series "fetch's WARC mirror (B) against wget's (A): HTTP, ${t#*:}, loopback" "$wr" \
		"$(wgetr --warc-file=/dev/shm/fetch-ab-warc --warc-cdx "$h/warc-bench-${t%%:*}/")" \
		"$work/fetch mirror -s -j 8 --warc-file /dev/shm/fetch-ab-warc --warc-cdx $h/warc-bench-${t%%:*}/ \$TARGET"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo "# What --warc-file costs a fresh mirror"
	echo
	echo "Written by \`scripts/bench/warc.sh\`; do not edit by hand. Each series is"
	echo "\`scripts/bench/ab.sh\`: A is \`fetch mirror -s -j 8 URL DIR\`, B the same with"
	echo "\`--warc-file --warc-cdx\` (the wget rows say what A and B are there: wget is"
	echo "\`wget -q -r -np -nH -l inf\`, one connection, with \`--warc-file --warc-cdx\` for"
	echo "its WARC), rounds interleaved, medians; the target and the WARC files on tmpfs,"
	echo "the last round's WARC files removed before each command, untimed (ab.sh PREP)."
	echo "CPU is the command's own (user + system). The machine is shared and noisy:"
	echo "compare within one run only."
	echo
	echo "- command: \`$invocation\`"
	echo "- date: $(date -u '+%Y-%m-%d %H:%M') UTC, fetch built at commit $built"
	echo "- machine: $(uname -sr) $(uname -m); $(nproc) CPUs"
	echo "- load average before / after: $load0 / $load1"
	echo "- servers: $server_from"
	echo
	echo "| case | wall A | wall B | B/A wall | CPU A | CPU B | B/A CPU |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	cat "$work/rows"
	echo
	echo "Target (docs/warc.md, \"What writing WARC"
	echo "costs\"): B/A wall at most 1.10 where the network or the server sets the mirror's pace:"
	echo "every row through the proxy (1, 10 and 50 ms) but the two of 1 MiB files at 10 ms through"
	echo "a link as fast as the loopback, and the gopher and news rows, whose servers set the pace"
	echo "on loopback too. The other rows of FTP and HTTP on loopback, and those two, are floors,"
	echo "not the target: there this machine's processors set the pace, and the work WARC adds to"
	echo "every file and every byte (two records a file over HTTP, two SHA-1 digests of an HTTP"
	echo "payload at about 1.5 GB/s each with SHA-NI, level-1 deflate of text at 130 to 230 MB/s a"
	echo "processor, a second write of every byte) is more than a tenth of the mirror's own. The"
	echo "wget rows: wget's own WARC against none, and its WARC mirror against fetch's."
} >"$out"
say "wrote $out"
