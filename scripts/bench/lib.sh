# lib.sh: sourced by the benchmark scripts (ftp.sh, retr.sh, parallel.sh,
# distance.sh, ftptree.sh, httptree.sh); it runs nothing by itself.
#
# bench_servers: use the servers named by FETCH_TEST_ENV when that file
# names an FTP server, else start scripts/servers.sh in $work/servers. Sets
# envfile, server_from (for the report) and, when it started them, srvdir
# (the caller's cleanup stops them). Needs $top (the repository), $work and
# the caller's say().
bench_servers() {
	envfile=${FETCH_TEST_ENV:-}
	server_from="FETCH_TEST_ENV (servers already running)"
	if [ -z "$envfile" ] || ! grep -q '^FETCH_TEST_FTP=' "$envfile" 2>/dev/null; then
		server_from="scripts/servers.sh, started by this script"
		srvdir=$work/servers
		# The servers drop to nobody (lighttpd opens its logs after
		# that): they must be able to pass through $work, which mktemp
		# made 0700.
		chmod 755 "$work"
		say "starting scripts/servers.sh in $srvdir"
		bash "$top/scripts/servers.sh" start "$srvdir" >&2
		envfile=$srvdir/env
	fi
}

# getenv KEY: the value of KEY in $envfile (the last one when repeated).
getenv() { sed -n "s/^$1=//p" "$envfile" | tail -n 1; }

# tree_digest DIR: one SHA-256 over the names and contents of the files
# below DIR whose names match GLOB (default every file), for comparing a
# mirror with its source.
tree_digest() {
	(cd "$1" && find . -type f -name "${2:-*}" | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)
}

# check_tree_args: the checks of the tree scripts' (ftptree.sh,
# httptree.sh) common arguments: $rounds, $rtts, $dirs, $files and $jobs.
# Needs the caller's die().
check_tree_args() {
	case $rounds$dirs$files$jobs${rtts// /} in *[!0-9]*) die "--rounds, --rtts, --dirs, --files and --jobs take numbers" ;; esac
	[ "$rounds" -ge 1 ] && [ "$rounds" -le 50 ] || die "--rounds must be 1..50"
	[ "$dirs" -ge 1 ] && [ "$dirs" -le 200 ] && [ "$files" -ge 1 ] && [ "$files" -le 500 ] || die "--dirs 1..200, --files 1..500"
	[ "$jobs" -ge 1 ] && [ "$jobs" -le 64 ] || die "--jobs must be 1..64"
	for r in $rtts; do [ "$r" -ge 2 ] && [ "$r" -le 1000 ] || die "--rtts: $r is not 2..1000 (ms)"; done
}
