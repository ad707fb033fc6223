#!/usr/bin/env bash
# parallel.sh: time `fetch get -Z --parallel-max 8` beside `curl -Z
# --parallel-max 8`, and plain (one URL after another) fetch and curl, for
# small files by URL in one invocation, over FTP (vsftpd) and HTTP (nginx), on
# plain loopback and through a proxy that adds a round-trip delay, and write
# the medians and ratios to bench/parallel.md.
#
#   bash scripts/bench/parallel.sh [--rounds N] [--files N] [--jobs N]
#                                  [--rtt MS] [--rtt-files N] [--out FILE]
#
#   --rounds N     rounds (default 7); each round runs every command once, in
#                  an order that rotates from round to round, after one
#                  warm-up round
#   --files N      files on plain loopback (default 200, at most 2000)
#   --jobs N       --parallel-max of both -Z commands (default 8)
#   --rtt MS       round trip added by scripts/bench/delayproxy (default 10;
#                  0 leaves that case out)
#   --rtt-files N  files through the proxy (default 100)
#   --out FILE     the report (default bench/parallel.md in the repository)
#
# FTP: pub/many/fNNNN.txt of the fixture tree ("file NNNN\n" each). HTTP: the
# same files, copied for the run into DIR/www/bench-parallel/ (removed at the
# end). Every command writes with -O into a fresh directory; one run of each
# before the timing checks that the files arrive intact (SHA-256 of their
# concatenation). The proxy listens on [::1], on the ports of vsftpd's control
# and passive ports and nginx's port, and forwards them to 127.0.0.1, each byte
# delayed by half the round trip.
# Targets (issue 17): fetch -Z no slower than curl -Z on loopback with 200
# files and at 10 ms with 100 files: the median of the per-round ratios
# fetch-Z / curl-Z at most 1.00.
#
# The files are written under $TMPDIR (default /tmp): TMPDIR=/dev/shm takes
# the disk out of the comparison.
#
# The servers: the ones named by FETCH_TEST_ENV (DIR/env from
# scripts/servers.sh) when set, else scripts/servers.sh is started in a
# temporary directory (root needed) and stopped at the end. Tools: hyperfine,
# curl (7.73 or later: --output-dir), python3, go. Talks only to 127.0.0.1 and
# [::1].
set -euo pipefail

prog=bench/parallel
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

rounds=7 files=200 jobs=8 rtt=10 rttfiles=100 out=""
invocation="bash scripts/bench/parallel.sh $*"
[ -n "${TMPDIR:-}" ] && invocation="TMPDIR=$TMPDIR $invocation"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--files) files=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--rtt) rtt=${2:?}; shift 2 ;;
	--rtt-files) rttfiles=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,41p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case $rounds$files$jobs$rtt$rttfiles in *[!0-9]*) die "--rounds, --files and --jobs take numbers" ;; esac
[ "$files" -ge 1 ] && [ "$files" -le 2000 ] || die "--files must be 1..2000"
[ "$rttfiles" -ge 1 ] && [ "$rttfiles" -le "$files" ] || die "--rtt-files must be 1..--files"
[ "$rtt" -le 1000 ] || die "--rtt must be 0..1000 (ms)"
[ "$rounds" -ge 1 ] && [ "$rounds" -le 100 ] || die "--rounds must be 1..100"
[ "$jobs" -ge 1 ] && [ "$jobs" -le 300 ] || die "--jobs must be 1..300"

top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$top"
out=${out:-$top/bench/parallel.md}

for tool in hyperfine curl python3 go; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found (bash scripts/ci-deps.sh --bench)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-bench-parallel.XXXXXX")
srvdir="" httpdir="" proxypid=""
cleanup() {
	[ -n "$proxypid" ] && kill "$proxypid" 2>/dev/null
	[ -n "$httpdir" ] && rm -rf -- "$httpdir"
	[ -n "$srvdir" ] && bash "$top/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
	rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$top/scripts/bench/lib.sh"
bench_servers
ftpaddr=$(getenv FETCH_TEST_FTP)
httpaddr=$(getenv FETCH_TEST_NGINX)
root=$(getenv FETCH_TEST_ROOT)
[ -n "$ftpaddr" ] && [ -n "$httpaddr" ] && [ -d "$root/ftp/pub/many" ] && [ -d "$root/www" ] || die "no usable vsftpd and nginx in $envfile"
for a in "$ftpaddr" "$httpaddr"; do
	case $a in 127.0.0.1:*) ;; *) die "server at $a is not on 127.0.0.1" ;; esac
done

say "building fetch"
go build -o "$work/fetch" ./cmd/fetch
F=$work/fetch

