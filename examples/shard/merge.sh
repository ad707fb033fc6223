#!/usr/bin/env bash
# merge.sh: after the Indexed Job of job.yaml, join its N shards on the
# volume into one tree, ARCHIVE/all, with one manifest.
#
#   bash merge.sh /archive 4
set -euo pipefail
[ $# -eq 2 ] || { echo "usage: merge.sh ARCHIVE N" >&2; exit 2; }
archive=$1 n=$2
mkdir -p "$archive/all"
shards=()
for k in $(seq 0 $((n - 1))); do
	(cd "$archive/shard-$k" && find . -path ./.fetch -prune -o \( -type f -o -type l \) -print0 |
		xargs -0 -r cp -a --parents -t "$archive/all")
	shards+=("$archive/shard-$k")
done
fetch manifest merge -o "$archive/all/.fetch/manifest.json" "${shards[@]}"
