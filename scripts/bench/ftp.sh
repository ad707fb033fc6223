#!/usr/bin/env bash
# ftp.sh: time fetch beside curl, lftp and wget against the same local vsftpd,
# side by side in one run, and write the medians and ratios to bench/ftp.md.
#
#   bash scripts/bench/ftp.sh [--runs N] [--size MIB] [--files N] [--out FILE] [--no-go-bench]
#
#   --runs N      timed runs per command after one warm-up (default 5); wget,
#                 which logs in once per URL, gets one run in the many-files case
#   --size MIB    size of the generated file for the big RETR (default 512)
#   --files N     how many small files to fetch by URL (default 200, at most 2000)
#   --out FILE    the report (default bench/ftp.md in the repository)
#   --no-go-bench leave out the Go benchmarks of proto/ftp
#
# Cases: one big RETR (generated into the server's tree, random bytes, removed
# afterwards, never committed) written to /dev/null, with each tool's peak RSS
# from /usr/bin/time; and N small files by URL in one invocation (connection
# reuse), written to a fresh directory, with the number of logins each tool
# made, counted in vsftpd's protocol log. Targets (issue 4): the big RETR no
# slower than lftp with peak memory under 32 MiB; the small files no slower
# than curl.
#
# The server: the vsftpd named by FETCH_TEST_ENV (DIR/env written by
# scripts/servers.sh) when that is set, else scripts/servers.sh is started in
# a temporary directory (root needed) and stopped at the end. Tools: hyperfine,
# curl, lftp, wget (bash scripts/ci-deps.sh --bench), GNU time (/usr/bin/time,
# Debian package "time"), python3, go. fetch is built from ./cmd/fetch.
set -euo pipefail

prog=bench/ftp
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

runs=5 size=512 files=200 out="" gobench=1
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--size) size=${2:?}; shift 2 ;;
	--files) files=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	--no-go-bench) gobench=0; shift ;;
	-h | --help) sed -n '2,30p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case $runs$size$files in *[!0-9]*) die "--runs, --size and --files take numbers" ;; esac
[ "$files" -ge 1 ] && [ "$files" -le 2000 ] || die "--files must be 1..2000"
[ "$runs" -ge 1 ] || die "--runs must be at least 1"

top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$top"
out=${out:-$top/bench/ftp.md}
invocation="bash scripts/bench/ftp.sh $*"

for tool in hyperfine curl lftp wget python3 go; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found (bash scripts/ci-deps.sh --bench)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time not found (apt-get install time)"

work=$(mktemp -d /tmp/fetch-bench-ftp.XXXXXX)
srvdir="" bigfile=""
cleanup() {
	[ -n "$bigfile" ] && rm -f -- "$bigfile"
	[ -n "$srvdir" ] && bash "$top/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
	rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The server.
. "$top/scripts/bench/lib.sh"
bench_servers
addr=$(getenv FETCH_TEST_FTP)
root=$(getenv FETCH_TEST_ROOT)
ftplog=$(getenv FETCH_TEST_FTP_LOG)
[ -n "$addr" ] && [ -d "$root/ftp" ] && [ -f "$ftplog" ] || die "no usable vsftpd in $envfile"
case $addr in 127.0.0.1:* | \[::1\]:*) ;; *) die "vsftpd at $addr is not on loopback" ;; esac
base=ftp://$addr

# The program under test.
say "building fetch"
go build -o "$work/fetch" ./cmd/fetch
[ "$("$work/fetch" get -s "$base/pub/hello.txt")" = "Hello, world!" ] || die "fetch cannot fetch $base/pub/hello.txt"
F=$work/fetch

# The big file.
mkdir -p "$root/ftp/bench"
bigfile=$root/ftp/bench/big-$size.bin
say "generating $size MiB in $bigfile"
head -c "$((size << 20))" /dev/urandom >"$bigfile"
chmod 0644 "$bigfile"
big=$base/bench/big-$size.bin

