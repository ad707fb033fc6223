#!/usr/bin/env bash
# ci-deps.sh: install the Debian packages that the integration tests need.
#
#   bash scripts/ci-deps.sh          servers: nginx vsftpd pygopherd inn2 inetutils-telnetd socat (+ python3, media-types)
#   bash scripts/ci-deps.sh --bench  also the peers for benchmarks: curl lftp wget lynx hyperfine suck slrnpull
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
		sed -n '2,10p' "$0"
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
servers=(nginx vsftpd pygopherd inetutils-telnetd socat python3 media-types)
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

# An inn2 left half-configured by an earlier run is finished below even when
# nothing is missing from the list.
inn_state=$(dpkg-query -W -f='${db:Status-Abbrev}' inn2 2>/dev/null || true)

if [ "${#missing[@]}" -eq 0 ] && [ "$need_mta" -eq 0 ]; then
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
	return 0
}
trap cleanup EXIT
printf '#!/bin/sh\n# installed by fetch scripts/ci-deps.sh while apt runs\nexit 101\n' >"$policy"
chmod 755 "$policy"

before=$(dpkg-query -W -f='${binary:Package}=${Version} ${db:Status-Abbrev}\n' 2>/dev/null | awk '$2 == "ii" {print $1}' | sort)

say "apt-get update"
apt-get update -q -o DPkg::Lock::Timeout=300 || die "apt-get update failed"

if [ "$need_mta" -eq 1 ]; then
	say "installing msmtp-mta (keeps exim4 out)"
	apt-get install "${apt_opts[@]}" msmtp-mta || die "installing msmtp-mta failed"
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
	INNCONF=$innconf_copy dpkg --configure -a || die "dpkg --configure -a failed for inn2"
}

others=()
inn=0
for p in "${missing[@]}"; do
	if [ "$p" = inn2 ]; then inn=1; else others+=("$p"); fi
done

if [ "${#others[@]}" -gt 0 ]; then
	say "installing ${others[*]}"
	apt-get install "${apt_opts[@]}" "${others[@]}" || die "apt-get install ${others[*]} failed"
fi
if [ "$inn" -eq 1 ]; then
	if [ -n "$inn_state" ] && [ -f /etc/news/inn.conf ]; then
		say "inn2 is unpacked but not configured (state '$inn_state'); finishing it"
		finish_inn2
	fi
	if ! installed inn2; then
		say "installing inn2"
		if ! apt-get install "${apt_opts[@]}" inn2; then
			say "inn2 did not configure; retrying its configuration"
			finish_inn2
		fi
	fi
fi

failed=()
for p in "${missing[@]}"; do
	installed "$p" || failed+=("$p")
done
[ "${#failed[@]}" -eq 0 ] || die "not installed after apt-get: ${failed[*]}"

after=$(dpkg-query -W -f='${binary:Package}=${Version} ${db:Status-Abbrev}\n' 2>/dev/null | awk '$2 == "ii" {print $1}' | sort)
new=$(comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after"))
say "requested and now installed:"
for p in "${missing[@]}"; do
	printf '  %s %s\n' "$p" "$(dpkg-query -W -f='${Version}' "$p")"
done
say "$(printf '%s\n' "$new" | grep -c . || true) packages newly installed in total (with dependencies)"
