#!/usr/bin/env bash
# ci-deps.sh: install the Debian packages that the integration tests need.
#
#   bash scripts/ci-deps.sh          servers: nginx apache2 lighttpd vsftpd pygopherd inn2 inetutils-telnetd socat
#                                    (+ python3, media-types, openssl), and proftpd, pure-ftpd and
#                                    gophernicus unpacked (below)
#   bash scripts/ci-deps.sh --bench  also the peers for benchmarks: curl lftp wget lynx hyperfine suck slrnpull
#
# and warcio (npm, pinned) in /var/cache/fetch-test/node for the WARC tests.
#
# proftpd-core and pure-ftpd conflict with vsftpd in apt (one ftp-server at a time), and
# gophernicus would claim port 70 through inetd beside pygopherd, so they are not
# installed: their .deb files are fetched with `apt-get download` into
# /var/cache/fetch-test/debs, unpacked with `dpkg-deb -x` into
# /var/cache/fetch-test/root/PKG (scripts/servers.sh runs the binaries from there), and
# only the libraries of their Depends are installed with apt-get.
#
# Idempotent: packages already installed are left alone and apt is not called when
# nothing is missing. Packaged daemons are never started on their default ports: a
# policy-rc.d that exits 101 is in place while apt runs, and the previous one (if any)
# is restored afterwards. Debian 12 (bookworm); needs root (or sudo).
set -euo pipefail

die() { printf 'ci-deps: %s\n' "$*" >&2; exit 1; }
say() { printf 'ci-deps: %s\n' "$*"; }

bench=0
for arg in "$@"; do
	case $arg in
	--bench) bench=1 ;;
	-h | --help)
		sed -n '2,17p' "$0"
		exit 0
		;;
	*) die "unknown argument: $arg" ;;
	esac
done

if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || die "must run as root (no sudo found)"
	exec sudo -- bash "$0" "$@"
fi
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: this script supports Debian only"

# The order matters: an MTA first, so that inn2 does not pull in exim4.
servers=(nginx apache2 lighttpd vsftpd pygopherd inetutils-telnetd socat python3 media-types openssl)
peers=(curl lftp wget lynx hyperfine suck slrnpull)

installed() { # installed PKG: true when dpkg has PKG fully installed
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}

missing=()
want() {
	local p
	for p in "$@"; do
		installed "$p" || missing+=("$p")
	done
}

need_mta=0
if ! installed inn2 && [ ! -e /usr/sbin/sendmail ]; then
	need_mta=1
fi
want "${servers[@]}" inn2
[ "$bench" -eq 1 ] && want "${peers[@]}"

# The FTP servers that conflict with vsftpd, unpacked rather than installed. A tree is
# ready when its binary is there and every library recorded in its .depends is installed.
cache=/var/cache/fetch-test
unpacked=(proftpd-core pure-ftpd gophernicus)
unpacked_ready() { # unpacked_ready PKG
	local root=$cache/root/$1 lib
	[ -f "$root/.version" ] && [ -f "$root/.depends" ] || return 1
	while read -r lib; do
		[ -z "$lib" ] || installed "$lib" || return 1
	done <"$root/.depends"
}
need_unpack=()
for p in "${unpacked[@]}"; do
	unpacked_ready "$p" || need_unpack+=("$p")
done

# warcio, Webrecorder's WARC reader (npm), reads every WARC file the tests of
# package warc write: the independent check of the records and the CDXJ index.
# Pinned, installed into $cache/node; needs Node.js and npm on the machine.
warcio_version=2.4.11
install_warcio() {
	local dir=$cache/node
	if [ -x "$dir/node_modules/.bin/warcio" ] &&
		grep -q "\"version\": \"$warcio_version\"" "$dir/node_modules/warcio/package.json" 2>/dev/null; then
		return 0
	fi
	command -v npm >/dev/null 2>&1 || die "npm not found: the WARC tests need Node.js and npm (for warcio)"
	say "npm install warcio@$warcio_version into $dir"
	mkdir -p "$dir"
	npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "warcio@$warcio_version" || die "npm install warcio@$warcio_version failed"
}
install_warcio

