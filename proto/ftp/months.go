package ftp

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Month names of other languages
//
// ls -l and strftime's %b write a month as the abbreviation of the locale
// they run in, and a server that runs /bin/ls, or formats its own lines
// with strftime, under a locale other than C sends its LIST lines so:
//
//	-rw-r--r-- 1 root root 0  5. Okt 2019  a      de (GNU ls)
//	-rw-r--r-- 1 root root 0  5 janv.  2019 b     fr (GNU ls)
//	-rw-r--r-- 1 root root 0 10月  5  2019 c      ja (GNU ls)
//	-rw-r--r-- 1 ftp  ftp  0 окт 05 10:00 d       ru (strftime "%b %d %H:%M")
//
// localMonths holds the abbreviations of glibc's locale data (the abmon
// and ab_alt_mon fields of /usr/share/i18n/locales/*, glibc 2.36: what
// date +%b and +%Ob print), one row per language with the names of its
// regional locales (de_AT's "Jän", fr_CA's "fév", es_PE's "set"; Arabic:
// ar_SA's, ar_EG's (ar_AE's too, and nine more's), ar_DZ's and ar_TN's,
// ar_MA's, and the one-word names of ar_IQ, ar_JO, ar_LB and ar_SY, whose
// January, October, November and December are two words, never one
// field, and so stay unread), variants separated by "|"; a name is also
// read without a final dot. Not in the table: zh_SG's 一月 to 十二月
// (unread), and be_BY@latin's names, whose "Kas" (October) would make
// Turkish's "Kas" (November) a name of two meanings: a be_BY@latin
// listing of it alone is read as Turkish. (sr_RS@latin's names are
// Slovenian's.) A few names mean
// different months in different languages ("lis" is November in Czech
// and Polish, October in Croatian): such a name is read only when the
// other month names of the same listing leave one language, or several
// that agree (monthSet).
var localMonths = [...]struct {
	lang  string
	names [12]string
}{
	{"af", [12]string{"Jan", "Feb", "Mrt", "Apr", "Mei", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Des"}},
	{"be", [12]string{"сту", "лют", "сак", "кра", "мая|май", "чэр", "ліп", "жні", "вер", "кас", "ліс", "сне"}},
	{"bg", [12]string{"яну", "фев", "мар", "апр", "май", "юни", "юли", "авг", "сеп", "окт", "ное", "дек"}},
	{"cs", [12]string{"led", "úno", "bře", "dub", "kvě", "čen", "čec", "srp", "zář", "říj", "lis", "pro"}},
	{"da", [12]string{"jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"}},
	{"de", [12]string{"Jan|Jän", "Feb", "Mär", "Apr", "Mai", "Jun", "Jul", "Aug", "Sep", "Okt", "Nov", "Dez"}},
	{"el", [12]string{"Ιαν", "Φεβ", "Μαρ|Μάρ", "Απρ", "Μαΐ|Μάι", "Ιουν|Ιούν", "Ιουλ|Ιούλ", "Αυγ|Αύγ", "Σεπ", "Οκτ", "Νοε|Νοέ", "Δεκ"}},
	{"eo", [12]string{"Jan", "Feb", "Mar", "Apr", "Maj", "Jun", "Jul", "Aŭg", "Sep", "Okt", "Nov", "Dec"}},
	{"es", [12]string{"ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep|set", "oct", "nov", "dic"}},
	{"et", [12]string{"jaan", "veebr", "märts", "apr", "mai", "juuni", "juuli", "aug", "sept", "okt", "nov", "dets"}},
	{"eu", [12]string{"urt", "ots", "mar", "api", "mai", "eka", "uzt", "abu", "ira", "urr", "aza", "abe"}},
	{"fi", [12]string{"tammi", "helmi", "maalis", "huhti", "touko", "kesä", "heinä", "elo", "syys", "loka", "marras", "joulu"}},
	{"fr", [12]string{"janv.|jan", "févr.|fév", "mars|mar", "avril|avr", "mai", "juin|jun", "juil.|jui", "août|aoû", "sept.|sep", "oct.|oct", "nov.|nov", "déc.|déc"}},
	{"ga", [12]string{"Ean", "Feabh", "Márta", "Aib", "Beal", "Meith", "Iúil", "Lún", "MFómh", "DFómh", "Samh", "Noll"}},
	{"gl", [12]string{"Xan", "Feb", "Mar", "Abr", "Mai", "Xuñ", "Xul", "Ago", "Set", "Out", "Nov", "Dec"}},
	{"hr", [12]string{"sij", "velj", "ožu", "tra", "svi", "lip", "srp", "kol", "ruj", "lis", "stu", "pro"}},
	{"hu", [12]string{"jan", "febr", "márc", "ápr", "máj", "jún", "júl", "aug", "szept", "okt", "nov", "dec"}},
	{"ia", [12]string{"jan", "feb", "mar", "apr", "mai", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}},
	{"id", [12]string{"Jan", "Feb", "Mar", "Apr", "Mei", "Jun", "Jul", "Agu", "Sep", "Okt", "Nov", "Des"}},
	{"it", [12]string{"gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"}},
	{"ja", [12]string{"1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"}},
	{"kk", [12]string{"Қаң", "Ақп", "Нау", "Сәу", "Мам", "Мау", "Шіл", "Там", "Қыр", "Қаз", "Қар", "Жел"}},
	{"ko", [12]string{"1월", "2월", "3월", "4월", "5월", "6월", "7월", "8월", "9월", "10월", "11월", "12월"}},
	{"lg", [12]string{"Jan", "Feb", "Mar", "Apu", "Maa", "Juu", "Jul", "Agu", "Seb", "Oki", "Nov", "Des"}},
	{"lt", [12]string{"saus.", "vas.", "kov.", "bal.", "geg.", "birž.", "liep.", "rugp.", "rugs.", "spal.", "lapkr.", "gruod."}},
	{"ms", [12]string{"Jan", "Feb", "Mac", "Apr", "Mei", "Jun", "Jul", "Ogos", "Sep", "Okt", "Nov", "Dis"}},
	{"nb", [12]string{"jan.", "feb.", "mars", "april", "mai", "juni", "juli", "aug.", "sep.", "okt.", "nov.", "des."}},
	{"nl", [12]string{"jan", "feb", "mrt", "apr", "mei", "jun", "jul", "aug", "sep", "okt", "nov", "dec"}},
	{"pl", [12]string{"sty", "lut", "mar", "kwi", "maj", "cze", "lip", "sie", "wrz", "paź", "lis", "gru"}},
	{"pt", [12]string{"jan", "fev", "mar", "abr", "mai", "jun", "jul", "ago", "set", "out", "nov", "dez"}},
	{"ro", [12]string{"ian", "feb", "mar", "apr", "mai", "iun", "iul", "aug", "sep", "oct", "nov", "dec"}},
	{"ru", [12]string{"янв", "фев", "мар", "апр", "мая|май", "июн", "июл", "авг", "сен", "окт", "ноя", "дек"}},
	{"sk", [12]string{"jan", "feb", "mar", "apr", "máj", "jún", "júl", "aug", "sep", "okt", "nov", "dec"}},
	{"sl", [12]string{"jan", "feb", "mar", "apr", "maj", "jun", "jul", "avg", "sep", "okt", "nov", "dec"}},
	{"sr", [12]string{"јан", "феб", "мар", "апр", "мај", "јун", "јул", "авг", "сеп", "окт", "нов", "дец"}},
	{"sv", [12]string{"jan", "feb", "mar", "apr", "maj", "jun", "jul", "aug", "sep", "okt", "nov", "dec"}},
	{"tr", [12]string{"Oca", "Şub", "Mar", "Nis", "May", "Haz", "Tem", "Ağu", "Eyl", "Eki", "Kas", "Ara"}},
	{"uk", [12]string{"січ", "лют", "бер", "кві", "тра", "чер", "лип", "сер", "вер", "жов", "лис", "гру"}},
	{"zh", [12]string{"1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"}},
	{"is", [12]string{"jan", "feb", "mar", "apr", "maí", "jún", "júl", "ágú", "sep", "okt", "nóv", "des"}},
	{"lv", [12]string{"jan", "feb", "mar", "apr", "mai", "jūn", "jūl", "aug", "sep", "okt", "nov", "dec"}},
	{"he", [12]string{"ינו", "פבר", "מרץ", "אפר", "מאי", "יונ", "יול", "אוג", "ספט", "אוק", "נוב", "דצמ"}},
	{"ar", [12]string{"يناير|ينا|جانفي", "فبراير|فبر|فيفري|شباط", "مارس|مار|آذار", "أبريل|أبر|أفريل|نيسان", "مايو|ماي|أيار", "يونيو|يون|جوان|حزيران", "يوليو|يول|جويلية|يوليوز|تموز", "أغسطس|أغس|أوت|غشت|آب", "سبتمبر|سبت|شتنبر|أيلول", "أكتوبر|أكت", "نوفمبر|نوف|نونبر", "ديسمبر|ديس|دجنبر"}},
	{"th", [12]string{"ม.ค.", "ก.พ.", "มี.ค.", "เม.ย.", "พ.ค.", "มิ.ย.", "ก.ค.", "ส.ค.", "ก.ย.", "ต.ค.", "พ.ย.", "ธ.ค."}},
	{"en", [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}},
	{"ca", [12]string{"gen.", "febr.", "març", "abr.", "maig", "juny", "jul.", "ag.", "set.", "oct.", "nov.", "des."}},
}

// A language is a bit of a uint64: no more than 64 rows.
const _ = uint(64 - len(localMonths))

// monthSet reads the month names of one listing in the languages its
// names fit.
type monthSet struct {
	langs uint64 // the languages (bits of localMonths rows) that name every month seen
}

// monthMeaning is one month a name means, in the languages of langs.
type monthMeaning struct {
	month time.Month
	langs uint64
}

// monthIndex maps a lower-case month name to what it means.
var monthIndex = sync.OnceValue(func() map[string][]monthMeaning {
	idx := make(map[string][]monthMeaning)
	for l, row := range localMonths {
		for m, names := range row.names {
			for name := range strings.SplitSeq(names, "|") {
				key := strings.ToLower(name)
				ms := idx[key]
				i := 0
				for i < len(ms) && ms[i].month != time.Month(m+1) {
					i++
				}
				if i == len(ms) {
					ms = append(ms, monthMeaning{month: time.Month(m + 1)})
				}
				ms[i].langs |= 1 << l
				idx[key] = ms
			}
		}
	}
	return idx
})

// newMonthSet returns the monthSet of a listing whose dates hold the
// month names seen.
func newMonthSet(seen []string) monthSet {
	set := monthSet{langs: ^uint64(0)}
	idx := monthIndex()
	for _, s := range seen {
		var langs uint64
		for _, m := range idx[strings.ToLower(s)] {
			langs |= m.langs
		}
		set.langs &= langs
	}
	return set
}

// month returns the month s names: its one meaning, or, for a name of
// several, the one it has in the languages that name all the listing's
// months (none when they disagree, or when no language names them all).
func (set monthSet) month(s string) (time.Month, bool) {
	ms := monthIndex()[strings.ToLower(s)]
	if len(ms) == 1 {
		return ms[0].month, true
	}
	var found time.Month
	for _, m := range ms {
		if m.langs&set.langs == 0 {
			continue
		}
		if found != 0 {
			return 0, false // two months in the listing's languages
		}
		found = m.month
	}
	return found, found != 0
}

// isLocalMonth reports whether s is a month name of the table.
func isLocalMonth(s string) bool {
	_, ok := monthIndex()[strings.ToLower(s)]
	return ok
}

// localDate reads the date of an ls line in another language starting at
// field i, as unixDate does, its month names read by month:
//
//	month first   Okt  5  2019    10月  5 10:00    6월 28일  06:30    6月28日 06:30
//	day first     5. Okt 2019     5 janv.  2019    5 giu 09.07        5. јан. 2019.
//	              5 de gen.  2019    5 d’abr.  2019   5.12.  2019   5. 1.  2019
//	              1. јун. у 09:07
//	year first    2019 jan    5   2019年 2月14日    2019년  1월  5일    2019  urt  5
//
// A day and month may be joined by a no-break space (Czech: "5.\u00a0led"),
// the time of day written with a dot (09.07). A year last is formYear
// when the month comes first; after the day it is formYearPadded in
// German (" 5. Okt 2019", which GNU ls pads after the year) and
// formYearLast in the other languages, which it does not pad. name is
// the month name the date was read by, as month was given it; "" for a
// month written as a number (Finnish).
func localDate(line string, fs []field, i int, now time.Time, month func(string) (time.Month, bool)) (time.Time, int, dateForm, string, bool) {
	sc := &localScan{fs: fs, i: i, month: month, read: &monthRead{}}
	if ys, rest, ok := cutYear(sc.at(0)); ok {
		return sc.yearFirst(ys, rest, now)
	}
	d, k, form, ok := sc.dayAndMonth()
	if !ok || d == 0 {
		return time.Time{}, 0, 0, "", false
	}
	return sc.yearOrClock(d, k, form, now)
}

// localScan is the state of one localDate: the line's fields, the field
// the date starts at, the month reader, and the month last read by mon.
type localScan struct {
	fs    []field
	i     int
	month func(string) (time.Month, bool)
	read  *monthRead
}

// monthRead is a month and the name it was read from. It is kept apart
// from localScan so that escape analysis, which does not tell a struct's
// fields apart, sees that the name returned does not hold the fields:
// the caller's array of fields then stays on the stack.
type monthRead struct {
	mo   int
	name string
}

// mon reads s as a month name, with a Catalan "d’" before it or an
// abbreviating dot after it, and records the month and name.
func (sc *localScan) mon(s string) bool {
	s = trimPrefixes(s, "d’", "d'") // Catalan: "5 d’abr."
	m, ok := sc.month(s)
	if !ok {
		if t, dot := strings.CutSuffix(s, "."); dot {
			s = t
			m, ok = sc.month(t)
		}
	}
	sc.read.mo, sc.read.name = int(m), s
	return ok
}

// at is the k-th field from the date's start, "" past the end.
func (sc *localScan) at(k int) string {
	if sc.i+k < len(sc.fs) {
		return sc.fs[sc.i+k].s
	}
	return ""
}

// fail is localDate's answer for a line that holds no date here.
func (sc *localScan) fail() (time.Time, int, dateForm, string, bool) {
	return time.Time{}, 0, 0, "", false
}

// yearFirst reads a date that starts with its year ys: then the month
// and the day, each maybe joined to what comes before it ("2017年12月31日");
// rest is what followed the year in its field.
func (sc *localScan) yearFirst(ys, rest string, now time.Time) (time.Time, int, dateForm, string, bool) {
	fs, i := sc.fs, sc.i
	y, _ := strconv.Atoi(ys)
	var d int
	next := 1
	if rest == "" {
		rest, next = sc.at(1), 2
	}
	k := i + next
	if m, dd, ok := cutCJKDay(rest); ok && sc.mon(m) {
		d, k = dd, i+next-1
	} else if i+next < len(fs) && sc.mon(rest) {
		d = localDay(trimSuffixes(sc.at(next), "日", "일"))
	} else {
		return sc.fail()
	}
	if y > now.Year()+1 || !validDate(y, sc.read.mo, d) {
		return sc.fail()
	}
	return time.Date(y, time.Month(sc.read.mo), d, 0, 0, 0, 0, time.UTC), fs[k].end, formYear, sc.read.name, true
}

// dayAndMonth reads the day and month of a date that does not start with
// its year, in any of the orders localDate lists. It returns the day, the
// field that follows them (the year or the time of day) and the form
// of a year there.
func (sc *localScan) dayAndMonth() (d, k int, form dateForm, ok bool) {
	fs, i, at := sc.fs, sc.i, sc.at
	ds, ms, nbsp := strings.Cut(at(0), "\u00a0")
	cjkMon, cjkDay, cjk := cutCJKDay(at(0))
	numDay, numMon, num := cutNumericDate(at(0))
	numDay2, numMon2, num2 := numericDate(at(0), at(1))
	switch {
	case nbsp && i+1 < len(fs) && sc.mon(ms):
		d, k, form = localDay(strings.TrimSuffix(ds, ".")), i+1, formYearLast
	case i+1 >= len(fs):
		return 0, 0, 0, false
	case cjk && sc.mon(cjkMon):
		d, k, form = cjkDay, i+1, formYear
	case num: // Finnish: "5.12.  2019"
		d, k, form = numDay, i+1, formYearLast
		sc.read.mo, sc.read.name = numMon, ""
	case i+2 >= len(fs):
		return 0, 0, 0, false
	case sc.mon(at(0)):
		d, k, form = localDay(trimSuffixes(at(1), "日", "일")), i+2, formYear
	case sc.mon(at(1)):
		d, k, form = localDay(strings.TrimSuffix(at(0), ".")), i+2, formYearLast
		if sc.germanPadded() {
			form = formYearPadded
		}
	case at(1) == "de" && i+3 < len(fs) && sc.mon(at(2)): // Catalan: "5 de gen."
		d, k, form = localDay(at(0)), i+3, formYearLast
	case num2: // Finnish: " 5. 1.  2019"
		d, k, form = numDay2, i+2, formYearLast
		sc.read.mo, sc.read.name = numMon2, ""
	default:
		return 0, 0, 0, false
	}
	return d, k, form, true
}

// germanPadded reports whether a day-first date is German's "%e. %b %Y ":
// " 5. Okt 2019  name", a German month name and one space between the
// month and the year (Estonian's "%e. %b %Y" has two).
func (sc *localScan) germanPadded() bool {
	fs, i := sc.fs, sc.i
	return strings.HasSuffix(sc.at(0), ".") && germanMonths()[sc.at(1)] && fs[i+2].end-len(fs[i+2].s) == fs[i+1].end+1
}

// yearOrClock finishes a date of day d in the month read, from field k:
// a time of day in the last six months, or a year of the given form.
func (sc *localScan) yearOrClock(d, k int, form dateForm, now time.Time) (time.Time, int, dateForm, string, bool) {
	fs, mo, name := sc.fs, sc.read.mo, sc.read.name
	last := fs[k]
	if last.s == "у" && form == formYearLast {
		// Serbian: " 1. јун. у 09:07", "at" before a time of day.
		if k+1 < len(fs) {
			if hh, mm, ok := localClock(fs[k+1].s); ok {
				return placeInYear(time.Month(mo), d, hh, mm, now), fs[k+1].end, formClock, name, true
			}
		}
		return sc.fail()
	}
	if hh, mm, ok := localClock(last.s); ok {
		return placeInYear(time.Month(mo), d, hh, mm, now), last.end, formClock, name, true
	}
	ys := last.s
	if form == formYearLast {
		ys = strings.TrimSuffix(ys, ".") // Serbian: "2019."
	}
	y, err := strconv.Atoi(ys)
	if err != nil || len(ys) != 4 || !isDigits(ys) || y < 1900 || !validDate(y, mo, d) {
		return sc.fail()
	}
	return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC), last.end, form, name, true
}

// germanMonths are the month names of the "de" row of localMonths, as
// German ls prints them (capitalized): a date " 5. Okt 2019" in them is
// German's, whose year GNU ls pads after (coreutils' de.po: "%e. %b %Y ").
var germanMonths = sync.OnceValue(func() map[string]bool {
	set := make(map[string]bool)
	for _, row := range localMonths {
		if row.lang == "de" {
			for _, names := range row.names {
				for name := range strings.SplitSeq(names, "|") {
					set[name] = true
				}
			}
		}
	}
	return set
})

// cutNumericDate reads a day and month written as numbers, each followed
// by a dot, in one field: "5.12." (Finnish ls).
func cutNumericDate(s string) (d, mo int, ok bool) {
	i := strings.IndexByte(s, '.')
	if i < 0 {
		return 0, 0, false
	}
	return numericDate(s[:i+1], s[i+1:])
}

// numericDate reads a day and month written as numbers, each followed by
// a dot, in two fields: "5." and "1." (Finnish ls).
func numericDate(ds, ms string) (d, mo int, ok bool) {
	ds, ok1 := strings.CutSuffix(ds, ".")
	ms, ok2 := strings.CutSuffix(ms, ".")
	if !ok1 || !ok2 || len(ms) < 1 || len(ms) > 2 || !isDigits(ms) {
		return 0, 0, false
	}
	d = localDay(ds)
	mo, _ = strconv.Atoi(ms)
	return d, mo, d > 0 && mo >= 1 && mo <= 12
}

// localDay reads a day of the month, 1 to 31 in one or two digits; 0 if
// s is none.
func localDay(s string) int {
	if len(s) < 1 || len(s) > 2 || !isDigits(s) {
		return 0
	}
	d, _ := strconv.Atoi(s)
	if d > 31 {
		return 0
	}
	return d
}

// cutYear reads a year that begins a date: four digits, alone or with
// the Chinese and Japanese 年 or the Korean 년, and returns what follows
// 年 in the same field ("2019年10月": "10月").
func cutYear(s string) (year, rest string, ok bool) {
	if y, r, cut := strings.Cut(s, "年"); cut {
		year, rest = y, r
	} else {
		year = strings.TrimSuffix(s, "년")
	}
	return year, rest, len(year) == 4 && isDigits(year) && year >= "1900"
}

// cutCJKDay splits a month and day that ls writes as one field in
// Chinese when the day has two digits ("6月28日") into the month name and
// the day.
func cutCJKDay(s string) (string, int, bool) {
	m, day, ok := strings.Cut(s, "月")
	if !ok || day == "" {
		return "", 0, false
	}
	day, ok = strings.CutSuffix(day, "日")
	d := localDay(day)
	return m + "月", d, ok && d > 0
}

// localClock reads a time of day "HH:MM" or "HH.MM" (the hour may have
// one digit).
func localClock(s string) (hh, mm int, ok bool) {
	i := strings.IndexAny(s, ":.")
	if i < 1 || i > 2 || len(s)-i != 3 || !isDigits(s[:i]) || !isDigits(s[i+1:]) {
		return 0, 0, false
	}
	hh, _ = strconv.Atoi(s[:i])
	mm, _ = strconv.Atoi(s[i+1:])
	return hh, mm, hh <= 23 && mm <= 59
}

// trimPrefixes returns s without the first of prefixes it begins with.
func trimPrefixes(s string, prefixes ...string) string {
	for _, x := range prefixes {
		if t, ok := strings.CutPrefix(s, x); ok {
			return t
		}
	}
	return s
}

// trimSuffixes returns s without the first of suffixes it ends with.
func trimSuffixes(s string, suffixes ...string) string {
	for _, x := range suffixes {
		if t, ok := strings.CutSuffix(s, x); ok {
			return t
		}
	}
	return s
}

// readLocal reads, as ls lines in another language, the lines of l
// that no layout read.
func (p *lineParser) readLocal(l *listing) {
	// The month names first, which say the listing's language.
	var seen []string
	anyMonth := func(s string) (time.Month, bool) { return 1, isLocalMonth(s) }
	read := false
	for i := range l.lines {
		if r := &l.lines[i]; r.e == nil && !r.skip {
			if _, d, ok := parseUnix(r.line, p.now, anyMonth, false); ok {
				read = true
				if d.month != "" { // "" for a month written as a number
					seen = append(seen, d.month)
				}
			}
		}
	}
	if !read {
		return
	}
	set := newMonthSet(seen)
	date := set.month
	for i := range l.lines {
		if r := &l.lines[i]; r.e == nil && !r.skip {
			if e, d, ok := parseUnix(r.line, p.now, date, !p.lean); ok {
				p.add(l, r, e)
				r.unix = true
				r.setDate(d)
				l.inOrder = false
			}
		}
	}
}

// settlePadding decides, for each line whose date ends with a year after
// the day (formYearPadded, formYearLast) and whose name (after the one
// space that ends the date) begins with a space, whether that space is
// padding or the name's. ls writes the dates of one listing in one
// format, so padding is in every such line or in none:
//   - a line of them whose name begins right after the date shows there
//     is none;
//   - the lines whose dates end with a time of day show the column of the
//     names (ls lines them up): a name in the column is not padded;
//   - in a style that pads (formYearPadded: iso, German), a name one
//     column further is, and without a line with a time, a space that
//     all of two or more have is padding; one line alone is not sure;
//   - in another (formYearLast), ls does not pad, but a time's column one
//     further says nothing (Bulgarian's " 5 яну 2019" is one column
//     narrower than "28 юни 06:30"), nor do lines without one: whether
//     the style pads cannot be told, from an ls of another version or a
//     server's own strftime.
//
// A line not sure is left unread, and the listing says so.
//
// cols are the name columns of lines read before l's (stream) whose
// dates end with a time of day.
func settlePadding(l *listing, cols []int) {
	res := l.lines
	yearLast := func(r *parsedLine) bool {
		return r.unix && (r.form == formYearPadded || r.form == formYearLast)
	}
	padded, spaced := 0, 0
	for i := range res {
		if r := &res[i]; yearLast(r) {
			padded++
			if r.line[r.nameAt] == ' ' {
				spaced++
			}
		}
	}
	if spaced == 0 || spaced < padded {
		return
	}
	clockCols := slices.Clone(cols)
	for i := range res {
		if r := &res[i]; r.unix && r.form == formClock {
			clockCols = append(clockCols, utf8.RuneCountInString(r.line[:r.nameAt]))
		}
	}
	for i := range res {
		r := &res[i]
		if !yearLast(r) {
			continue
		}
		col := utf8.RuneCountInString(r.line[:r.nameAt])
		after, at := slices.Contains(clockCols, col+1), slices.Contains(clockCols, col)
		switch {
		case at && !after:
		case r.form == formYearLast, at, padded == 1 && !after:
			l.drop(r)
		case !setUnixName(r.e, r.line[r.nameAt+1:]):
			l.drop(r)
		}
	}
}
