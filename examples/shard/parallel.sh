#!/usr/bin/env bash
# parallel.sh: mirror URL into DIR with N processes on this machine (or on
# several, with GNU parallel's --sshlogin), one shard each, then join them.
#
#   bash examples/shard/parallel.sh ftp://127.0.0.1:2121/pub/ ./pub 4
#
# Each shard writes DIR.shards/shard-K (its files and manifest) and
# DIR.shards/pub-K.warc.gz (its WARC file, with a CDXJ index). The shards'
# files are then moved into DIR and their manifests merged into
# DIR/.fetch/manifest.json, so that a later `fetch mirror URL DIR` (without
# --shard) is an ordinary incremental run.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: parallel.sh URL DIR N" >&2; exit 2; }
url=$1 dir=$2 n=$3
work=$dir.shards
mkdir -p "$work"
# Exit status 8 (some entries failed) is reported by parallel and kept.
parallel --halt never --line-buffer \
	fetch mirror -s --shard {}/"$n" --warc-file "$work/pub-{}" --warc-cdx "$url" "$work/shard-{}" \
	::: $(seq 0 $((n - 1))) || status=$?
mkdir -p "$dir"
dest=$(cd "$dir" && pwd -P)
for k in $(seq 0 $((n - 1))); do
	# cp -a keeps the times; the shards own disjoint files.
	(cd "$work/shard-$k" && find . -path ./.fetch -prune -o \( -type f -o -type l \) -print0 |
		xargs -0 -r cp -a --parents -t "$dest")
done
shards=()
for k in $(seq 0 $((n - 1))); do shards+=("$work/shard-$k"); done
fetch manifest merge -o "$dir/.fetch/manifest.json" "${shards[@]}"
exit "${status:-0}"
