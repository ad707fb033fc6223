#!/usr/bin/env bash
# mirror.sh: time `fetch mirror -j 8` beside `lftp -c 'mirror -P 8'` and `wget -m`
# against the same vsftpd (scripts/servers.sh), on the 2,000-file directory pub/many,
# fresh (empty target) and re-run (unchanged tree), with hyperfine; count the FTP
# commands each client sends per file in the vsftpd protocol log; write bench/mirror.md.
# A fourth line, "floor", times scripts/bench/floorcmd, which sends the same
# commands and writes the files the same way as fetch mirror and does nothing else:
# the time the protocol and the machine leave to any client (fresh runs only).
#
#   bash scripts/bench/mirror.sh [ENVFILE]
#
# ENVFILE (or $FETCH_TEST_ENV) names the env file of servers already running; without
# one, servers are started in a temporary directory (needs root) and stopped at the end.
# ROUNDS (default 5) is the number of timed runs of each command. The commands are
# interleaved round by round (each round times every command once, in a rotated
# order), so that a change in the machine's load weighs on all of them alike.
#
# Each fresh run starts from the same server and file system state, so that no client
# pays for the debris of the runs before it:
# - The side that closes a data connection first keeps it in TIME_WAIT for 60 s.
#   lftp and wget let vsftpd close first, so each file leaves a connection on one
#   of its few passive ports, and every later bind to those ports walks them: after
#   a few back-to-back runs of 2,000 files, vsftpd spent a quarter of the machine's
#   CPU time in that walk. fetch half-closes vsftpd's data connections first, so
#   its TIME_WAIT entries are on the client's side (port in the passive range
#   as the destination). Before each fresh run the script removes both kinds with
#   `ss -K` (root, and a kernel with socket destroy), or else waits (at most 70 s)
#   until fewer than 20 remain. Only connections in TIME_WAIT to or from the test
#   vsftpd's own passive ports are touched.
# - The previous target is moved aside, not deleted, and every target is deleted
#   at the end. On this ext4 (mounted without a journal) each new inode is chosen
#   by scanning past the inodes freed in the last minutes: a fresh run started
#   right after `rm -rf` of 2,000 files spent a third of its CPU time there, and
#   more with every round.
# WAIT=0 turns both off (the runs then follow one another as fast as they can).
# Missing peers (hyperfine, lftp, wget) are installed with scripts/ci-deps.sh --bench.
# Only 127.0.0.1 is contacted.
set -euo pipefail

say() { printf 'bench/mirror: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd -- "$here/../.." && pwd -P)
rounds=${ROUNDS:-5}
case $rounds in '' | *[!0-9]* | 0) die "ROUNDS must be a positive number" ;; esac
settle=${WAIT:-1}

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
	PATH=$PATH:/usr/local/go/bin
fi
for tool in hyperfine lftp wget; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		say "installing the benchmark peers (scripts/ci-deps.sh --bench)"
		bash "$repo/scripts/ci-deps.sh" --bench >&2
		break
	fi
done
for tool in go hyperfine lftp wget python3; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool not found"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-bench-mirror.XXXXXX")
srvdir=""
cleanup() {
	if [ -n "$srvdir" ]; then
		bash "$repo/scripts/servers.sh" stop "$srvdir" >/dev/null 2>&1 || true
		rm -rf "$srvdir"
	fi
	rm -rf "$work"
}
trap cleanup EXIT

envfile=${1:-${FETCH_TEST_ENV:-}}
if [ -z "$envfile" ]; then
	srvdir=$(mktemp -d "${TMPDIR:-/tmp}/fetch-bench-servers.XXXXXX")
	say "starting the servers in $srvdir"
	bash "$repo/scripts/servers.sh" start "$srvdir" >&2 || die "the servers did not start"
	envfile=$srvdir/env
fi
[ -r "$envfile" ] || die "cannot read $envfile"
ftp=$(sed -n 's/^FETCH_TEST_FTP=//p' "$envfile")
log=$(sed -n 's/^FETCH_TEST_FTP_LOG=//p' "$envfile")
root=$(sed -n 's/^FETCH_TEST_ROOT=//p' "$envfile")
[ -n "$ftp" ] && [ -r "$log" ] && [ -d "$root/ftp/pub/many" ] || die "$envfile: no vsftpd (FETCH_TEST_FTP, _FTP_LOG, ROOT)"
case $ftp in 127.0.0.1:*) ;; *) die "FETCH_TEST_FTP=$ftp is not on 127.0.0.1" ;; esac
files=$(find "$root/ftp/pub/many" -type f | wc -l)

