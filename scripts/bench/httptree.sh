#!/usr/bin/env bash
# httptree.sh: an HTTP index tree mirrored, fresh and re-run (unchanged tree),
# through scripts/bench/delayproxy, by two builds of fetch side by side (the
# "before" and "after" of a change), lftp and wget; rounds interleaved, the order
# rotating; medians to bench/httptree.md.
#
#   bash scripts/bench/httptree.sh [--rounds N] [--rtts "10 20 50"] [--dirs N]
#                                  [--files N] [--jobs N] [--before DIR] [--out FILE]
#
#   --rounds N   timed rounds (default 3), after one untimed check round whose
#                files are compared with the source
#   --rtts LIST  round trips in ms (default "10 20 50")
#   --dirs N     directories of the tree (default 20), --files N files in each
#                (default 25), 100 to 2,000 bytes each
#   --jobs N     connections of fetch -j and lftp -P (default 8)
#   --before DIR a checkout whose fetch is the "before" build (default: none)
#   --out FILE   the report (default bench/httptree.md in the repository)
#
# The server is an nginx of its own (autoindex on, as Debian ships it: sizes in
# bytes, times to the minute) on 127.0.0.1 in a temporary directory, and a second
# location of the same tree with autoindex_format json (times to the second) that
# fetch alone reads. Floors, at a round trip R with C connections and D
# directories: a re-run lists the root, then the D directories, C at a time, with
# the conditional requests of a directory pipelined behind its listing: (1 +
# ceil(D / C)) x R. A fresh run asks for the D listings and the files one at a
# time per connection: (1 + ceil((D + D x files) / C)) x R.
# Needs root (nginx drops to nobody), nginx, lftp, wget, go, python3. Talks only
# to 127.0.0.1 and to the proxy on [::1].
set -euo pipefail

prog=bench/httptree
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

rounds=3 rtts="10 20 50" dirs=20 files=25 jobs=8 before="" out=""
invocation="bash scripts/bench/httptree.sh $*"
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--rtts) rtts=${2:?}; shift 2 ;;
	--dirs) dirs=${2:?}; shift 2 ;;
	--files) files=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--before) before=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,29p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
top=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd -P)
. "$top/scripts/bench/lib.sh"
check_tree_args
for tool in nginx lftp wget go python3 timeout; do
	command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] || die "$tool is missing"
done

cd "$top"
out=${out:-$top/bench/httptree.md}
work=$(mktemp -d "${TMPDIR:-/tmp}/httptree.XXXXXX")
nginxpid="" proxypid=""
cleanup() {
	[ -n "$proxypid" ] && kill "$proxypid" 2>/dev/null
	[ -n "$nginxpid" ] && kill "$nginxpid" 2>/dev/null
	wait 2>/dev/null
	rm -rf -- "$work"
}
trap cleanup EXIT
chmod 755 "$work"

say "building fetch (after: $top)"
go build -o "$work/fetch-after" ./cmd/fetch
tools=(after)
if [ -n "$before" ]; then
	say "building fetch (before: $before)"
	(cd "$before" && go build -o "$work/fetch-before" ./cmd/fetch)
	tools=(before after)
fi
tools+=(afterjson lftp wget)
go build -o "$work/delayproxy" ./scripts/bench/delayproxy

# The tree: dirs x files files of 100 to 2,000 bytes, a fixed time.
www=$work/www
for ((d = 0; d < dirs; d++)); do
	mkdir -p "$www/tree/d$d"
	for ((f = 0; f < files; f++)); do
		head -c $((100 + (d * 131 + f * 71) % 1900)) /dev/zero | tr '\0' x >"$www/tree/d$d/f$f.txt"
	done
