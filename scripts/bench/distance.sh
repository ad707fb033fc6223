#!/usr/bin/env bash
# distance.sh: fetch beside lftp, wget and curl at a distance: every connection to
# vsftpd goes through scripts/bench/faultproxy, which delivers each byte
# half a round trip late in each direction, at 10 ms and 50 ms round trips, side by
# side in one run, rounds interleaved; writes the medians, ratios and floors to
# bench/distance.md.
#
#   bash scripts/bench/distance.sh [--rounds N] [--rtts "10 50"] [--files N]
#                                  [--peer-files N] [--urls N] [--jobs N] [--out FILE]
#
#   --rounds N      rounds (default 3); each round runs every command once, in an
#                   order that rotates from round to round, after one check run of
#                   each command (files intact) that is not timed
#   --rtts LIST     round trips in ms (default "10 50")
#   --files N       files of pub/many that fetch mirror alone mirrors (default 2000)
#   --peer-files N  files of the mirror that every client mirrors, fetch included
#                   (default 200): lftp and wget take one or more round trips per
#                   file in sequence, which at 50 ms and 2,000 files is minutes a run
#   --urls N        files fetched by URL in one invocation (default 100)
#   --jobs N        connections of the parallel commands (default 8)
#   --out FILE      the report (default bench/distance.md in the repository)
#
# Cases, at each round trip:
# - mirror, fresh and re-run (unchanged tree), of a directory of --peer-files files
#   ("file NNNN\n" each, copied from pub/many into the server's tree for the run and
#   removed at the end): `fetch mirror -j 8`, `lftp mirror -P 8`, `wget -m`;
# - mirror of all of pub/many, fresh and re-run, by `fetch mirror -j 8` alone;
# - --urls files by URL into a fresh directory: `fetch get`, `fetch get -Z
#   --parallel-max 8`, `curl`, `curl -Z --parallel-max 8`.
# Floors: a transfer needs two round trips per file on a real network (the data
# connection's handshake, then RETR and its data), so the floor of N files over C
# connections is N x 2 x RTT / C. The proxy accepts connections at once (the
# handshake is local), so a client that opens the next data connection before the
# current transfer ends can go below that floor, down to one round trip per file.
# A re-run transfers nothing: its floor is one session's set-up and one listing,
# counted as 6 round trips (greeting, USER, PASS, EPSV, LIST, its data). Logins
# are left out of the transfer floors.
#
# Why faultproxy and not scripts/bench/delayproxy: faultproxy in ftp mode rewrites
# the 227 and 229 replies, so that every client's data connections go through the
# delay too, wget's included (it connects to the address in the 227 reply, which
# delayproxy leaves pointing at vsftpd itself). No peer here needs its ports kept.
#
# The server: the vsftpd named by FETCH_TEST_ENV (DIR/env from scripts/servers.sh)
# when set, else scripts/servers.sh is started in a temporary directory (root
# needed) and stopped at the end. Tools: curl, lftp, wget, python3, go. Talks only
# to 127.0.0.1. Every command is bounded by timeout(1) (300 s).
set -euo pipefail

prog=bench/distance
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

rounds=3 rtts="10 50" files=2000 peerfiles=200 urls=100 jobs=8 out=""
invocation="bash scripts/bench/distance.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--rtts) rtts=${2:?}; shift 2 ;;
	--files) files=${2:?}; shift 2 ;;
	--peer-files) peerfiles=${2:?}; shift 2 ;;
	--urls) urls=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,48p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case $rounds$files$peerfiles$urls$jobs${rtts// /} in *[!0-9]*) die "--rounds, --rtts, --files, --peer-files, --urls and --jobs take numbers" ;; esac
[ "$rounds" -ge 1 ] && [ "$rounds" -le 50 ] || die "--rounds must be 1..50"
[ "$files" -ge 1 ] && [ "$files" -le 2000 ] || die "--files must be 1..2000"
[ "$peerfiles" -ge 1 ] && [ "$peerfiles" -le 2000 ] || die "--peer-files must be 1..2000"
[ "$urls" -ge 1 ] && [ "$urls" -le 2000 ] || die "--urls must be 1..2000"
[ "$jobs" -ge 1 ] && [ "$jobs" -le 64 ] || die "--jobs must be 1..64"
for r in $rtts; do [ "$r" -ge 2 ] && [ "$r" -le 1000 ] || die "--rtts: $r is not 2..1000 (ms)"; done

top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$top"
out=${out:-$top/bench/distance.md}
for tool in curl lftp wget python3 go timeout; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found (bash scripts/ci-deps.sh --bench)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-bench-distance.XXXXXX")
srvdir="" subdir="" proxypids=()
cleanup() {
	local p
	for p in "${proxypids[@]}"; do kill "$p" 2>/dev/null || true; done
	[ -n "$subdir" ] && rm -rf -- "$subdir"
	[ -n "$srvdir" ] && bash "$top/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
	rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. "$top/scripts/bench/lib.sh"
bench_servers
ftpaddr=$(getenv FETCH_TEST_FTP)
root=$(getenv FETCH_TEST_ROOT)
[ -n "$ftpaddr" ] && [ -d "$root/ftp/pub/many" ] || die "no usable vsftpd in $envfile"
case $ftpaddr in 127.0.0.1:*) ;; *) die "vsftpd at $ftpaddr is not on 127.0.0.1" ;; esac
have=$(find "$root/ftp/pub/many" -maxdepth 1 -type f -name 'f*.txt' | wc -l)
[ "$have" -ge "$files" ] && [ "$have" -ge "$peerfiles" ] && [ "$have" -ge "$urls" ] || die "pub/many has $have files"

