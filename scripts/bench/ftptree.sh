#!/usr/bin/env bash
# ftptree.sh: an FTP tree mirrored, fresh and re-run (unchanged tree), from vsftpd
# through scripts/bench/faultproxy (-mode ftp: control and data connections
# delayed), by fetch (and an older fetch beside it with --before), lftp and wget;
# rounds interleaved, the order rotating; medians, floors and the commands each
# client sent (from vsftpd's log) to bench/ftptree.md.
#
#   bash scripts/bench/ftptree.sh [--rounds N] [--rtts "10 20 50"] [--dirs N]
#                                 [--files N] [--jobs N] [--before BUILD] [--peers LIST]
#                                 [--out FILE]
#
#   --rounds N     timed rounds (default 3), after one untimed check round whose
#                  files are compared with the source
#   --rtts LIST    round trips in ms (default "10 20 50")
#   --dirs N       directories of the tree (default 20), --files N files in each
#                  (default 25), 100 to 2,000 bytes each
#   --jobs N       connections of fetch -j and lftp -P (default 8)
#   --before BUILD an older fetch: a binary, or a checkout to build it from
#   --peers LIST   the other clients (default "lftp wget"; "" for fetch alone)
#   --out FILE     the report (default bench/ftptree.md in the repository)
#
# Floors, at a round trip R with C connections, D directories of F files, for a
# client that sends USER and PASS together, and each EPSV ahead with the request
# before it so that a listing or a transfer costs one round trip on its
# connection: half a round trip for the greeting, one for the login, one for the
# root's listing (which names the directories), then the D listings and the
# D x F transfers, C at a time:
#   fresh  (2.5 + ceil((D + D x F) / C)) x R
#   re-run (2.5 + ceil(D / C)) x R          (the listings alone)
# The counts are of one run each (medians over the timed rounds), from vsftpd's
# log: CWD per directory visited is CWD / (D + 1); EPSV wasted is EPSV and PASV
# less the data transfers (LIST, NLST, MLSD, RETR) that used one.
#
# The server: the vsftpd named by FETCH_TEST_ENV (DIR/env from scripts/servers.sh)
# when set, else scripts/servers.sh is started in a temporary directory (root
# needed) and stopped at the end. The tree is made under the server's FTP root
# (bench-ftptree) and removed at the end; nothing else may use that vsftpd during
# the run (its log is counted). Tools: lftp, wget, python3, go, flock. Talks only to
# 127.0.0.1. Every command is bounded by timeout(1) (300 s).
set -euo pipefail

prog=bench/ftptree
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

rounds=3 rtts="10 20 50" dirs=20 files=25 jobs=8 before="" peers="lftp wget" out=""
invocation="bash scripts/bench/ftptree.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--rtts) rtts=${2:?}; shift 2 ;;
	--dirs) dirs=${2:?}; shift 2 ;;
	--files) files=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--before) before=${2:?}; shift 2 ;;
	--peers) peers=$2; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,39p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
. "$top/scripts/bench/lib.sh"
check_tree_args
for p in $peers; do case $p in lftp | wget) ;; *) die "--peers: $p is not lftp or wget" ;; esac; done
for tool in $peers go python3 timeout; do
	command -v "$tool" >/dev/null || die "$tool is missing (bash scripts/ci-deps.sh --bench)"
done

cd "$top"
out=${out:-$top/bench/ftptree.md}
work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-bench-ftptree.XXXXXX")
srvdir="" tree="" proxypid=""
cleanup() {
	[ -n "$proxypid" ] && kill "$proxypid" 2>/dev/null
	[ -n "$tree" ] && rm -rf -- "$tree"
	[ -n "$srvdir" ] && bash "$top/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
	rm -rf -- "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bench_servers
ftpaddr=$(getenv FETCH_TEST_FTP)
root=$(getenv FETCH_TEST_ROOT)
log=$(getenv FETCH_TEST_FTP_LOG)
[ -n "$ftpaddr" ] && [ -d "$root/ftp" ] && [ -f "$log" ] || die "no usable vsftpd in $envfile"
case $ftpaddr in 127.0.0.1:*) ;; *) die "vsftpd at $ftpaddr is not on 127.0.0.1" ;; esac
# One run at a time per server: the tree and the log's counts are the run's.
exec 9<"$log"
flock -n 9 || die "another ftptree.sh is using the vsftpd of $envfile"

say "building fetch (after: $top) and faultproxy"
go build -o "$work/fetch-after" ./cmd/fetch
go build -o "$work/faultproxy" ./scripts/bench/faultproxy
tools=(after)
if [ -n "$before" ]; then
	if [ -d "$before" ]; then
		say "building fetch (before: $before)"
		(cd "$before" && go build -o "$work/fetch-before" ./cmd/fetch)
		before_commit=$(git -C "$before" rev-parse --short HEAD)
	else
		[ -x "$before" ] || die "--before $before is neither a checkout nor an executable"
		cp -- "$before" "$work/fetch-before"
		before_commit=$(basename -- "$before")
	fi
	tools=(before after)