done
touch -d '2026-11-01 12:00:00' "$www"/tree/*/* "$www"/tree/*
chmod -R a+rX "$www"
want=$(tree_digest "$www/tree")

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/nginx/tmp"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
user nobody nogroup;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 512; }
http {
    default_type application/octet-stream;
    access_log $work/nginx/access.log;
    client_body_temp_path $work/nginx/tmp/body;
    proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi;
    uwsgi_temp_path $work/nginx/tmp/uwsgi;
    scgi_temp_path $work/nginx/tmp/scgi;
    keepalive_timeout 30;
    keepalive_requests 10000;
    server {
        listen 127.0.0.1:$port;
        root $www;
        autoindex on;
        location /jtree/ { alias $www/tree/; autoindex_format json; }
    }
}
EOF
setsid /usr/sbin/nginx -p "$work/nginx/" -e "$work/nginx/error.log" -c "$work/nginx/nginx.conf" -g 'daemon off;' >"$work/nginx/out" 2>&1 &
nginxpid=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.1; done

# commands TOOL HOST DST: the command line of one client.
commands() {
	local t=$1 h=$2 d=$3
	case $t in
	before | after) echo "$work/fetch-$t mirror -j $jobs http://$h/tree/ $d" ;;
	afterjson) echo "$work/fetch-after mirror -j $jobs http://$h/jtree/ $d" ;;
	lftp) echo "lftp -c 'set cmd:fail-exit yes; set net:timeout 20; set net:max-retries 2; mirror -P $jobs http://$h/tree/ $d'" ;;
	wget) echo "wget -q -m -np -nH --cut-dirs=1 --reject-regex=[?] --timeout=20 --tries=2 -P $d http://$h/tree/" ;;
	esac
}

# intact DIR: whether DIR holds the tree.
intact() { [ "$(tree_digest "$1" 'f*.txt')" = "$want" ]; }

# run CMD: the seconds CMD took (timeout 300 s); a failure is noted.
run() {
	local t0 t1
	t0=$(date +%s%N)
	timeout 300 bash -c "$1" >/dev/null 2>>"$work/errors" || echo "exit $? from: $1" >>"$work/errors"
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000))
}

results=$work/results
: >"$results"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for rtt in $rtts; do
	proxyaddr=[::1]
	: >"$work/proxy.out"
	"$work/delayproxy" -rtt "${rtt}ms" -for 50m -ports "$port" >"$work/proxy.out" 2>&1 &
	proxypid=$!
	for _ in $(seq 50); do grep -qx ready "$work/proxy.out" 2>/dev/null && break; sleep 0.1; done
	grep -qx ready "$work/proxy.out" || die "delayproxy did not start: $(cat "$work/proxy.out")"
	for ((r = 0; r <= rounds; r++)); do
		say "$rtt ms: round $r of $rounds"
		for ((k = 0; k < ${#tools[@]}; k++)); do
			t=${tools[$(((k + r) % ${#tools[@]}))]}
			dst=$work/out-$t
			rm -rf -- "$dst"
			cmd=$(commands "$t" "$proxyaddr:$port" "$dst")
			fresh=$(run "$cmd")
			rerun=$(run "$cmd")
			if [ "$r" -eq 0 ]; then
				if intact "$dst"; then echo "intact $rtt $t ok" >>"$results"; else echo "intact $rtt $t NOT" >>"$results"; fi
				continue
			fi
			echo "time $rtt $t fresh $fresh" >>"$results"
			echo "time $rtt $t rerun $rerun" >>"$results"
		done
	done
	kill "$proxypid" 2>/dev/null || true
	wait "$proxypid" 2>/dev/null || true
	proxypid=""
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
# The requests of one re-run of each client, from nginx's log (no proxy).
for t in "${tools[@]}"; do
	: >"$work/nginx/access.log"
	bash -c "$(commands "$t" "127.0.0.1:$port" "$work/out-$t")" >/dev/null 2>&1 || true
	echo "requests $t $(wc -l <"$work/nginx/access.log")" >>"$results"
done

mkdir -p "$(dirname -- "$out")"
export results rounds dirs files jobs invocation load_before load_after
export errors="$(head -c 2000 "$work/errors" 2>/dev/null || true)"
export commands_after="$(commands after '[::1]:PORT' DIR | sed "s|$work/fetch-after|fetch|")" commands_lftp="$(commands lftp '[::1]:PORT' DIR)" commands_wget="$(commands wget '[::1]:PORT' DIR)"
export versions="$(go version | cut -d' ' -f3); $(lftp --version | head -n 1 | sed 's/ | Copyright.*//; s/ |//g'); $(wget --version | head -n 1 | cut -d' ' -f1-3); nginx $(dpkg-query -W -f='${Version}' nginx 2>/dev/null || echo '?')"
export commit="$(git rev-parse --short HEAD)" before_commit="$([ -n "$before" ] && git -C "$before" rev-parse --short HEAD || echo -)"
export date="$(date -u '+%Y-%m-%d %H:%M UTC')"
python3 - "$out" <<'PY'
import math, os, statistics, sys
env = os.environ
times, intact, reqs = {}, {}, {}
for line in open(env["results"]):
    f = line.split()
    if f[0] == "time":
        times.setdefault((int(f[1]), f[2], f[3]), []).append(int(f[4]) / 1e6)
    elif f[0] == "intact":
        intact[(int(f[1]), f[2])] = f[3]
    elif f[0] == "requests":
        reqs[f[1]] = f[2]
