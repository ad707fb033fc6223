#!/usr/bin/env bash
# gopher.sh: time `fetch` beside `curl` on the same pygopherd, and write bench/gopher.md.
#
#   bash scripts/bench/gopher.sh [--runs N] [--out FILE]
#
# Cases (fixture tree of scripts/fixtures.sh, see internal/testrig/servertest/doc.go):
#   the 5 MiB binary  gopher://ADDR/9/bin5m.bin   (both write it to /dev/null)
#   the 2,000-item menu  gopher://ADDR/1/big      (curl prints the raw menu, fetch
#                                                  parses it and prints one line per
#                                                  item with the item's URL)
# hyperfine runs each pair side by side in rounds that alternate the order; the
# medians and the ratio fetch/curl go into the report, with the Go benchmarks of
# the parsers.
#
# The servers: FETCH_TEST_ENV=DIR/env (from `scripts/servers.sh start DIR`) when set
# and its pygopherd answers; otherwise this script starts them in a temporary
# directory (root needed, as for servers.sh) and stops exactly those afterwards.
# Needs go, curl, hyperfine, python3 (scripts/ci-deps.sh --bench installs them).
# Talks only to 127.0.0.1.
set -euo pipefail

prog=bench-gopher
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }
say() { printf '%s: %s\n' "$prog" "$*" >&2; }

root=$(cd "$(dirname "$0")/../.." && pwd)
runs=30
out=$root/bench/gopher.md
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=${2:?}; shift 2 ;;
	--out) out=${2:?}; shift 2 ;;
	-h | --help) sed -n '2,19p' "$0"; exit 0 ;;
	*) die "unknown argument: $1" ;;
	esac
done
case $runs in '' | *[!0-9]*) die "--runs wants a number" ;; esac

for c in go curl hyperfine; do
	command -v "$c" >/dev/null 2>&1 || die "$c not found (bash scripts/ci-deps.sh --bench)"
done
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3) || die "python3 not found"

work=$(mktemp -d /tmp/bench-gopher.XXXXXX)
srvdir=""
cleanup() {
	if [ -n "$srvdir" ]; then
		bash "$root/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# env_get FILE KEY: the value of KEY in a servers.sh env file.
env_get() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

addr=""
if [ -n "${FETCH_TEST_ENV:-}" ] && [ -f "$FETCH_TEST_ENV" ]; then
	addr=$(env_get "$FETCH_TEST_ENV" FETCH_TEST_GOPHER)
	if [ -n "$addr" ] && ! curl -s -m 5 -o /dev/null "gopher://$addr/1/"; then
		say "pygopherd at $addr (from $FETCH_TEST_ENV) does not answer; starting servers"
		addr=""
	fi
fi
if [ -z "$addr" ]; then
	srvdir=$work/servers
	say "starting servers in $srvdir"
	bash "$root/scripts/servers.sh" start "$srvdir" >&2 || die "scripts/servers.sh start failed"
	addr=$(env_get "$srvdir/env" FETCH_TEST_GOPHER)
	[ -n "$addr" ] || die "no FETCH_TEST_GOPHER in $srvdir/env"
fi
case $addr in 127.0.0.1:* | \[::1\]:*) ;; *) die "refusing a gopher server that is not on loopback: $addr" ;; esac

say "building fetch"
(cd "$root" && go build -o "$work/fetch" ./cmd/fetch) || die "go build ./cmd/fetch failed"
fetch=$work/fetch

bin="gopher://$addr/9/bin5m.bin"
menu="gopher://$addr/1/big"

# Check first that both clients get the same data, so that the timings compare
# like with like.
"$fetch" -s "$bin" >"$work/bin.fetch"
curl -s "$bin" >"$work/bin.curl"
cmp -s "$work/bin.fetch" "$work/bin.curl" || die "fetch and curl disagree on $bin"
[ "$(stat -c %s "$work/bin.fetch")" -eq $((5 << 20)) ] || die "$bin is not 5 MiB"
items_fetch=$("$fetch" -s "$menu" | grep -c 'gopher://' || true)
items_curl=$(curl -s "$menu" | grep -c "$(printf '^0')" || true)
[ "$items_fetch" -eq 2000 ] && [ "$items_curl" -eq 2000 ] ||
	die "menu items: fetch $items_fetch, curl $items_curl, want 2000"

# hf NAME URL: hyperfine fetch vs curl on URL in $rounds rounds of runs/rounds
# runs each, alternating which client goes first (the machine's load and the
# server's caches drift; interleaving keeps the drift out of the ratio). The
# JSON of round R is $work/NAME.R.json.
rounds=10
hf() {
	local per=$(((runs + rounds - 1) / rounds)) r
	say "timing $1 ($rounds rounds of $per runs each)"
	for r in $(seq 1 "$rounds"); do
		if [ $((r % 2)) -eq 1 ]; then
			hyperfine --style basic --warmup 2 --runs "$per" -N --export-json "$work/$1.$r.json" \
				-n fetch "$fetch -s $2" -n curl "curl -s $2" >&2
		else
			hyperfine --style basic --warmup 2 --runs "$per" -N --export-json "$work/$1.$r.json" \
				-n curl "curl -s $2" -n fetch "$fetch -s $2" >&2
		fi
	done
}
hf binary "$bin"
hf menu "$menu"