# The N files for nginx: the FTP tree's, copied.
httpdir=$root/www/bench-parallel
rm -rf -- "$httpdir"
mkdir -p "$httpdir"
names=()
for ((i = 0; i < files; i++)); do
	names+=("$(printf 'f%04d.txt' "$i")")
done
(cd "$root/ftp/pub/many" && cp -- "${names[@]}" "$httpdir/")
chmod -R a+rX "$httpdir"

dst=$work/out
prep="bash -c 'rm -rf $dst && mkdir -p $dst'"
tools=(fetchZ curlZ fetch curl)
cases=(lo)
[ "$rtt" -gt 0 ] && cases+=(rtt)

# The delaying proxy for the "rtt" case: the control, passive and HTTP
# ports, from [::1].
proxyaddr="" proxypid=""
if [ "$rtt" -gt 0 ]; then
	pasv=$(getenv FETCH_TEST_FTP_PASV)
	[ -n "$pasv" ] || die "FETCH_TEST_FTP_PASV is not set in $envfile"
	go build -o "$work/delayproxy" ./scripts/bench/delayproxy
	proxyaddr=[::1]
	"$work/delayproxy" -rtt "${rtt}ms" -for 50m \
		-ports "${ftpaddr##*:},${httpaddr##*:},$pasv" >"$work/proxy.out" 2>&1 &
	proxypid=$!
	for _ in $(seq 50); do grep -qx ready "$work/proxy.out" 2>/dev/null && break; sleep 0.1; done
	grep -qx ready "$work/proxy.out" || die "delayproxy did not start: $(cat "$work/proxy.out")"
fi