fi
tools+=($peers)

# The tree: dirs x files files of 100 to 2,000 bytes, a fixed time.
tree=$root/ftp/bench-ftptree
rm -rf -- "$tree"
for ((d = 0; d < dirs; d++)); do
	mkdir -p "$tree/d$d"
	for ((f = 0; f < files; f++)); do
		head -c $((100 + (d * 131 + f * 71) % 1900)) /dev/zero | tr '\0' x >"$tree/d$d/f$f.txt"
	done
done
touch -d '2026-11-01 12:00:00' "$tree"/*/* "$tree"/*
chmod -R a+rX "$tree"
want=$(tree_digest "$tree")

# commands TOOL ADDR DST: the command line of one client.
commands() {
	local t=$1 a=$2 d=$3
	case $t in
	before | after) echo "$work/fetch-$t mirror -j $jobs --connect-timeout 20 ftp://$a/bench-ftptree/ $d" ;;
	lftp) echo "lftp -c 'set cmd:fail-exit yes; set net:timeout 20; set net:max-retries 2; open ftp://$a; mirror -P $jobs /bench-ftptree $d'" ;;
	wget) echo "wget -q -m -nH --cut-dirs=1 --timeout=20 --tries=2 -P $d ftp://$a/bench-ftptree/" ;;
	esac
}

# intact DIR: whether DIR holds the tree.
intact() { [ "$(tree_digest "$1" 'f*.txt')" = "$want" ]; }

# settle: wait (at most 3 s) until vsftpd's log has not grown for 0.3 s, so
# that the commands a client sent as it left are counted with its run.
settle() {
	local a b=-1 quiet=0
	for _ in $(seq 30); do
		a=$(stat -c %s "$log")
		if [ "$a" = "$b" ]; then quiet=$((quiet + 1)); else quiet=0; fi
		[ "$quiet" -ge 3 ] && return
		b=$a
		sleep 0.1
	done
}

# run CMD: the microseconds CMD took (timeout 300 s); a failure is noted. The
# commands vsftpd logged meanwhile go to $work/run.log.
run() {
	local t0 t1 off
	settle
	off=$(stat -c %s "$log")
	t0=$(date +%s%N)
	timeout 300 bash -c "$1" >/dev/null 2>>"$work/errors" || echo "exit $? from: $1" >>"$work/errors"
	t1=$(date +%s%N)
	settle
	tail -c +$((off + 1)) "$log" >"$work/run.log"
	echo $(((t1 - t0) / 1000))
}

# counts: CWD, EPSV+PASV, data transfers, logins and commands of $work/run.log.
counts() {
	awk -F'"' '
		/FTP command:/ { n++; split($4, w, " "); c = toupper(w[1])
			if (c == "CWD") cwd++; else if (c == "EPSV" || c == "PASV") pasv++
			else if (c == "RETR" || c == "LIST" || c == "NLST" || c == "MLSD") data++ }
		/OK LOGIN:/ { login++ }
		END { printf "%d %d %d %d %d\n", cwd, pasv, data, login, n }' "$work/run.log"
}

results=$work/results
: >"$results"
: >"$work/errors"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for rtt in $rtts; do
	half=$(python3 -c "print($rtt / 2)")
	"$work/faultproxy" -target "$ftpaddr" -mode ftp -delay "${half}ms" -for 50m >"$work/proxy.out" 2>&1 &
	proxypid=$!
	for _ in $(seq 50); do [ -s "$work/proxy.out" ] && break; sleep 0.1; done
	proxy=$(head -n 1 "$work/proxy.out")
	case $proxy in 127.0.0.1:*) ;; *) die "faultproxy did not start: $(cat "$work/proxy.out")" ;; esac
	for ((r = 0; r <= rounds; r++)); do
		say "$rtt ms: round $r of $rounds"
		for ((k = 0; k < ${#tools[@]}; k++)); do
			t=${tools[$(((k + r) % ${#tools[@]}))]}
			dst=$work/out-$t
			rm -rf -- "$dst"
			cmd=$(commands "$t" "$proxy" "$dst")
			for phase in fresh rerun; do
				us=$(run "$cmd")
				if [ "$r" -eq 0 ]; then
					[ "$phase" = fresh ] || continue
					if intact "$dst"; then echo "intact $rtt $t ok" >>"$results"; else echo "intact $rtt $t NOT" >>"$results"; fi
					continue
				fi
				echo "time $rtt $t $phase $us $(counts)" >>"$results"
			done
		done
	done
	kill "$proxypid" 2>/dev/null || true
	wait "$proxypid" 2>/dev/null || true
	proxypid=""
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

mkdir -p "$(dirname -- "$out")"
export results rounds dirs files jobs invocation load_before load_after server_from
export errors="$(head -c 2000 "$work/errors" 2>/dev/null || true)"
export commands_after="$(commands after 127.0.0.1:PORT DIR | sed "s|$work/fetch-after|fetch|")" commands_lftp="$(commands lftp 127.0.0.1:PORT DIR)" commands_wget="$(commands wget 127.0.0.1:PORT DIR)"
export versions="$(go version | cut -d' ' -f3); $(lftp --version 2>/dev/null | head -n 1 | sed 's/ | Copyright.*//; s/ |//g'); $(wget --version 2>/dev/null | head -n 1 | cut -d' ' -f1-3); vsftpd $(dpkg-query -W -f='${Version}' vsftpd 2>/dev/null || echo '?')"
export commit="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo ' (with uncommitted changes)')" before_commit="${before_commit:--}"
export date="$(date -u '+%Y-%m-%d %H:%M UTC')"
python3 - "$out" <<'PY'
import math, os, statistics, sys
env = os.environ
runs, intact = {}, {}
for line in open(env["results"]):
    f = line.split()
    if f[0] == "time":
        runs.setdefault((int(f[1]), f[2], f[3]), []).append([int(f[4]) / 1e6] + [int(x) for x in f[5:]])
    elif f[0] == "intact":
        intact[(int(f[1]), f[2])] = f[3]
