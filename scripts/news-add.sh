#!/usr/bin/env bash
# news-add.sh DIR GROUP COUNT: add COUNT articles to GROUP of the private INN
# tree DIR/news that scripts/servers.sh serves, while nnrpd runs (nnrpd
# cannot take posts itself: it hands them to innd, which is not run).
#
# The articles are numbered after the group's high water mark and their
# bytes depend only on the group and the number (Message-ID
# <added-N.GROUP@fetch.invalid>), so the result is deterministic. Each is
# written to the tradspool directory as user news, the active file is
# replaced (renamed into place) with the new high water mark, and the
# group's overview is rebuilt with tdx-util -R. tdx-util finds each
# article's storage token in the history, so a history of the spool is
# made first with makehistory and makedbz in a private database directory
# (DIR/news/add/db): the history nnrpd uses is never touched, and the other
# groups' overview neither. Only numbered access (GROUP, ARTICLE n) sees the
# new articles; ARTICLE <message-id> does not. Runs are serialised by a lock.
# Prints "FIRST LAST", the numbers added.
set -euo pipefail
die() { printf 'news-add: %s\n' "$*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: news-add.sh DIR GROUP COUNT"
dir=$1 group=$2 count=$3
n="$dir/news" bin=/usr/lib/news/bin
[ -f "$n/etc/inn.conf" ] || die "no INN tree in $dir (run scripts/servers.sh start $dir)"
[[ $group =~ ^[a-z0-9]+(\.[a-z0-9]+)+$ ]] || die "bad group name: $group"
[[ $count =~ ^[0-9]+$ ]] && [ "$count" -ge 1 ] && [ "$count" -le 1000 ] || die "COUNT: want 1 to 1000"

exec 9>"$n/add.lock"
flock -w 60 9 || die "timed out waiting for $n/add.lock"

high=$(awk -v g="$group" '$1 == g {print $2 + 0}' "$n/db/active")
[ -n "$high" ] || die "no group $group in $n/db/active"
gdir="$n/spool/articles/${group//.//}"
first=$((high + 1)) last=$((high + count))
for ((i = first; i <= last; i++)); do
	f="$gdir/$i"
	{
		printf 'Path: fetch.invalid!not-for-mail\r\n'
		printf 'From: Late Poster <late@fetch.invalid>\r\n'
		printf 'Newsgroups: %s\r\n' "$group"
		printf 'Subject: Added article %d of %s\r\n' "$i" "$group"
		printf 'Date: Sat, 03 Mar 2001 00:%02d:00 +0000\r\n' $((i % 60))
		printf 'Message-ID: <added-%d.%s@fetch.invalid>\r\n' "$i" "$group"
		printf 'Xref: fetch.invalid %s:%d\r\n' "$group" "$i"
		printf '\r\n'
		printf 'Article %d, added between two runs of a mirror.\r\n' "$i"
		printf '..a dot-stuffed line\r\n'
		printf 'From here on, an mbox quotes this line.\r\n'
		printf '.\r\n'
	} >"$f.tmp"
	chown news:news "$f.tmp"
	mv "$f.tmp" "$f"
done

awk -v g="$group" -v h="$last" '$1 == g {$2 = sprintf("%010d", h)} {print}' "$n/db/active" >"$n/db/active.add"
chown news:news "$n/db/active.add"
mv "$n/db/active.add" "$n/db/active"

a="$n/add"
mkdir -p "$a/db" "$a/etc"
sed -e "s#^pathdb: .*#pathdb: $a/db#" -e "s#^pathetc: .*#pathetc: $a/etc#" "$n/etc/inn.conf" >"$a/etc/inn.conf"
cp "$n/etc/storage.conf" "$n/etc/readers.conf" "$a/etc/"
cp "$n/db/active" "$n/db/newsgroups" "$a/db/"
rm -f "$a/db/history" "$a/db/history."*
chown -R news:news "$a"
(
	cd "$n/run"
	as_news() { runuser -u news -- env INNCONF="$a/etc/inn.conf" "$@"; }
	as_news "$bin/makehistory" &&
		as_news "$bin/makedbz" -i -o &&
		as_news "$bin/tdx-util" -R "$gdir" -n "$group"
) >"$n/log/news-add.log" 2>&1 || {
	sed 's/^/    /' "$n/log/news-add.log" >&2
	die "rebuilding the overview of $group failed"
}
echo "$first $last"