dirs, files, jobs = int(env["dirs"]), int(env["files"]), int(env["jobs"])
label = {"before": f"fetch mirror -j {jobs} (before, {env['before_commit']})", "after": f"fetch mirror -j {jobs} ({env['commit']})",
         "afterjson": f"fetch mirror -j {jobs} ({env['commit']}), JSON index", "lftp": f"lftp mirror -P {jobs}", "wget": "wget -m"}
tools = [t for t in ["before", "after", "afterjson", "lftp", "wget"] if any(k[1] == t for k in times)]
rtts = sorted({k[0] for k in times})
med = lambda k: statistics.median(times[k]) if k in times else float("nan")
L = [f"# HTTP index tree at a distance: {dirs} directories x {files} files", "",
     f"{env['date']}, commit {env['commit']}. `{env['invocation']}`", "",
     "nginx (autoindex on: sizes in bytes, times to the minute; the JSON row reads",
     "autoindex_format json, times to the second) behind scripts/bench/delayproxy.",
     f"Medians of {env['rounds']} interleaved rounds (order rotating), seconds; min-max in brackets.",
     f"Floors: re-run (1 + ceil({dirs}/{jobs})) round trips; fresh (1 + ceil({dirs + dirs * files}/{jobs})).", ""]
L += ["| RTT | client | fresh (s) | fresh / floor | fresh / lftp | re-run (s) | re-run / floor | re-run / lftp | requests, re-run | intact |",
      "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
for rtt in rtts:
    rf = (1 + math.ceil(dirs / jobs)) * rtt / 1000
    ff = (1 + math.ceil((dirs + dirs * files) / jobs)) * rtt / 1000
    for t in tools:
        f, r = med((rtt, t, "fresh")), med((rtt, t, "rerun"))
        lf, lr = med((rtt, "lftp", "fresh")), med((rtt, "lftp", "rerun"))
        span = lambda k: f"[{min(times[k]):.2f}-{max(times[k]):.2f}]" if k in times else ""
        L.append(f"| {rtt} ms | {label[t]} | {f:.3f} {span((rtt, t, 'fresh'))} | {f / ff:.2f} | {f / lf:.2f} | {r:.3f} {span((rtt, t, 'rerun'))} | {r / rf:.1f} | {r / lr:.2f} | {reqs.get(t, '?')} | {intact.get((rtt, t), '?')} |")
    L.append(f"| {rtt} ms | floor | {ff:.3f} | 1 | | {rf:.3f} | 1 | | | |")
L += ["", "Commands (DIR fresh for the first run, then the same command again):", "",
      f"- `{env['commands_after']}`", f"- `{env['commands_lftp']}`", f"- `{env['commands_wget']}`", "",
      f"Versions: {env['versions']}. Load average {env['load_before']} before, {env['load_after']} after."]
if env.get("errors"):
    L += ["", "Errors:", "", "```", env["errors"], "```"]
open(sys.argv[1], "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