dirs, files, jobs = int(env["dirs"]), int(env["files"]), int(env["jobs"])
label = {"before": f"fetch mirror -j {jobs} (before, {env['before_commit']})", "after": f"fetch mirror -j {jobs} ({env['commit']})",
         "lftp": f"lftp mirror -P {jobs}", "wget": "wget -m"}
tools = [t for t in ["before", "after", "lftp", "wget"] if any(k[1] == t for k in runs)]
rtts = sorted({k[0] for k in runs})
med = lambda k, i: statistics.median(x[i] for x in runs[k])
floor_fresh = lambda rtt: (2.5 + math.ceil((dirs + dirs * files) / jobs)) * rtt / 1000
floor_rerun = lambda rtt: (2.5 + math.ceil(dirs / jobs)) * rtt / 1000
L = [f"# FTP tree at a distance: {dirs} directories x {files} files", "",
     "Written by `scripts/bench/ftptree.sh`; do not edit by hand.", "",
     f"- command: `{env['invocation'].strip()}`",
     f"- date: {env['date']}, commit {env['commit']}; before: {env['before_commit']}",
     f"- load average before / after: {env['load_before']} / {env['load_after']}",
     f"- versions: {env['versions']}",
     f"- servers: {env['server_from']}", "",
     "vsftpd behind scripts/bench/faultproxy -mode ftp (control and data connections delayed by",
     f"half the round trip each way). Medians of {env['rounds']} interleaved rounds (order rotating), seconds;",
     "min-max in brackets. Counts are medians of the same runs, from vsftpd's log: CWD per",
     f"directory visited is CWD / {dirs + 1}; EPSV wasted is EPSV and PASV less the LIST, NLST, MLSD",
     "and RETR that used one.", "",
     f"Floors at a round trip R over {jobs} connections (greeting 0.5, USER and PASS together 1, the root's",
     "listing 1, then every listing and transfer one round trip on its connection, its EPSV sent ahead):",
     f"fresh (2.5 + ceil(({dirs} + {dirs} x {files}) / {jobs})) R, re-run (2.5 + ceil({dirs} / {jobs})) R.", ""]
for phase, floor in (("fresh", floor_fresh), ("rerun", floor_rerun)):
    L += [f"## {'Fresh' if phase == 'fresh' else 'Re-run (unchanged tree)'}", "",
          "| RTT | client | seconds | / floor | / lftp | CWD | CWD per dir | EPSV+PASV | wasted | transfers | logins | commands | intact |",
          "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for rtt in rtts:
        fl = floor(rtt)
        for t in tools:
            k = (rtt, t, phase)
            s = med(k, 0)
            vs = f"{s / med((rtt, 'lftp', phase), 0):.2f}" if "lftp" in tools else "-"
            span = f"[{min(x[0] for x in runs[k]):.2f}-{max(x[0] for x in runs[k]):.2f}]"
            cwd, pasv, data, login, n = (med(k, i) for i in range(1, 6))
            wasted = statistics.median(x[2] - x[3] for x in runs[k])
            L.append(f"| {rtt} ms | {label[t]} | {s:.3f} {span} | {s / fl:.2f} | {vs} | {cwd:g} | {cwd / (dirs + 1):.2f} | "
                     f"{pasv:g} | {wasted:g} | {data:g} | {login:g} | {n:g} | {intact.get((rtt, t), '?')} |")
        L.append(f"| {rtt} ms | floor | {fl:.3f} | 1 | | | | | | | | | |")
    L.append("")
L += ["Commands (DIR empty for the fresh run, then the same command again):", "",
      f"- `{env['commands_after']}`", f"- `{env['commands_lftp']}`", f"- `{env['commands_wget']}`"]
if env.get("errors"):
    L += ["", "Errors:", "", "```", env["errors"], "```"]
open(sys.argv[1], "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