say "building cmd/fetch and the floor client"
(cd "$repo" && go build -o "$work/fetch" ./cmd/fetch && go build -o "$work/floorcmd" ./scripts/bench/floorcmd)

url="ftp://$ftp/pub/many/"
# One line per client: name, then the command that mirrors pub/many into $work/NAME.
# Each keeps to 8 connections; each gives up after 20 s without progress.
cmd_fetch="$work/fetch mirror -s -j 8 --connect-timeout 20 $url $work/out-fetch"
cmd_lftp="lftp -c 'set cmd:fail-exit yes; set net:timeout 20; set net:max-retries 2; open ftp://$ftp; mirror -P 8 /pub/many $work/out-lftp'"
cmd_wget="wget -q -m -nH --cut-dirs=2 --timeout=20 --tries=2 -P $work/out-wget $url"
# floor is not a client: scripts/bench/floorcmd does what fetch mirror does on
# the wire and on disk and nothing more (no policy, manifest, checksum, resume),
# to show how much of fetch's time the protocol and this machine leave to it.
# It has no re-run: it fetches everything every time.
cmd_floor="$work/floorcmd -j 8 $url $work/out-floor"
names=(fetch lftp wget floor)
cmd_of() { local v="cmd_$1"; printf '%s' "${!v}"; }

complete() { # complete NAME: the target holds all the files, byte-exact
	local n
	n=$(cd "$work/out-$1" && find . -path ./.fetch -prune -o -type f -name 'f*.txt' -print | wc -l)
	[ "$n" -eq "$files" ] || die "$1 mirrored $n of $files files"
	diff -rq --exclude=.fetch --exclude=.listing "$root/ftp/pub/many" "$work/out-$1" >/dev/null || die "$1: the mirror differs from the fixture"
}