# commands CASE: the commands of one case, in variables TOOL_PROTO_CASE.
commands() {
	local c=$1 host_ftp=$ftpaddr host_http=$httpaddr n=$files proto base u
	if [ "$c" = rtt ]; then
		host_ftp=$proxyaddr:${ftpaddr##*:} host_http=$proxyaddr:${httpaddr##*:} n=$rttfiles
	fi
	for proto in ftp http; do
		case $proto in
		ftp) base=ftp://$host_ftp/pub/many ;;
		http) base=http://$host_http/bench-parallel ;;
		esac
		urls=() curlargs=()
		for u in "${names[@]:0:$n}"; do
			urls+=("$base/$u")
			curlargs+=(-O "$base/$u")
		done
		printf -v "fetch_${proto}_$c" '%s' "$F get -s --output-dir $dst -O ${urls[*]}"
		printf -v "fetchZ_${proto}_$c" '%s' "$F get -s -Z --parallel-max $jobs --output-dir $dst -O ${urls[*]}"
		printf -v "curl_${proto}_$c" '%s' "curl -s --output-dir $dst ${curlargs[*]}"
		printf -v "curlZ_${proto}_$c" '%s' "curl -s -Z --parallel-max $jobs --output-dir $dst ${curlargs[*]}"
	done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for c in "${cases[@]}"; do
	commands "$c"
	n=$files
	[ "$c" = rtt ] && n=$rttfiles
	want=$(cd "$root/ftp/pub/many" && cat -- "${names[@]:0:$n}" | sha256sum | cut -d' ' -f1)
	for proto in ftp http; do
		# Check each command once (intact files), then time them.
		for t in "${tools[@]}"; do
			v=${t}_${proto}_$c
			rm -rf "$dst" && mkdir -p "$dst"
			bash -c "${!v}" >/dev/null 2>&1 || say "warning: $t over $proto ($c) exited $?"
			got=$(cd "$dst" && cat -- "${names[@]:0:$n}" 2>/dev/null | sha256sum | cut -d' ' -f1)
			if [ "$got" = "$want" ]; then
				echo ok >"$work/intact.$t.$proto.$c"
			else
				echo NOT >"$work/intact.$t.$proto.$c"
				say "warning: $t over $proto ($c) did not fetch the $n files intact"
			fi
		done
		for ((r = 0; r <= rounds; r++)); do
			# Rotate the order of the commands from round to round;
			# round 0 is the warm-up and is not counted.
			args=()
			for ((k = 0; k < ${#tools[@]}; k++)); do
				t=${tools[$(((k + r) % ${#tools[@]}))]}
				v=${t}_${proto}_$c
				args+=(-n "$t" "${!v}")
			done
			say "$c/$proto: round $r of $rounds"
			hyperfine -N --style none --runs 1 --prepare "$prep" --export-json "$work/$proto.$c.$r.json" "${args[@]}" >/dev/null 2>&1 ||
				die "hyperfine failed in round $r ($c/$proto)"
		done
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
if [ -n "$proxypid" ]; then
	kill "$proxypid" 2>/dev/null || true
	wait "$proxypid" 2>/dev/null || true
	proxypid=""
fi

mkdir -p "$(dirname -- "$out")"
export outfs="$(stat -f -c %T "$work")"
export work rounds files rttfiles rtt jobs server_from load_before load_after invocation
export "${!fetch_@}" "${!fetchZ_@}" "${!curl_@}" "${!curlZ_@}"
export caselist="${cases[*]}"
export machine="$(uname -srm); $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)); $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2/1048576}' /proc/meminfo)"
export versions="$(go version | cut -d' ' -f3); $(curl --version | head -n 1 | cut -d' ' -f1-2); hyperfine $(hyperfine --version | cut -d' ' -f2); vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null || echo '?'); nginx $(dpkg-query -W -f='${Version}' nginx 2>/dev/null || echo '?')"
export commit="$(git rev-parse --short HEAD)"
export date="$(date -u '+%Y-%m-%d %H:%M UTC')"
python3 - "$out" <<'PY'
import json, os, statistics, sys

env = os.environ
work = env["work"]
rounds, jobs = int(env["rounds"]), env["jobs"]
tools = ["fetchZ", "curlZ", "fetch", "curl"]
label = {"fetchZ": f"fetch -Z --parallel-max {jobs}", "curlZ": f"curl -Z --parallel-max {jobs}",
         "fetch": "fetch (one after another)", "curl": "curl (one after another)"}
title = {"lo": f"{env['files']} files on loopback",
         "rtt": f"{env['rttfiles']} files at {env['rtt']} ms round trip (scripts/bench/delayproxy)"}

def read(name):
    try:
        with open(os.path.join(work, name)) as f:
            return f.read().strip()
    except OSError:
        return "?"

def times(proto, case):
    per = []  # per round: {tool: seconds}
    for r in range(1, rounds + 1):
        with open(os.path.join(work, f"{proto}.{case}.{r}.json")) as f:
            per.append({x["command"]: x["times"][0] for x in json.load(f)["results"]})
    return per

lines = [
    "# Parallel retrieval: `fetch get -Z` beside `curl -Z`",
    "",
    "Written by `scripts/bench/parallel.sh`; do not edit by hand. Each tool fetched the same",
    "small files by URL in one invocation, with -O into a fresh directory, from vsftpd and",
    "nginx on 127.0.0.1, directly or through scripts/bench/delayproxy. One warm-up round,",
    "then rounds in which every command runs once, in an order that rotates from round to",
    "round (hyperfine -N, one run each). \"ratio\" is the median of the per-round ratios",
    "tool / curl -Z (below 1: faster than curl -Z). The machine is shared with other work",
    "and noisy: compare within one run only.",
    "",
    f"- output directory: under {os.path.dirname(work)} ({env['outfs']})",
    f"- command: `{env['invocation'].strip()}`",
    f"- date: {env['date']}, commit {env['commit']}",
    f"- machine: {env['machine']}",
    f"- load average before / after: {env['load_before']} / {env['load_after']}",
    f"- versions: {env['versions']}",
    f"- servers: {env['server_from']}",
    "",
]
verdicts = []
for case in env["caselist"].split():
    for proto in ("ftp", "http"):
        per = times(proto, case)
        med = {t: statistics.median(p[t] for p in per) for t in tools}
        ratio = {t: statistics.median(p[t] / p["curlZ"] for p in per) for t in tools}
        lo = {t: min(p[t] for p in per) for t in tools}
        hi = {t: max(p[t] for p in per) for t in tools}
        verdicts.append(f"- {proto.upper()}, {title[case]}: fetch -Z {med['fetchZ']:.3f} s, curl -Z "
                        f"{med['curlZ']:.3f} s, ratio {ratio['fetchZ']:.2f}: {'met' if ratio['fetchZ'] <= 1 else 'MISSED'}")
        lines += [f"## {proto.upper()}: {title[case]}, {rounds} rounds", "",
                  "| command | median (s) | min to max (s) | ratio to curl -Z | files intact |",
                  "| --- | ---: | --- | ---: | --- |"]
        for t in tools:
            lines.append(f"| {label[t]} | {med[t]:.3f} | {lo[t]:.3f} to {hi[t]:.3f} | {ratio[t]:.2f} | {read(f'intact.{t}.{proto}.{case}')} |")
        lines.append("")
lines += ["## Targets (issue 17): fetch -Z no slower than curl -Z", ""] + verdicts + ["", "## Commands", "", "```"]
for case in env["caselist"].split():
    for proto in ("ftp", "http"):
        for t in tools:
            cmd = env.get(f"{t}_{proto}_{case}", "").replace(work, "$TMP")
            lines.append(f"{case}/{proto}/{t}: " + (cmd if len(cmd) < 200 else cmd[:200] + " ..."))
lines += ["```", ""]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(lines))
PY
say "wrote $out"
