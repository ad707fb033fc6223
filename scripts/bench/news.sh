#!/usr/bin/env bash
# news.sh: time `fetch mirror` of the three archive groups beside suck and
# slrnpull on the same INN (nnrpd), and write bench/news.md.
#
#   bash scripts/bench/news.sh [--rounds N] [--jobs J] [--out FILE]
#
# The servers are started by scripts/servers.sh in a temporary directory (root
# needed) and exactly those are stopped afterwards: a fresh tree, so that every
# article is in INN's history (suck asks for articles by Message-ID).
# Each round makes a fresh mirror with each client, in an order that rotates
# from round to round (the shared machine's load drifts):
#   fetch     fetch mirror -s -j J nntp://ADDR/archive.* DIR
#   suck      suck 127.0.0.1 -N PORT -m -c -K -q (sucknewsrc: the three groups at 0)
#   slrnpull  slrnpull -d DIR -h ADDR --no-post (slrnpull.conf: the three groups, all articles)
# Each client's copy is checked (fetch: 880 files with the crossposts linked,
# suck: 800 distinct articles, slrnpull: 880 articles); the median wall time of
# each client and the ratios fetch/suck and fetch/slrnpull go into the report.
# Needs go, suck, slrnpull, python3 (scripts/ci-deps.sh --bench). Talks only to
# 127.0.0.1.
set -euo pipefail

prog=bench-news
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=7 jobs=4
out=$root/bench/news.md
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift 2 ;;
	--jobs) jobs=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,20p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case $rounds$jobs in '' | *[!0-9]*) die "--rounds and --jobs want numbers" ;; esac
for c in go suck slrnpull; do
	command -v "$c" >/dev/null 2>&1 || die "$c not found (bash scripts/ci-deps.sh --bench)"
done
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || die "python3 not found"