count() { # count NAME fresh|rerun: FTP commands in the log during one run
	local before after
	[ "$2" = fresh ] && rm -rf "$work/out-$1"
	before=$(stat -c %s "$log")
	bash -c "$(cmd_of "$1")" >/dev/null 2>&1 || die "$1 failed"
	sleep 1 # vsftpd logs QUIT as the client leaves
	after=$(stat -c %s "$log")
	tail -c +$((before + 1)) "$log" | head -c $((after - before)) | grep -c '\] FTP command: ' || true
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
say "checking every client once ($files files)"
for n in "${names[@]}"; do
	rm -rf "$work/out-$n"
	bash -c "$(cmd_of "$n")" >/dev/null 2>&1 || die "$n failed: $(cmd_of "$n")"
	complete "$n"
done

pasv=$(sed -n 's/^FETCH_TEST_FTP_PASV=//p' "$envfile")
# TIME_WAIT connections to or from vsftpd's passive ports, on either side.
passive_filter=""
[ -n "$pasv" ] && passive_filter="( sport >= :${pasv%-*} and sport <= :${pasv#*-} ) or ( dport >= :${pasv%-*} and dport <= :${pasv#*-} )"
lingering() { # connections in TIME_WAIT to or from vsftpd's passive ports
	[ -n "$pasv" ] || { echo 0; return; }
	ss -Htn state time-wait "$passive_filter" | wc -l
}
settle() { # settle NAME: move the old target aside; let TIME_WAIT drain
	[ "$settle" = 0 ] && { rm -rf "$work/out-$1"; return; }
	[ -e "$work/out-$1" ] && mv "$work/out-$1" "$work/old/$1-$((moved++))"
	# The previous runs' files go to disk now, not during this run.
	sync
	# As root, with a kernel that can destroy sockets (ss -K), the
	# TIME_WAIT entries of the passive ports go at once; else they expire.
	if [ -n "$pasv" ] && [ "$(lingering)" -ge 20 ]; then
		ss -K -Htn state time-wait "$passive_filter" >/dev/null 2>&1 || true
	fi
	local i
	for ((i = 0; i < 70; i++)); do
		[ "$(lingering)" -lt 20 ] && return
		sleep 1
	done
	say "still $(lingering) connections in TIME_WAIT on the passive ports after 70 s"
}
mkdir -p "$work/old"
moved=0

say "timing: $rounds rounds, fresh and re-run, interleaved"
for ((r = 0; r < rounds; r++)); do
	k=$((r % ${#names[@]}))
	order=("${names[@]:k}" "${names[@]:0:k}")
	for n in "${order[@]}"; do
		settle "$n"
		hyperfine --runs 1 --style none -n "$n fresh" \
			--export-json "$work/fresh-$n-$r.json" "$(cmd_of "$n")" >/dev/null
		complete "$n"
		[ "$n" = floor ] && continue
		hyperfine --runs 1 --style none -n "$n re-run" \
			--export-json "$work/rerun-$n-$r.json" "$(cmd_of "$n")" >/dev/null
		complete "$n"
	done
	say "round $((r + 1)) of $rounds done"
done

say "counting FTP commands per run in $log"
declare -A cfresh crerun
for n in "${names[@]}"; do
	cfresh[$n]=$(count "$n" fresh)
	crerun[$n]=-
	[ "$n" = floor ] || crerun[$n]=$(count "$n" rerun)
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

out=$repo/bench/mirror.md
mkdir -p "$repo/bench"
export B_WORK=$work B_ROUNDS=$rounds B_FILES=$files B_OUT=$out B_SETTLE=$settle
export B_CMD_fetch=$cmd_fetch B_CMD_lftp=$cmd_lftp B_CMD_wget=$cmd_wget B_CMD_floor=$cmd_floor
for n in "${names[@]}"; do
	export "B_FRESH_$n=${cfresh[$n]}" "B_RERUN_$n=${crerun[$n]}"
done
export B_MACHINE="$(uname -srm), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs; targets in $work ($(stat -f -c %T "$work"))"
export B_LOAD="$load_before before, $load_after after"
export B_VERSIONS="$(go env GOVERSION), $(lftp --version | head -1 | sed 's/ | Copyright.*//; s/ |//g'), $(wget --version | head -1 | cut -d' ' -f1-3), hyperfine $(hyperfine --version | cut -d' ' -f2)"
python3 - <<'PY'
import functools, glob, json, os, random, statistics

e = os.environ
work, rounds, files, out = e["B_WORK"], int(e["B_ROUNDS"]), int(e["B_FILES"]), e["B_OUT"]
names = ["fetch", "lftp", "wget", "floor"]
clients = ["fetch", "lftp", "wget"]  # floor has no re-run
settle_note = ("Before each fresh run the previous target was moved aside (deleted at the end) and the script "
               "removed the connections left in TIME_WAIT to or from vsftpd's passive ports, on either side (`ss -K`, or waiting until fewer than 20 remained) "
               "(see the script's header for why)." if e["B_SETTLE"] != "0" else
               "WAIT=0: each fresh run followed the previous one at once, after `rm -rf` of its old target.")


def results(kind, n):
    return [json.load(open(f))["results"][0] for f in sorted(glob.glob(os.path.join(work, f"{kind}-{n}-*.json")))]


def times(kind, n):
    return [t for r in results(kind, n) for t in r["times"]]


@functools.cache
def by_round(kind, n):
    """Wall time of n in each round: round number -> seconds."""
    got = {}
    for f in glob.glob(os.path.join(work, f"{kind}-{n}-*.json")):
        r = int(os.path.basename(f)[:-len(".json")].rsplit("-", 1)[1])
        got[r] = json.load(open(f))["results"][0]["times"][0]
    return got


def paired(a, b):
    """Per-round ratios a/b of the fresh runs (the same round: the same load)."""
    ta, tb = by_round("fresh", a), by_round("fresh", b)
    return [ta[r] / tb[r] for r in sorted(ta) if r in tb]


def interval(a, b):
    """95 % interval of median(a)/median(b) over the fresh runs, by resampling
    whole rounds (a bootstrap, 2,000 draws, fixed seed: the same data give the
    same interval)."""
    ta, tb = by_round("fresh", a), by_round("fresh", b)
    rs = [r for r in sorted(ta) if r in tb]
    rnd = random.Random(1738)
    est = []
    for _ in range(2000):
        pick = [rnd.choice(rs) for _ in rs]
        est.append(statistics.median(ta[r] for r in pick) / statistics.median(tb[r] for r in pick))
    est.sort()
    return est[int(0.025 * len(est))], est[int(0.975 * len(est)) - 1]


def cpu(kind, n):
    return statistics.median(r["user"] + r["system"] for r in results(kind, n))


med = {(k, n): statistics.median(times(k, n)) for k in ("fresh", "rerun") for n in names if times(k, n)}
rng = {(k, n): (min(times(k, n)), max(times(k, n))) for k in ("fresh", "rerun") for n in names if times(k, n)}
cf = {n: int(e["B_FRESH_" + n]) for n in names}
cr = {n: e["B_RERUN_" + n] for n in names}
lines = [
    "# Mirror benchmark: fetch mirror vs lftp mirror vs wget -m",
    "",
    f"Written by `bash scripts/bench/mirror.sh` (ROUNDS={rounds}). Each client mirrors the 2,000-file",
    f"directory `pub/many` ({files} files of 10 bytes) of the same vsftpd 3.0.3 on 127.0.0.1, started by",
    "`scripts/servers.sh`: *fresh* into an empty directory, *re-run* over its own complete mirror",
    f"(nothing changed, nothing to fetch). Times are hyperfine wall-clock medians of {rounds} runs per",
    "command, interleaved round by round (every round times each command once, in a rotated order);",
    "min-max in brackets; CPU is the client's own user + system time (median), the servers' not",
    "included. FTP commands are counted in the vsftpd protocol log during one more run of each",
    "(login, listing and QUIT included).",
    "",
    settle_note,
    "",
    f"Machine: {e['B_MACHINE']}; load average {e['B_LOAD']}. The machine is shared:",
    "absolute times vary with its load, ratios measured side by side hold better.",
    f"Versions: {e['B_VERSIONS']}.",
    "",
    "| client | fresh (s) | re-run (s) | fresh, x fetch | CPU fresh (s) | FTP commands, fresh | per file | FTP commands, re-run |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
]
for n in names:
    f, r = med[("fresh", n)], med.get(("rerun", n))
    flo, fhi = rng[("fresh", n)]
    rlo, rhi = rng.get(("rerun", n), (None, None))
    rerun = f"{r:.3f} [{rlo:.3f}-{rhi:.3f}]" if r is not None else "-"
    lines.append(f"| {n} | {f:.2f} [{flo:.2f}-{fhi:.2f}] | {rerun} | "
                 f"{f / med[('fresh', 'fetch')]:.2f} | {cpu('fresh', n):.2f} | {cf[n]} | {cf[n] / files:.2f} | {cr[n]} |")
fl = med[("fresh", "fetch")] / med[("fresh", "lftp")]
fw = med[("fresh", "fetch")] / med[("fresh", "wget")]
rl = med[("rerun", "fetch")] / med[("rerun", "lftp")]
per = cf["fetch"] / files
ok = lambda b: "met" if b else "NOT met"
def spread(a, b):
    lo, hi = interval(a, b)
    pr = paired(a, b)
    q = statistics.quantiles(pr, n=4) if len(pr) > 1 else [pr[0]] * 3
    return (f"95 % interval {lo:.2f}-{hi:.2f}; median of the per-round ratios {statistics.median(pr):.2f}, "
            f"quartiles {q[0]:.2f}-{q[2]:.2f}")


lines += [
    "",
    "Issue 8 targets (the ratios of the medians above; after each, how far one run of this",
    "script can be trusted: a bootstrap interval over its rounds, and the ratios of the two",
    "clients' runs in the same round, which the machine's changing load touches alike):",
    "",
    f"- fresh mirror at most 0.67x the time of lftp -P 8: {fl:.2f}x, {ok(fl <= 0.67)} ({spread('fetch', 'lftp')})",
    f"- fresh mirror at most 0.5x the time of wget -m: {fw:.2f}x, {ok(fw <= 0.5)} ({spread('fetch', 'wget')})",
    f"- re-run no slower than lftp's: {rl:.2f}x, {ok(rl <= 1.0)}",
    f"- at most 2.2 FTP commands per file: {per:.2f}, {ok(per <= 2.2)}",
    "",
    f"The floor (not a client; `scripts/bench/floorcmd`: the same commands and file writes as fetch, "
    f"nothing else) took {med[('fresh', 'floor')] / med[('fresh', 'lftp')]:.2f}x the time of lftp and "
    f"{med[('fresh', 'floor')] / med[('fresh', 'wget')]:.2f}x that of wget; fetch took "
    f"{med[('fresh', 'fetch')] / med[('fresh', 'floor')]:.2f}x the floor's time.",
    "",
    "Commands ($TMP is the run's temporary directory):",
    "",
]
for n in names:
    lines.append("    " + e["B_CMD_" + n].replace(work, "$TMP"))
with open(out, "w") as w:
    w.write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