say "running the Go benchmarks"
gobench=$(cd "$root" && go test -run '^$' -bench 'ParseMenu|MenuEntries|FormatMenu|TextReader' -benchtime 200x -count 1 ./proto/gopher/ 2>&1 | grep -E '^(Benchmark|cpu:)' || true)

mkdir -p "$(dirname "$out")"
GOBENCH="$gobench" "$py" - "$work" "$out" "$addr" "$runs" <<'PY'
import json, os, subprocess, sys, datetime
work, out, addr, runs = sys.argv[1:5]

import glob, statistics

def med(name):
    """All runs of all rounds, by client: median, standard deviation, count."""
    times = {}
    for f in sorted(glob.glob(os.path.join(work, name + ".*.json"))):
        for x in json.load(open(f))["results"]:
            times.setdefault(x["command"], []).extend(x["times"])
    return {k: {"median": statistics.median(v), "stddev": statistics.pstdev(v), "min": min(v), "n": len(v),
                "times": v}
            for k, v in times.items()}

def interval(f, c):
    """95% bootstrap interval of median(fetch) / median(curl)."""
    import random
    rnd = random.Random(1738)
    rs = []
    for _ in range(2000):
        a = statistics.median(rnd.choices(f, k=len(f)))
        b = statistics.median(rnd.choices(c, k=len(c)))
        rs.append(a / b)
    rs.sort()
    return rs[int(0.025 * len(rs))], rs[int(0.975 * len(rs)) - 1]

def ms(x):
    return "%.1f ms" % (x * 1000)

def version(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.splitlines()[0]
    except Exception as e:
        return "unknown (%s)" % e

rows = []
verdict = []
r_n = med("binary")["fetch"]["n"]
for name, label in (("binary", "5 MiB binary (`9/bin5m.bin`)"), ("menu", "2,000-item menu (`1/big`)")):
    r = med(name)
    f, c = r["fetch"], r["curl"]
    ratio = f["median"] / c["median"]
    lo, hi = interval(f["times"], c["times"])
    rows.append("| %s | %s (± %s) | %s (± %s) | %.2f | %s | %s |" % (
        label, ms(f["median"]), ms(f["stddev"]), ms(c["median"]), ms(c["stddev"]), ratio,
        ms(f["min"]), ms(c["min"])))
    verdict.append((label, ratio, lo, hi))

load = open("/proc/loadavg").read().split()[:3]
with open(out, "w") as w:
    w.write("# gopher: fetch beside curl\n\n")
    w.write("Written by `bash scripts/bench/gopher.sh` on %s UTC. Both clients fetch the same\n"
            % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"))
    w.write("URLs from the same pygopherd 3.0 on 127.0.0.1 (a fresh process per connection:\n"
            "`ForkingTCPServer`), output to /dev/null; hyperfine without a shell (`-N`), %s runs\n"
            "per client in 10 rounds that alternate which client goes first (2 warm-up runs\n"
            "each). Medians over all runs, ± the standard deviation; ratio = fetch / curl\n"
            "(below 1: fetch is faster).\n\n" % r_n)
    w.write("| case | fetch median | curl median | ratio | fetch min | curl min |\n"
            "| --- | --- | --- | --- | --- | --- |\n")
    w.write("\n".join(rows) + "\n\n")
    for label, ratio, lo, hi in verdict:
        if hi < 1.0:
            v = "fetch is faster than curl"
        elif lo > 1.0:
            v = "fetch is slower than curl, by %.0f%%" % ((ratio - 1) * 100)
        else:
            v = "no difference measurable between fetch and curl"
        w.write("- %s: %s (ratio %.2f, 95%% bootstrap interval %.2f to %.2f).\n" % (label, v, ratio, lo, hi))
    w.write("\nWhat the clients do: curl writes the menu as sent; fetch parses it (each item's\n"
            "URL built and escaped) and prints one line per item. For the binary both stream\n"
            "the bytes to /dev/null; fetch also checks the URL with package safety first.\n\n")
    w.write("Go benchmarks of the parsers (`go test -bench . ./proto/gopher/`, 200 iterations;\n"
            "the 2,000-item menu is 92 KB):\n\n```\n%s\n```\n\n" % os.environ.get("GOBENCH", "").strip())
    w.write("Machine: %s; load average at the end %s (the machine is shared: figures vary\n"
            "from run to run).\n" % (version(["uname", "-srm"]), " ".join(load)))
    w.write("Versions: %s; %s; %s.\n" % (version(["curl", "--version"]), version(["hyperfine", "--version"]),
                                          version(["go", "version"])))
print(open(out).read())
PY