say "building fetch and faultproxy"
go build -o "$work/fetch" ./cmd/fetch
go build -o "$work/faultproxy" ./scripts/bench/faultproxy
F=$work/fetch

# The peers' directory: the first --peer-files files of pub/many.
names=()
for ((i = 0; i < 2000; i++)); do names+=("$(printf 'f%04d.txt' "$i")"); done
subdir=$root/ftp/bench-distance
rm -rf -- "$subdir"
mkdir -p "$subdir/few"
(cd "$root/ftp/pub/many" && cp -- "${names[@]:0:$peerfiles}" "$subdir/few/")
chmod -R a+rX "$subdir"
if [ "$files" -lt 2000 ]; then
	mkdir -p "$subdir/all"
	(cd "$root/ftp/pub/many" && cp -- "${names[@]:0:$files}" "$subdir/all/")
	chmod -R a+rX "$subdir"
	alldir=bench-distance/all
else
	alldir=pub/many
fi

# One proxy per round trip: each byte delayed by half of it in each direction.
declare -A proxy
for r in $rtts; do
	half=$(python3 -c "print($r / 2)")
	"$work/faultproxy" -target "$ftpaddr" -mode ftp -delay "${half}ms" -for 2h >"$work/proxy.$r" 2>&1 &
	proxypids+=($!)
	for _ in $(seq 50); do [ -s "$work/proxy.$r" ] && break; sleep 0.1; done
	proxy[$r]=$(head -n 1 "$work/proxy.$r")
	case ${proxy[$r]} in 127.0.0.1:*) ;; *) die "faultproxy did not start: $(cat "$work/proxy.$r")" ;; esac
done

# cmd CASE TOOL RTT: the command line of one tool in one case.
cmd() {
	local c=$1 t=$2 a=${proxy[$3]} dir n u args=()
	local d=$work/out-$t
	case $c in
	few | all)
		dir=bench-distance/few
		[ "$c" = all ] && dir=$alldir
		case $t in
		fetch) echo "$F mirror -s -j $jobs --connect-timeout 20 ftp://$a/$dir/ $d" ;;
		lftp) echo "lftp -c 'set cmd:fail-exit yes; set net:timeout 20; set net:max-retries 2; open ftp://$a; mirror -P $jobs /$dir $d'" ;;
		wget) echo "wget -q -m -nH --cut-dirs=$(($(tr -cd / <<<"$dir" | wc -c) + 1)) --timeout=20 --tries=2 -P $d ftp://$a/$dir/" ;;
		esac
		;;
	urls)
		for n in "${names[@]:0:$urls}"; do
			u=ftp://$a/pub/many/$n
			case $t in
			fetch | fetchZ) args+=("$u") ;;
			*) args+=(-O "$u") ;;
			esac
		done
		case $t in
		fetch) echo "$F get -s --output-dir $d -O ${args[*]}" ;;
		fetchZ) echo "$F get -s -Z --parallel-max $jobs --output-dir $d -O ${args[*]}" ;;
		curl) echo "curl -s --output-dir $d ${args[*]}" ;;
		curlZ) echo "curl -s -Z --parallel-max $jobs --output-dir $d ${args[*]}" ;;
		esac
		;;
	esac
}
tools_of() {
	case $1 in
	few) echo "fetch lftp wget" ;;
	all) echo "fetch" ;;
	urls) echo "fetch fetchZ curl curlZ" ;;
	esac
}
count_of() {
	case $1 in few) echo "$peerfiles" ;; all) echo "$files" ;; urls) echo "$urls" ;; esac
}