# The small files (pub/many, "file NNNN\n" each).
urls=() curlargs=()
for ((i = 0; i < files; i++)); do
	u=$(printf '%s/pub/many/f%04d.txt' "$base" "$i")
	urls+=("$u")
	curlargs+=(-O "$u")
done
dst=$work/out

# Commands run without a shell (hyperfine -N): on a busy machine the shell's
# start-up time, which hyperfine subtracts, is too noisy for runs this short.
fetch_big="$F get -s $big"
fetch_many="$F get -s --output-dir $dst -O ${urls[*]}"
curl_big="curl -s $big"
curl_many="curl -s --output-dir $dst ${curlargs[*]}"
lftp_big="lftp -c 'cat $big'"
lftp_many="lftp -c 'get -O $dst ${urls[*]}'"
wget_big="wget -q -O - $big"
wget_many="wget -q -P $dst ${urls[*]}"
prep="bash -c 'rm -rf $dst && mkdir -p $dst'"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)

say "big RETR: $size MiB, $runs runs each"
hyperfine -N --style basic --warmup 1 --runs "$runs" --export-json "$work/big.json" \
	-n fetch "$fetch_big" -n curl "$curl_big" -n lftp "$lftp_big" -n wget "$wget_big" >&2

say "$files files by URL: $runs runs each (wget: 1)"
hyperfine -N --style basic --warmup 1 --runs "$runs" --prepare "$prep" --export-json "$work/many.json" \
	-n fetch "$fetch_many" -n curl "$curl_many" -n lftp "$lftp_many" >&2
hyperfine -N --style basic --runs 1 --prepare "$prep" --export-json "$work/many-wget.json" \
	-n wget "$wget_many" >&2

# One more run of each under GNU time (peak RSS) with vsftpd's log counting
# the logins, and a check that the files arrived intact.
measure() { # measure NAME CASE CMD
	local off
	off=$(stat -c %s "$ftplog")
	rm -rf "$dst" && mkdir -p "$dst"
	/usr/bin/time -f '%M' -o "$work/rss.$1.$2" bash -c "$3" >/dev/null
	sleep 0.3
	tail -c +"$((off + 1))" "$ftplog" | grep -c 'FTP command: Client "[^"]*", "USER ' >"$work/logins.$1.$2" || true
}
for t in fetch curl lftp wget; do
	v=${t}_big
	measure "$t" big "${!v}"
done
want=$(cd "$root/ftp/pub/many" && cat $(printf 'f%04d.txt ' $(seq 0 $((files - 1)))) | sha256sum | cut -d' ' -f1)
for t in fetch curl lftp wget; do
	v=${t}_many
	measure "$t" many "${!v}"
	got=$(cd "$dst" && cat $(printf 'f%04d.txt ' $(seq 0 $((files - 1)))) 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] || say "warning: $t did not fetch the $files files intact"
	echo "$got" >"$work/sum.$t"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

gob=""
if [ "$gobench" = 1 ]; then
	say "Go benchmarks"
	gob=$(go test -run '^$' -bench 'RETR|SmallFiles' -benchtime 2s ./proto/ftp/ 2>&1 | grep -E '^(Benchmark|cpu:)' || true)
fi

# The report.
mkdir -p "$(dirname -- "$out")"
export server_from work runs size files load_before load_after invocation gob want
export fetch_big fetch_many curl_big curl_many lftp_big lftp_many wget_big wget_many
export machine="$(uname -srm); $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)); $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo)"
export versions="$(go version | cut -d' ' -f3); $(curl --version | head -n 1 | cut -d' ' -f1-2); $(lftp --version | head -n 1 | sed 's/.*Version \([^ ]*\).*/lftp \1/'); $(wget --version | head -n 1 | cut -d' ' -f1-3); hyperfine $(hyperfine --version | cut -d' ' -f2); vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null || echo '?')"
export commit="$(git rev-parse --short HEAD)"
export date="$(date -u '+%Y-%m-%d %H:%M UTC')"
python3 - "$out" <<'PY'
import json, os, sys

work = os.environ["work"]
def results(name):
    with open(os.path.join(work, name)) as f:
        return {r["command"]: r for r in json.load(f)["results"]}