# libdeps DEB: the library packages of DEB's Depends (first alternative of each,
# without versions); the others (adduser, ucf, inetd, pure-ftpd-common...) are for
# an installed daemon and not needed to run the binary.
libdeps() {
	dpkg-deb -f "$1" Depends | tr ',' '\n' | sed -e 's/|.*//' -e 's/(.*//' -e 's/[[:space:]]//g' -e 's/:any$//' |
		grep -E '^(lib|zlib)' | grep -v -x -E 'libpam-runtime' || true
}

# fetch_unpacked PKG: download PKG's candidate .deb (unless cached) and unpack it into
# $cache/root/PKG, with the libraries it needs in $cache/root/PKG/.depends.
fetch_unpacked() {
	local p=$1 ver arch deb tmp
	ver=$(apt-cache show --no-all-versions "$p" 2>/dev/null | sed -n 's/^Version: //p' | head -n 1)
	arch=$(apt-cache show --no-all-versions "$p" 2>/dev/null | sed -n 's/^Architecture: //p' | head -n 1)
	[ -n "$ver" ] && [ -n "$arch" ] || die "no candidate version of $p in apt's lists"
	deb=$cache/debs/${p}_${ver//:/%3a}_${arch}.deb
	if [ ! -s "$deb" ]; then
		say "apt-get download $p $ver"
		# apt's _apt sandbox user cannot write into a root-owned cache directory.
		(cd "$cache/debs" && quiet apt-get download -q -o APT::Sandbox::User=root "$p=$ver") || die "apt-get download $p failed"
		[ -s "$deb" ] || die "apt-get download $p did not write $deb"
	fi
	tmp=$(mktemp -d "$cache/root/.$p.XXXXXX")
	dpkg-deb -x "$deb" "$tmp" || die "dpkg-deb -x $deb failed"
	libdeps "$deb" >"$tmp/.depends"
	printf '%s\n' "$ver" >"$tmp/.version"
	chmod 755 "$tmp"
	rm -rf "${cache:?}/root/$p"
	mv "$tmp" "$cache/root/$p"
}

# An inn2 left half-configured by an earlier run is finished below even when
# nothing is missing from the list.
inn_state=$(dpkg-query -W -f='${db:Status-Abbrev}' inn2 2>/dev/null || true)

if [ "${#missing[@]}" -eq 0 ] && [ "$need_mta" -eq 0 ] && [ "${#need_unpack[@]}" -eq 0 ]; then
	say "all packages already installed"
	exit 0
fi

export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y -q --no-install-recommends -o DPkg::Lock::Timeout=300 -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)

# policy-rc.d: refuse every service start while apt runs; put back what was there.
policy=/usr/sbin/policy-rc.d
backup=""
if [ -e "$policy" ]; then
	backup=$(mktemp /tmp/policy-rc.d.XXXXXX)
	cp -p "$policy" "$backup"
fi
restore_policy() {
	if [ -n "$backup" ]; then
		cp -p "$backup" "$policy" && rm -f "$backup"
	else
		rm -f "$policy"
	fi
}
innconf_copy=""
cleanup() {
	restore_policy
	[ -n "$innconf_copy" ] && rm -f "$innconf_copy"
	[ -n "${log:-}" ] && rm -f "$log"
	return 0
}
trap cleanup EXIT
printf '#!/bin/sh\n# installed by fetch scripts/ci-deps.sh while apt runs\nexit 101\n' >"$policy"
chmod 755 "$policy"

# quiet CMD...: run CMD with its output in $log, shown only when it fails
# (apt and dpkg print pages of progress, and inn2's first configuration
# prints an error that finish_inn2 then mends).
log=$(mktemp /tmp/ci-deps.log.XXXXXX)
quiet() {
	if "$@" >>"$log" 2>&1; then
		return 0
	fi
	local rc=$?
	say "failed: $*; its output:"
	tail -n 60 "$log" >&2
	return "$rc"
}

before=$(dpkg-query -W -f='${binary:Package}=${Version} ${db:Status-Abbrev}\n' 2>/dev/null | awk '$2 == "ii" {print $1}' | sort)

say "apt-get update"
quiet apt-get update -q -o DPkg::Lock::Timeout=300 || die "apt-get update failed"

if [ "$need_mta" -eq 1 ]; then
	say "installing msmtp-mta (keeps exim4 out)"
	quiet apt-get install "${apt_opts[@]}" msmtp-mta || die "installing msmtp-mta failed"
