#!/usr/bin/env bash
# Writes the LIST fixtures of TestLocaleListings: what GNU ls -l prints,
# in each locale that coreutils has a translation for (and a few more),
# for one directory of files whose names say their type, date and size.
#
#   bash proto/ftp/testdata/ls-locales/gen.sh
#
# Needs localedef and the locale sources (Debian: libc-bin, locales).
# Nothing is installed: each locale is compiled into a scratch directory.
set -euo pipefail
out=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TZ=UTC
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
echo "$now" >"$out/now.txt"

mk() { # mk DIR
	local d=$1 m
	mkdir -p "$d"
	for m in 01 02 03 04 05 06 07 08 09 10 11 12; do
		truncate -s "$((10#$m))" "$d/f-o-2019${m}05"
		touch -d "2019-$m-05 00:00" "$d/f-o-2019${m}05"
	done
	truncate -s 8 "$d/ sp-o-20190805"
	touch -d "2019-08-05 00:00" "$d/ sp-o-20190805"
	mkdir "$d/d-o-20180214"
	touch -d "2018-02-14 00:00" "$d/d-o-20180214"
	ln -s "f-o-20190105" "$d/l-o-20171231"
	touch -h -d "2017-12-31 00:00" "$d/l-o-20171231"
}
mk "$work/old"
mk "$work/both"
for ago in 3 40 100 150; do
	t=$(date -u -d "$now - $ago days" +%Y%m%d)
	hm=$(printf '%02d%02d' $((ago % 24)) $((ago % 60)))
	f="$work/both/f-r-$t-$hm"
	truncate -s "$((10#${t:4:2}))" "$f"
	touch -d "${t:0:4}-${t:4:2}-${t:6:2} ${hm:0:2}:${hm:2:2}" "$f"
done

locales="af_ZA be_BY bg_BG ca_ES cs_CZ da_DK de_DE de_AT el_GR eo es_ES et_EE eu_ES fi_FI fr_FR ga_IE gl_ES hr_HR hu_HU ia_FR id_ID it_IT ja_JP kk_KZ ko_KR lg_UG lt_LT ms_MY nb_NO nl_NL pl_PL pt_PT pt_BR ro_RO ru_RU sk_SK sl_SI sr_RS sv_SE tr_TR uk_UA vi_VN zh_CN zh_TW"
mkdir -p "$work/loc"
for l in $locales; do
	localedef -i "$l" -f UTF-8 "$work/loc/$l.UTF-8" >/dev/null 2>&1 || true
	for set in both old; do
		(cd "$work/$set" && LOCPATH=$work/loc LC_ALL=$l.UTF-8 ls -l) >"$out/$l-$set.txt"
	done
done