# intact CASE TOOL: the files arrived, byte-exact.
intact() {
	local c=$1 t=$2 n want got
	n=$(count_of "$c")
	want=$(cd "$root/ftp/pub/many" && cat -- "${names[@]:0:$n}" | sha256sum | cut -d' ' -f1)
	got=$(cd "$work/out-$t" && cat -- "${names[@]:0:$n}" 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ]
}

# run CASE TOOL RTT PHASE ROUND: time one command; fresh and urls start
# from an empty directory, rerun runs on the tree the fresh run left.
run() {
	local c=$1 t=$2 r=$3 phase=$4 round=$5 s e rc=0
	if [ "$phase" != rerun ]; then
		[ -e "$work/out-$t" ] && mv "$work/out-$t" "$work/old/$((moved++))"
		mkdir -p "$work/out-$t"
	fi
	s=$(date +%s%N)
	timeout 300 bash -c "$(cmd "$c" "$t" "$r")" >/dev/null 2>&1 || rc=$?
	e=$(date +%s%N)
	echo "$c $phase $t $r $round $(((e - s) / 1000)) $rc" >>"$work/times"
	[ "$rc" = 0 ] || say "warning: $c/$t at $r ms ($phase, round $round) exited $rc"
	if [ "$round" = check ]; then
		if intact "$c" "$t"; then echo ok; else echo NOT; fi >"$work/intact.$c.$t.$r.$phase"
		[ "$(cat "$work/intact.$c.$t.$r.$phase")" = ok ] || say "warning: $c/$t at $r ms did not bring the files intact"
	fi
}
mkdir -p "$work/old"
moved=0
: >"$work/times"

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)
for round in check $(seq 1 "$rounds"); do
	k=0
	[ "$round" != check ] && k=$round
	for r in $rtts; do
		for c in few all urls; do
			read -ra ts <<<"$(tools_of "$c")"
			for ((j = 0; j < ${#ts[@]}; j++)); do
				t=${ts[$(((j + k) % ${#ts[@]}))]}
				if [ "$c" = urls ]; then
					run "$c" "$t" "$r" fresh "$round"
				else
					run "$c" "$t" "$r" fresh "$round"
					run "$c" "$t" "$r" rerun "$round"
				fi
			done
			rm -rf -- "$work/old"
			mkdir -p "$work/old"
		done
		say "round $round at $r ms done ($(($(date +%s) - start)) s so far)"
	done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$(dirname -- "$out")"
export work rounds files peerfiles urls jobs rtts server_from load_before load_after invocation alldir
export machine="$(uname -srm); $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
export versions="$(go version | cut -d' ' -f3); $(lftp --version | head -n 1 | sed 's/ | Copyright.*//; s/ |//g'); $(wget --version | head -n 1 | cut -d' ' -f1-3); $(curl --version | head -n 1 | cut -d' ' -f1-2); vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null || echo '?')"
export commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')"
export date="$(date -u '+%Y-%m-%d %H:%M UTC')"
export cmd_examples="$(for c in few all urls; do for t in $(tools_of "$c"); do x=$(cmd "$c" "$t" "${rtts%% *}"); x=${x//$work/\$TMP}; [ ${#x} -gt 220 ] && x="${x:0:220} ..."; echo "$c/$t: $x"; done; done)"
python3 - "$out" <<'PY'
import collections, os, statistics, sys

env = os.environ
work, rounds, jobs = env["work"], int(env["rounds"]), int(env["jobs"])
n = {"few": int(env["peerfiles"]), "all": int(env["files"]), "urls": int(env["urls"])}
t = collections.defaultdict(dict)  # (case, phase, tool, rtt) -> {round: seconds}
bad = []
with open(os.path.join(work, "times")) as f:
    for line in f:
        c, phase, tool, rtt, rnd, us, rc = line.split()
        if rc != "0":
            bad.append(f"{c}/{phase}/{tool} at {rtt} ms, round {rnd}: exit {rc}")
        if rnd != "check":
            t[(c, phase, tool, int(rtt))][int(rnd)] = int(us) / 1e6

def intact(c, tool, rtt, phase):
    try:
        with open(os.path.join(work, f"intact.{c}.{tool}.{rtt}.{phase}")) as f:
            return f.read().strip()
    except OSError:
        return "-"

def med(k):
    return statistics.median(t[k].values())

def ratio(k, ref):
    return statistics.median(t[k][r] / t[ref][r] for r in t[k])

label = {"fetch": f"fetch mirror -j {jobs}", "lftp": f"lftp mirror -P {jobs}", "wget": "wget -m"}
glabel = {"fetch": "fetch get", "fetchZ": f"fetch get -Z --parallel-max {jobs}", "curl": "curl",
          "curlZ": f"curl -Z --parallel-max {jobs}"}
conns = {"fetch": jobs, "lftp": jobs, "wget": 1, "fetchZ": jobs, "curlZ": jobs, "curl": 1}
L = ["# At a distance: fetch beside lftp, wget and curl through a delay", "",
     "Written by `scripts/bench/distance.sh`; do not edit by hand. Every connection to vsftpd",
     "(control and data) goes through internal/testrig/faultproxy, which delivers each byte half a",
     "round trip late in each direction. One untimed check run of each command (files",
     "intact), then rounds in which every command runs once, in an order that rotates from",
     "round to round. Times are medians of the rounds; ratios are medians of the per-round",
     "ratios. Floor: N files x 2 round trips / connections (the data connection's handshake,",
     "then RETR and its data); the proxy's handshakes are local, so a client can go below",
     "it, to one round trip per file. A re-run's floor: 6 round trips (one session, one",
     "listing). The machine is shared with other work and noisy: compare within one run.", "",
     f"- command: `{env['invocation'].strip()}`",
     f"- date: {env['date']}, commit {env['commit']}",
     f"- machine: {env['machine']}",
     f"- load average before / after: {env['load_before']} / {env['load_after']}",
     f"- versions: {env['versions']}",
     f"- servers: {env['server_from']}", ""]
verdicts = []
for rtt in [int(x) for x in env["rtts"].split()]:
    R = rtt / 1000
    for c in ("few", "all"):
        tools = ["fetch", "lftp", "wget"] if c == "few" else ["fetch"]
        where = "bench-distance/few" if c == "few" else env["alldir"]
        L += [f"## Mirror of {n[c]} files ({where}) at {rtt} ms round trip, {rounds} rounds", "",
              "| client | fresh (s) | floor (s) | fresh / floor | re-run (s) | re-run floor (s) | fresh / lftp | files intact |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for tool in tools:
            k = (c, "fresh", tool, rtt)
            fl = n[c] * 2 * R / conns[tool]
            vs = f"{ratio(k, (c, 'fresh', 'lftp', rtt)):.2f}" if c == "few" else "-"
            L.append(f"| {label[tool]} | {med(k):.3f} | {fl:.3f} | {med(k) / fl:.2f} | {med((c, 'rerun', tool, rtt)):.3f} | "
                     f"{6 * R:.3f} | {vs} | {intact(c, tool, rtt, 'fresh')} |")
        L.append("")
        if c == "all":
            k = (c, "fresh", "fetch", rtt)
            fl = n[c] * 2 * R / jobs
            verdicts.append(f"- fresh mirror of {n[c]} files at {rtt} ms: fetch {med(k):.3f} s, {med(k) / fl:.2f}x the floor "
                            f"of {fl:.3f} s" + (f": {'met' if med(k) / fl <= 1.2 else 'MISSED'} (target 1.2x)" if rtt == 10 else ""))
        else:
            x = ratio((c, "fresh", "fetch", rtt), (c, "fresh", "lftp", rtt))
            verdicts.append(f"- fresh mirror of {n[c]} files at {rtt} ms: fetch / lftp -P {jobs} = {x:.2f}"
                            + (f": {'met' if x <= 0.3 else 'MISSED'} (target 0.3)" if rtt == 50 else ""))
    c = "urls"
    L += [f"## {n[c]} files by URL at {rtt} ms round trip, {rounds} rounds", "",
          "| command | median (s) | floor (s) | / floor | ratio to curl -Z | files intact |",
          "| --- | ---: | ---: | ---: | ---: | --- |"]
    for tool in ("fetch", "fetchZ", "curl", "curlZ"):
        k = (c, "fresh", tool, rtt)
        fl = n[c] * 2 * R / conns[tool]
        L.append(f"| {glabel[tool]} | {med(k):.3f} | {fl:.3f} | {med(k) / fl:.2f} | {ratio(k, (c, 'fresh', 'curlZ', rtt)):.2f} | {intact(c, tool, rtt, 'fresh')} |")
    L.append("")
    x = ratio((c, "fresh", "fetchZ", rtt), (c, "fresh", "curlZ", rtt))
    verdicts.append(f"- {n[c]} URLs at {rtt} ms: fetch -Z / curl -Z = {x:.2f}")
L += ["## Targets (issue 17)", ""] + verdicts + [""]
if bad:
    L += ["## Failed runs", ""] + ["- " + b for b in bad] + [""]
L += ["## Commands (first round trip; $TMP is the run's directory)", "", "```"] + env["cmd_examples"].splitlines() + ["```", ""]
with open(sys.argv[1], "w") as f:
    f.write("\n".join(L))
PY
say "wrote $out"