work=$(mktemp -d /tmp/bench-news.XXXXXX)
chmod 755 "$work" # nnrpd runs as news
srvdir=$work/servers
cleanup() {
	bash "$root/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

say "starting servers in $srvdir"
bash "$root/scripts/servers.sh" start "$srvdir" >&2 || die "scripts/servers.sh start failed"
addr=$(sed -n 's/^FETCH_TEST_NNTP=//p' "$srvdir/env")
case $addr in 127.0.0.1:*) ;; *) die "no nnrpd on loopback in $srvdir/env: '$addr'" ;; esac
port=${addr##*:}

say "building fetch"
(cd "$root" && go build -o "$work/fetch" ./cmd/fetch) || die "go build ./cmd/fetch failed"

now() { date +%s%N; }

# run_CLIENT DIR: a fresh mirror into DIR; prints nothing.
run_fetch() {
	"$work/fetch" mirror -s -j "$jobs" "nntp://$addr/archive.*" "$1" >/dev/null
}
run_suck() {
	mkdir -p "$1/d" "$1/m" "$1/t"
	printf 'archive.alpha 0\narchive.beta 0\narchive.gamma 0\n' >"$1/d/sucknewsrc"
	(cd "$1" && suck 127.0.0.1 -N "$port" -dd d -dm m -dt t -m -c -K -q >/dev/null 2>&1)
}
run_slrnpull() {
	mkdir -p "$1"
	printf 'default 0 0 0\narchive.alpha\narchive.beta\narchive.gamma\n' >"$1/slrnpull.conf"
	slrnpull -d "$1" -h "$addr" --no-post >/dev/null 2>&1
}
# count_CLIENT DIR: the articles the copy holds.
count_fetch() { find "$1/archive" -type f | wc -l; }
count_suck() { find "$1/m" -type f | wc -l; }
count_slrnpull() { find "$1/news/archive" -type f -name '[0-9]*' | wc -l; }
want_fetch=880 want_suck=800 want_slrnpull=880

clients=(fetch suck slrnpull)
: >"$work/times"
for r in $(seq 1 "$rounds"); do
	for i in 0 1 2; do
		c=${clients[$(((i + r) % 3))]}
		d=$work/$c.$r
		t0=$(now)
		"run_$c" "$d" || die "$c failed in round $r"
		t1=$(now)
		got=$("count_$c" "$d")
		want=want_$c
		[ "$got" -eq "${!want}" ] || die "$c copied $got articles in round $r, want ${!want}"
		printf '%s %d %d\n' "$c" "$r" $((t1 - t0)) >>"$work/times"
		say "round $r: $c $(((t1 - t0) / 1000000)) ms"
		rm -rf "$d"
	done
done

mkdir -p "$(dirname "$out")"
"$py" - "$work/times" "$out" "$rounds" "$jobs" <<'PY'
import datetime, statistics, subprocess, sys
times, out, rounds, jobs = sys.argv[1:5]
t = {}
for line in open(times):
    c, r, ns = line.split()
    t.setdefault(c, {})[int(r)] = int(ns) / 1e9
med = {c: statistics.median(v.values()) for c, v in t.items()}
def ratio_med(a, b):
    return statistics.median(t[a][r] / t[b][r] for r in t[a])
def ver(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return (p.stdout or p.stderr).splitlines()[0]
    except Exception as e:
        return "unknown (%s)" % e
def pkg(p):
    return ver(["dpkg-query", "-W", "-f=${Package} ${Version}", p])
load = open("/proc/loadavg").read().split()[:3]
with open(out, "w") as w:
    w.write("# news: fetch mirror beside suck and slrnpull\n\n")
    w.write("Written by `bash scripts/bench/news.sh --rounds %s --jobs %s` on %s UTC.\n"
            % (rounds, jobs, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")))
    w.write("A fresh mirror of `archive.alpha`, `archive.beta` and `archive.gamma` (880\n"
            "articles, 800 distinct: 80 crossposts; 433 KiB) from INN 2.7 nnrpd on 127.0.0.1,\n"
            "each client into an empty directory, %s rounds in rotating order. Wall time per run;\n"
            "medians over the rounds; ratio = median over the rounds of fetch / peer (below 1:\n"
            "fetch is faster).\n\n" % rounds)
    w.write("| client | median | min | max |\n| --- | --- | --- | --- |\n")
    for c in ("fetch", "suck", "slrnpull"):
        v = t[c].values()
        w.write("| %s | %.3f s | %.3f s | %.3f s |\n" % (c, med[c], min(v), max(v)))
    w.write("\n- fetch / suck: %.3f\n- fetch / slrnpull: %.3f\n\n" % (ratio_med("fetch", "suck"), ratio_med("fetch", "slrnpull")))
    w.write("Commands: `fetch mirror -s -j %s nntp://ADDR/archive.* DIR`; `suck 127.0.0.1 -N PORT\n"
            "-dd d -dm m -dt t -m -c -K -q` with a sucknewsrc of the three groups at 0 (suck asks\n"
            "ARTICLE <message-id> for each article and stores each distinct article once);\n"
            "`slrnpull -d DIR -h ADDR --no-post` with `default 0 0 0` and the three groups in\n"
            "slrnpull.conf (XHDR Message-ID, then HEAD and BODY by number for each article, one\n"
            "file per group and number, on one connection). fetch lists with OVER and pipelines\n"
            "ARTICLE (64 in flight) on each of its connections, a group's articles split in\n"
            "chunks over the connections.\n\n" % jobs)
    w.write("Machine: %s, 2 cores shared with other work; load average at the end %s.\n"
            "The machine is noisy: compare medians and ratios, not single runs.\n"
            "Versions: %s; %s; %s; %s.\n" % (ver(["uname", "-srm"]), " ".join(load), pkg("suck"), pkg("slrnpull"),
                                             pkg("inn2"), ver(["go", "version"])))
print(open(out).read())
PY