fi

# inn2's postinst runs innconfval, which fails when the host name has no domain
# ("hostname does not resolve or domain not set"). Finish the configuration with a
# copy of inn.conf that names a domain; the system's inn.conf is not changed.
finish_inn2() {
	[ -f /etc/news/inn.conf ] || die "inn2 configuration failed and /etc/news/inn.conf is missing"
	innconf_copy=$(mktemp /tmp/inn.conf.XXXXXX)
	cp /etc/news/inn.conf "$innconf_copy"
	grep -q '^domain:' "$innconf_copy" || printf 'domain: localdomain\n' >>"$innconf_copy"
	chmod 644 "$innconf_copy"
	say "finishing inn2 configuration with domain localdomain"
	INNCONF=$innconf_copy quiet dpkg --configure -a || die "dpkg --configure -a failed for inn2"
}

if [ "${#need_unpack[@]}" -gt 0 ]; then
	mkdir -p "$cache/debs" "$cache/root"
	chmod 755 "$cache" "$cache/debs" "$cache/root"
	for p in "${need_unpack[@]}"; do
		fetch_unpacked "$p"
		while read -r lib; do
			if [ -n "$lib" ] && ! installed "$lib"; then missing+=("$lib"); fi
		done <"$cache/root/$p/.depends"
	done
fi

others=()
inn=0
for p in "${missing[@]}"; do
	if [ "$p" = inn2 ]; then inn=1; else others+=("$p"); fi
done

if [ "${#others[@]}" -gt 0 ]; then
	say "installing ${others[*]}"
	quiet apt-get install "${apt_opts[@]}" "${others[@]}" || die "apt-get install ${others[*]} failed"
fi
if [ "$inn" -eq 1 ]; then
	if [ -n "$inn_state" ] && [ -f /etc/news/inn.conf ]; then
		say "inn2 is unpacked but not configured (state '$inn_state'); finishing it"
		finish_inn2
	fi
	if ! installed inn2; then
		say "installing inn2"
		# Its postinst fails where the host name has no domain; the
		# output of that attempt is not shown: finish_inn2 mends it.
		if ! apt-get install "${apt_opts[@]}" inn2 >>"$log" 2>&1; then
			finish_inn2
		fi
	fi
fi

# The packages' daemons are enabled at boot by their postinst: the tests start
# their own servers, so the services of packages installed here are disabled.
services_of() { # services_of PKG: the boot services PKG installs
	case $1 in
	apache2) echo apache2 apache-htcacheclean ;;
	inetutils-telnetd) echo inetutils-inetd ;;
	msmtp-mta) echo msmtpd ;;
	nginx | lighttpd | vsftpd | inn2 | pygopherd) echo "$1" ;;
	esac
}
disable_boot() {
	local p svc
	for p in "$@"; do
		for svc in $(services_of "$p"); do
			if command -v systemctl >/dev/null 2>&1; then
				systemctl disable --quiet "$svc" >>"$log" 2>&1 || true
			fi
			update-rc.d "$svc" disable >>"$log" 2>&1 || true
		done
	done
}
disable_boot "${missing[@]}"
[ "$need_mta" -eq 0 ] || disable_boot msmtp-mta

failed=()
for p in "${missing[@]}"; do
	installed "$p" || failed+=("$p")
done
[ "${#failed[@]}" -eq 0 ] || die "not installed after apt-get: ${failed[*]}"
for p in "${unpacked[@]}"; do
	unpacked_ready "$p" || die "$p is not ready in $cache/root/$p"
done

after=$(dpkg-query -W -f='${binary:Package}=${Version} ${db:Status-Abbrev}\n' 2>/dev/null | awk '$2 == "ii" {print $1}' | sort)
new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after"))
say "requested and now installed:"
for p in "${missing[@]}"; do
	printf '  %s %s\n' "$p" "$(dpkg-query -W -f='${Version}' "$p")"
done
for p in "${need_unpack[@]}"; do
	printf '  %s %s (unpacked in %s)\n' "$p" "$(cat "$cache/root/$p/.version")" "$cache/root/$p"
done
say "$(printf '%s\n' "$new" | grep -c . || true) packages newly installed in total (with dependencies)"
