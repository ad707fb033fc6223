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