def read(name, default="?"):
    try:
        with open(os.path.join(work, name)) as f:
            return f.read().strip()
    except OSError:
        return default

big = results("big.json")
many = results("many.json")
many.update(results("many-wget.json"))
tools = ["fetch", "curl", "lftp", "wget"]
size, files, runs = os.environ["size"], os.environ["files"], os.environ["runs"]

def rss(t, case):
    v = read(f"rss.{t}.{case}")
    return f"{int(v) / 1024:.1f}" if v.isdigit() else "?"

def table(res, case):
    f = res["fetch"]["median"]
    rows = ["| tool | median (s) | mean ± σ (s) | runs | peer / fetch | peak RSS (MiB) | logins |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for t in tools:
        r = res[t]
        ratio = "1.00" if t == "fetch" else f"{r['median'] / f:.2f}"
        rows.append(f"| {t} | {r['median']:.3f} | {r['mean']:.3f} ± {r['stddev'] or 0:.3f} | {len(r['times'])} | {ratio} | {rss(t, case)} | {read(f'logins.{t}.{case}')} |")
    return "\n".join(rows)

fb, lb = big["fetch"]["median"], big["lftp"]["median"]
fm, cm = many["fetch"]["median"], many["curl"]["median"]
fr = read("rss.fetch.big")
fr = int(fr) / 1024 if fr.isdigit() else float("nan")
def verdict(ok): return "met" if ok else "MISSED"
intact = read("sum.fetch") == os.environ["want"]

lines = [
    "# FTP benchmark: fetch beside curl, lftp and wget",
    "",
    "Written by `scripts/bench/ftp.sh`; do not edit by hand. Every tool fetched from the same",
    "local vsftpd on 127.0.0.1, in the same run, timed by hyperfine (one warm-up, then the",
    "timed runs; output to /dev/null or a fresh directory). \"peer / fetch\" above 1 means",
    "fetch was faster. Peak RSS and logins come from one more run of each tool, under",
    "GNU time, with the logins counted in vsftpd's protocol log.",
    "",
    f"- command: `{os.environ['invocation'].strip()}`",
    f"- date: {os.environ['date']}, commit {os.environ['commit']}",
    f"- machine: {os.environ['machine']}",
    f"- load average before / after: {os.environ['load_before']} / {os.environ['load_after']}",
    f"- versions: {os.environ['versions']}",
    f"- server: vsftpd on loopback from {os.environ['server_from']}",
]
lines += [
    "",
    "## Targets (issue 4)",
    "",
    f"- {size} MiB RETR no slower than lftp: fetch {fb:.3f} s, lftp {lb:.3f} s: {verdict(fb <= lb)}",
    f"- peak memory under 32 MiB: fetch {fr:.1f} MiB: {verdict(fr < 32)}",
    f"- {files} small files by URL no slower than curl: fetch {fm:.3f} s, curl {cm:.3f} s: {verdict(fm <= cm)}"
    + ("" if intact else " (fetch's files were NOT intact)"),
    "",
    f"## One {size} MiB RETR (random bytes, to /dev/null)",
    "",
    table(big, "big"),
    "",
    f"## {files} small files by URL in one invocation (pub/many, 10 bytes each)",
    "",
    "wget logs in once per URL and is timed once here.",
    "",
    table(many, "many"),
    "",
    "## Commands",
    "",
    "```",
]
for case, res in (("big", big), ("many", many)):
    for t in tools:
        cmd = os.environ.get(f"{t}_{case}", "").replace(os.environ["work"], "$TMP")
        lines.append(f"{case}/{t}: " + (cmd if len(cmd) < 240 else cmd[:240] + " ..."))
lines += ["```", ""]
gob = os.environ.get("gob", "").strip()
if gob:
    lines += ["## Go benchmarks (in-process ftpserverlib server, `go test -bench 'RETR|SmallFiles' -benchtime 2s ./proto/ftp/`)", "", "```", gob, "```", ""]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(lines))
PY
say "wrote $out"
