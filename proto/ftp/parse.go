package ftp

import (
	"iter"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/rfc1738/fetch/proto"
)

// Listing formats, as reported in Response.Info["ftp_listing"].
const (
	formatMLSD = "mlsd" // RFC 3659 section 7 machine listing
	formatLIST = "list" // LIST: ls -l, MS-DOS, EPLF, VMS, ... per line (list.go)
	formatNLST = "nlst" // NLST: one name per line (RFC 959 section 4.1.3)
)

// splitText splits a listing into its lines, which share its memory:
// each ends in LF, and one CR before the LF is dropped (RFC 959 sends
// listings as lines ending CRLF; some servers send bare LF). A CR
// elsewhere stays part of the line. Empty lines are left out.
func splitText(s string) []string {
	t := text{s}
	lines := make([]string, 0, t.lineCap())
	for line := range t.lines() {
		lines = append(lines, line)
	}
	return lines
}

// lines yields the lines of t as splitText splits them, sharing t's
// memory.
func (t text) lines() iter.Seq[string] {
	return func(yield func(string) bool) {
		for _, s := range t {
			for s != "" {
				line, rest, _ := strings.Cut(s, "\n")
				s = rest
				if line = strings.TrimSuffix(line, "\r"); line != "" && !yield(line) {
					return
				}
			}
		}
	}
}

// lineCap is the most lines t can hold.
func (t text) lineCap() int {
	n := 0
	for _, s := range t {
		n += strings.Count(s, "\n") + 1
	}
	return n
}

// parseListing parses the bytes of a directory listing in format; syst,
// the server's reply to SYST ("" when unknown), helps choose among the
// LIST layouts (list.go), and now places dates written without a year.
// The entries "." and ".." are left out, and so are lines that describe
// the listing ("total N", a VMS header or trailer). Every other line that
// fits no layout is returned in unparsed, as the server sent it: a line
// left out silently could be a file never mirrored. Names are kept as the
// server sent them, "/", "..", CR or any byte: check them before use as
// local paths.
func parseListing(raw []byte, format, syst string, now time.Time) (entries []proto.Entry, unparsed []string) {
	entries, unparsed, _ = newLineParser(format, syst, now).parseChunks(text{string(raw)}, format)
	return entries, unparsed
}

// parseChunks is parseListing of a listing in chunks of whole lines
// (text), whose memory the entries' names share. self reports whether the
// listing had an entry "." or ".." (left out of entries): a LIST answer
// with one shows that the server honoured LIST -a (listall.go).
func (p lineParser) parseChunks(t text, format string) (entries []proto.Entry, unparsed []string, self bool) {
	if format == formatNLST {
		entries = make([]proto.Entry, 0, t.lineCap())
		for line := range t.lines() {
			if line == "." || line == ".." {
				// Pure-FTPd names the directory and its parent too:
				// no entries, as in LIST and MLSD.
				self = true
				continue
			}
			entries = append(entries, proto.Entry{Name: line, Type: proto.EntryOther, Size: -1})
		}
		return entries, nil, self
	}
	q := p // parseEach moves layouts to the front of q's order
	entries, self, ok := q.parseEach(t)
	if ok {
		return entries, nil, self
	}
	return p.parseAll(t, entries)
}

// parseAll is parseChunks of a LIST or MLSD listing, each line with a
// row (parseRows). buf, when it has room for an entry a line, is used for
// the entries.
func (p lineParser) parseAll(t text, buf []proto.Entry) (entries []proto.Entry, unparsed []string, self bool) {
	l := p.parseRows(splitRows(t), buf)
	entries = l.entries[:0]
	if l.inOrder {
		// Every entry in the order of its line: left out are only "."
		// and "..", in place.
		for _, e := range l.entries {
			if e.Name == "." || e.Name == ".." {
				self = true
				continue
			}
			entries = append(entries, e)
		}
	} else {
		entries = make([]proto.Entry, 0, len(l.entries))
	}
	for _, r := range l.lines {
		switch {
		case r.skip:
		case r.e == nil:
			unparsed = append(unparsed, r.line)
		case l.inOrder:
		case r.e.Name == "." || r.e.Name == "..":
			self = true
		default:
			entries = append(entries, *r.e)
		}
	}
	return entries, unparsed, self
}

// parsedLine is what parseRows made of one line of a listing.
type parsedLine struct {
	line string
	e    *proto.Entry // the entry the line describes; nil for none
	// Of a line read as ls -l: the byte offset of the name in the line,
	// and how its date ends (lineDate; its month name is not kept, so
	// that a listing of many lines takes 32 bytes a line here).
	nameAt int32
	form   dateForm
	skip   bool // the line describes the listing, or was read with the line before
	unix   bool // read as ls -l, with date
}

// setDate keeps of d what settlePadding reads. A name past what int32
// holds (a line of 2 GiB, under a --max-listing that large) is kept as
// read, formYear being a form settlePadding leaves alone.
func (r *parsedLine) setDate(d lineDate) {
	if d.nameAt > math.MaxInt32 {
		r.form, r.nameAt = formYear, 0
		return
	}
	r.form, r.nameAt = d.form, int32(d.nameAt)
}

// listing is what parseRows made of a listing: its lines, and their
// entries, in the order of their lines when inOrder.
type listing struct {
	lines   []parsedLine
	entries []proto.Entry
	inOrder bool
}

// add appends e to the entries of l and sets r.e to it. entries has room
// for an entry a line, so earlier pointers stay valid.
func (l *listing) add(r *parsedLine, e proto.Entry) {
	l.entries = append(l.entries, e)
	r.e = &l.entries[len(l.entries)-1]
}

// drop makes r a line that was not read.
func (l *listing) drop(r *parsedLine) {
	r.e, r.unix = nil, false
	l.inOrder = false
}

// add adds e, read from the line r, to l (lean when p is).
func (p *lineParser) add(l *listing, r *parsedLine, e proto.Entry) {
	if p.lean {
		lean(&e)
	}
	l.add(r, e)
}

// splitRows splits t into the rows that parseRows reads: a listing of
// many lines is not held as a slice of lines besides.
func splitRows(t text) []parsedLine {
	rows := make([]parsedLine, 0, t.lineCap())
	for line := range t.lines() {
		rows = append(rows, parsedLine{line: line})
	}
	return rows
}

// parseEach reads a listing whose lines are each read on their own: each
// fits a layout or describes the listing, and none is an ls line whose
// year the whole listing decides (settlePadding). It keeps no row for
// each line, which parseRows needs for the rest. ok is false for a
// listing it cannot read so; entries then has room for an entry a line,
// which parseRows may use.
func (p *lineParser) parseEach(t text) (entries []proto.Entry, self, ok bool) {
	entries = make([]proto.Entry, 0, t.lineCap())
	for line := range t.lines() {
		if isBlank(line) || isNonEntryLine(line) || p.mlsd && isMLSDSelf(line) {
			continue
		}
		e, unix, date, ok := p.parseLine(line)
		if !ok || unix && (date.form == formYearPadded || date.form == formYearLast) {
			return entries, false, false
		}
		if e.Name == "." || e.Name == ".." {
			self = true
			continue
		}
		if p.lean {
			lean(&e)
		}
		entries = append(entries, e)
	}
	return entries, self, true
}

// parseRows reads the lines of one listing, rows that hold only their
// lines. Most are read one by one; what the whole listing shows decides
// the rest: the language of month names (readLocal) and whether a space
// after a year is padding (settlePadding). buf, when it has room for an
// entry a row, is used for the entries.
func (p *lineParser) parseRows(rows []parsedLine, buf []proto.Entry) *listing {
	if cap(buf) < len(rows) {
		buf = make([]proto.Entry, 0, len(rows))
	}
	clear(buf[:cap(buf)])
	l := &listing{
		lines:   rows,
		entries: buf[:0],
		inOrder: true,
	}
	failed := false
	for i := 0; i < len(rows); i++ {
		r := &l.lines[i]
		if isBlank(r.line) || isNonEntryLine(r.line) || p.mlsd && isMLSDSelf(r.line) {
			r.skip = true
			continue
		}
		e, unix, date, ok := p.parseLine(r.line)
		if !ok && i+1 < len(rows) && isVMSNameLine(r.line) {
			// A VMS name too long for its column, its details on the
			// next line.
			if e, ok = parseVMSLine(strings.TrimSpace(r.line) + " " + rows[i+1].line); ok {
				p.add(l, r, e)
				i++
				l.lines[i] = parsedLine{line: rows[i].line, skip: true}
				continue
			}
		}
		if ok {
			p.add(l, r, e)
			r.unix = unix
			r.setDate(date)
		}
		failed = failed || !ok
	}
	p.settle(l, failed)
	return l
}

// settle reads what the whole listing decides (parseRows), some lines
// having failed on their own when failed is set.
func (p *lineParser) settle(l *listing, failed bool) {
	if failed {
		p.readLocal(l)
	}
	settlePadding(l, p.cols)
	if failed && !p.readBefore {
		// After settlePadding, which may leave lines unread: ls's
		// "total" is left out only before a line read as ls, and not
		// after one read before these (stream).
		skipLocalTotal(l.lines, p.unixElsewhere)
	}
}

// skipLocalTotal marks as describing the listing the first line of an ls
// -l listing in another language when it is ls's "total N" in that
// language ("insgesamt 4", "合計 0"): a word of localTotals, then the
// number. Any other first line stays unread: a word and a number
// ("README 1234") may be an entry of a layout not known. unix says that
// a line after the first, not among res, was read as ls.
func skipLocalTotal(res []parsedLine, unix bool) {
	first := -1
	read := unix
	for i := range res {
		switch r := &res[i]; {
		case r.skip:
		case first < 0:
			first = i
		case r.unix:
			read = true
		}
	}
	if first < 0 || !read || res[first].e != nil {
		return
	}
	word, n, ok := strings.Cut(res[first].line, " ")
	if ok && localTotals[word] && isTotalLine("total "+n) {
		res[first].skip = true
	}
}

// localTotals are the words GNU ls prints for "total" in other languages,
// exactly as printed: the translations of msgid "total" in coreutils'
// message catalogs (9.1's, the first lines of testdata/ls-locales, which
// gen.sh captured in 44 locales), and 总用量, zh_CN's word in older
// releases (总计 since). Locales without a translation (ia, kk) print
// "total" itself (isTotalLine).
var localTotals = map[string]bool{
	"totaal":    true, // af, nl
	"усяго":     true, // be
	"общо":      true, // bg
	"celkem":    true, // cs
	"totalt":    true, // da, nb, sv
	"insgesamt": true, // de
	"σύνολο":    true, // el
	"totalo":    true, // eo
	"kokku":     true, // et
	"guztira":   true, // eu
	"yhteensä":  true, // fi
	"iomlán":    true, // ga
	"sveukupno": true, // hr
	"összesen":  true, // hu
	"totale":    true, // it
	"合計":        true, // ja
	"합계":        true, // ko
	"omugatte":  true, // lg
	"viso":      true, // lt
	"jumlah":    true, // ms
	"razem":     true, // pl
	"итого":     true, // ru
	"celkom":    true, // sk
	"skupno":    true, // sl
	"укупно":    true, // sr
	"toplam":    true, // tr
	"загалом":   true, // uk
	"tổng":      true, // vi
	"总计":        true, // zh_CN
	"总用量":       true, // zh_CN, older releases
	"總用量":       true, // zh_TW
}

// isTotalLine reports whether line is the "total N" line that ls -l
// writes first (N in blocks, possibly with a unit suffix).
func isTotalLine(line string) bool {
	rest, ok := strings.CutPrefix(line, "total ")
	if !ok {
		return false
	}
	rest = strings.TrimSpace(rest)
	rest = strings.TrimRight(rest, "KMGTkmgt")
	rest = strings.Replace(rest, ".", "", 1)
	rest = strings.Replace(rest, ",", "", 1)
	return rest != "" && isDigits(rest)
}

// isMLSDSelf reports whether an MLSD line is the cdir or pdir entry (the
// directory itself or its parent), which is not a member and not a line
// to report.
func isMLSDSelf(line string) bool {
	facts, _ := cutMLSD(line)
	for f := range strings.SplitSeq(facts, ";") {
		k, v, _ := strings.Cut(f, "=")
		if strings.EqualFold(k, "type") && (strings.EqualFold(v, "cdir") || strings.EqualFold(v, "pdir")) {
			return true
		}
	}
	return false
}

// cutMLSD splits an MLSD line into its facts and its pathname (RFC 3659
// section 7.2: the facts, each ending in ";", then one SP, then the
// pathname, which may hold SP and ";"). Facts hold no SP by the grammar,
// but servers write values with spaces (an owner's full name, the target
// of OS.unix=slink:): when the text before the first SP does not end in
// ";", the facts end at the first "; ". A line of facts that do not end
// in ";" is cut at its first SP.
func cutMLSD(line string) (facts, name string) {
	facts, name, ok := strings.Cut(line, " ")
	if !ok || facts == "" || strings.HasSuffix(facts, ";") {
		return facts, name
	}
	if i := strings.Index(line, "; "); i >= 0 {
		return line[:i+1], line[i+2:]
	}
	return facts, name
}

// parseMLSDLine parses one line of an MLSD listing (RFC 3659 section 7.2):
//
//	entry = [ facts ] SP pathname
//	facts = 1*( fact ";" )
//	fact  = factname "=" value
//
// Fact names are case-insensitive and the facts come in any order. type
// (file, dir, cdir, pdir, or an OS specific value such as
// OS.unix=slink:TARGET), size, sizd and modify (YYYYMMDDHHMMSS[.sss], UTC,
// section 2.3) fill the entry; the other facts go to Extra under their
// lower-case names. A missing size leaves Size at -1, a missing type
// makes an EntryOther. cdir and pdir entries (the directory itself and
// its parent) are not members and are refused.
func parseMLSDLine(line string) (proto.Entry, bool) {
	facts, name := cutMLSD(line)
	if name == "" || strings.ContainsAny(facts, "\t") {
		return proto.Entry{}, false
	}
	e := proto.Entry{Name: name, Type: proto.EntryOther, Size: -1}
	var seen [8]string // the fact names so far; few lines have more
	names := seen[:0]
	for f := range strings.SplitSeq(facts, ";") {
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok || k == "" {
			return proto.Entry{}, false
		}
		k = strings.ToLower(k)
		if slices.Contains(names, k) {
			// A fact given twice ("type=;type=file"), perhaps with two
			// values: which one the server meant cannot be told.
			return proto.Entry{}, false
		}
		names = append(names, k)
		if !setMLSDFact(&e, k, v) {
			return proto.Entry{}, false
		}
	}
	return e, true
}

// setMLSDFact sets the fact k (lower case) of value v in e: type, size,
// sizd and modify fill the entry, the other facts go to Extra. It
// reports false for a value that is not valid, or for a cdir or pdir
// entry.
func setMLSDFact(e *proto.Entry, k, v string) bool {
	switch k {
	case "type":
		return setMLSDType(e, v)
	case "size", "sizd":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || v[0] == '+' {
			return false
		}
		e.Size = n
	case "modify":
		t, ok := parseMLSDTime(v)
		if !ok {
			return false
		}
		e.ModTime = t
	default:
		setExtra(e, k, v)
	}
	return true
}

// setMLSDType sets e's type from the type fact's value v: file, dir, a
// link (with its target after ":" when given), or another type kept in
// Extra. It reports false for cdir and pdir, which are not members.
func setMLSDType(e *proto.Entry, v string) bool {
	lv := strings.ToLower(v)
	switch {
	case lv == "file":
		e.Type = proto.EntryFile
	case lv == "dir":
		e.Type = proto.EntryDir
	case lv == "cdir" || lv == "pdir":
		return false
	case strings.HasPrefix(lv, "os.unix=slink"), strings.HasPrefix(lv, "os.unix=symlink"), lv == "link":
		e.Type = proto.EntryLink
		if _, target, ok := strings.Cut(v, ":"); ok {
			e.Target = target
		}
	default:
		e.Type = proto.EntryOther
		setExtra(e, "type", v)
	}
	return true
}

// parseMLSDTime parses a time-val (RFC 3659 section 2.3): 14 digits, then
// optionally "." and 1 to 3 (or more) digits of fraction, always UTC.
func parseMLSDTime(v string) (time.Time, bool) {
	whole, frac, hasFrac := strings.Cut(v, ".")
	if len(whole) != 14 || !isDigits(whole) || hasFrac && (frac == "" || !isDigits(frac)) {
		return time.Time{}, false
	}
	t, err := time.ParseInLocation("20060102150405", whole, time.UTC)
	if err != nil {
		return time.Time{}, false
	}
	if hasFrac {
		if len(frac) > 9 {
			frac = frac[:9]
		}
		ns, _ := strconv.Atoi(frac + strings.Repeat("0", 9-len(frac)))
		t = t.Add(time.Duration(ns))
	}
	return t, true
}

// lean leaves in e only what a mirror reads (proto.FTPOptions.Lean): of
// Extra, "unique" and "vms_version".
func lean(e *proto.Entry) {
	if e.Extra == nil {
		return
	}
	u, v := e.Extra["unique"], e.Extra["vms_version"]
	e.Extra = nil
	if u != "" {
		setExtra(e, "unique", u)
	}
	if v != "" {
		setExtra(e, "vms_version", v)
	}
}

func setExtra(e *proto.Entry, k, v string) {
	if e.Extra == nil {
		e.Extra = make(map[string]string, 3)
	}
	e.Extra[k] = v
}

// field is one whitespace-separated token of a line and where it ends.
type field struct {
	s   string
	end int
}

// fields splits line at runs of spaces (and tabs) into dst, up to
// cap(dst) fields. Callers pass a slice of an array of their own, so that
// a listing of thousands of lines does not allocate for each.
func fields(dst []field, line string) []field {
	i := 0
	for len(dst) < cap(dst) {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i >= len(line) {
			break
		}
		start := i
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			i++
		}
		dst = append(dst, field{line[start:i], i})
	}
	return dst
}

// monthNames are the month abbreviations of ls, in order.
const monthNames = "janfebmaraprmayjunjulaugsepoctnovdec"

// month returns the month s abbreviates ("Jan" to "Dec", in any case).
func month(s string) (time.Month, bool) {
	if len(s) != 3 {
		return 0, false
	}
	var low [3]byte
	for i := range 3 {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	for m := 0; m < 12; m++ {
		if monthNames[3*m:3*m+3] == string(low[:]) {
			return time.Month(m + 1), true
		}
	}
	return 0, false
}

// parseUnixLine parses one line of Unix "ls -l" output, the LIST format of
// most servers (RFC 959 leaves LIST's format to the server):
//
//	drwxr-xr-x    2 0        0            4096 Mar 15  2019 pub
//	-rw-r--r--    1 ftp      ftp          1234 Jan 02 03:04 name with spaces
//	lrwxrwxrwx    1 0        0               7 Mar 15  2019 link -> target
//	-rw-r--r--.   1 0        0               5 2020-01-02 03:04 long-iso
//	-rw-r--r--@   1 0        0               5 2020-01-02 03:04:05.000000000 +0100 full-iso
//
// The mode may carry one mark of an ACL, an SELinux context or extended
// attributes ("+", ".", "@"). The group column may be missing, and so may
// the link count; after a link count the group may be words (groupWord);
// device files show "major, minor" where others show the size. The date
// is "Mon DD HH:MM" or "Mon DD YYYY", or one of GNU ls's ISO styles
// (long-iso, full-iso with its zone applied, iso). The name is everything
// after the single space that follows the date, so that names with spaces
// survive; a link's name ends at its first " -> ".
func parseUnixLine(line string, now time.Time) (proto.Entry, bool) {
	e, _, ok := parseUnix(line, now, nil, true)
	return e, ok
}

// A dateForm says how an ls date ends, which tells whether a space after
// it may be padding rather than part of the name.
type dateForm uint8

const (
	formClock dateForm = iota // ends with the time of day: "Jan 02 03:04"
	formYear                  // ends with a year padded before it, if at all: "Jan 02  2019"
	// formYearPadded ends with a year that GNU ls pads after, to the
	// width of a time of day, in some styles: "2019-01-05  name" (iso),
	// " 5. Jan 2019  name" (German). Whether a space that follows it
	// is padding or the name's is decided by the whole listing
	// (settlePadding).
	formYearPadded
	// formYearLast ends with a year after the day, in a style that GNU
	// ls does not pad: " 5 яну 2019" (Bulgarian), " 5.12.  2019"
	// (Finnish). A space that follows it is the name's only when the
	// whole listing shows it (settlePadding).
	formYearLast
)

// lineDate is what parseUnix tells of a line's date besides its time.
type lineDate struct {
	form   dateForm
	nameAt int    // the byte offset of the name in the line
	month  string // the month name a date in another language was read by; "" for none
}

// parseUnix is parseUnixLine that also tells of the date. With a month
// function it reads dates in other languages instead (localDate), their
// month names read by month. extra says whether the entry gets its Extra
// (perm, owner, group); a lean parse (proto.FTPOptions.Lean), which would
// drop them, does not make the map for every line.
func parseUnix(line string, now time.Time, month func(string) (time.Month, bool), extra bool) (proto.Entry, lineDate, bool) {
	var buf [12]field
	fs := fields(buf[:0], line)
	if len(fs) < 5 {
		return proto.Entry{}, lineDate{}, false
	}
	perm := fs[0].s
	typ, ok := unixType(perm)
	if !ok {
		return proto.Entry{}, lineDate{}, false
	}
	// Find the date: it follows the size, which follows the owner (and
	// perhaps a group) after the link count (or no link count). A size
	// may look like the start of a date too ("2019 Feb 14  2018" in a
	// language that writes the year first): the first place where a date
	// is followed by a name, and has a size before it, is the one.
	for i := 3; i <= 8 && i < len(fs); i++ {
		var t time.Time
		var end int
		var form dateForm
		var name string
		if month == nil {
			t, end, form, ok = unixDate(line, fs, i, now)
		} else {
			t, end, form, name, ok = localDate(line, fs, i, now, month)
		}
		if !ok {
			continue
		}
		e := proto.Entry{Type: typ, Size: -1, ModTime: t}
		sizeAt, ok := unixSize(&e, fs, i)
		if !ok || end+1 >= len(line) || !setUnixName(&e, line[end+1:]) {
			continue
		}
		if !extra {
			return e, lineDate{form: form, nameAt: end + 1, month: name}, true
		}
		setExtra(&e, "perm", perm)
		switch sizeAt {
		case 2: // no link count: mode, owner, size
			setExtra(&e, "owner", fs[1].s)
		case 3:
			setExtra(&e, "owner", fs[2].s)
		default:
			// The group may be more than one word: "domain users",
			// the group of a machine in a Windows domain (sssd,
			// winbind).
			setExtra(&e, "owner", fs[2].s)
			setExtra(&e, "group", line[fs[3].end-len(fs[3].s):fs[sizeAt-1].end])
		}
		return e, lineDate{form: form, nameAt: end + 1, month: name}, true
	}
	return proto.Entry{}, lineDate{}, false
}

// unixSize reads the size of an ls entry whose date starts at field m
// and returns the size's field: the one before the date, or the two of a
// device's "major, minor" (whose size stays -1).
func unixSize(e *proto.Entry, fs []field, m int) (int, bool) {
	sizeAt := m - 1
	if e.Type == proto.EntryOther && m >= 4 && strings.HasSuffix(fs[m-2].s, ",") {
		sizeAt = m - 2 // "major, minor"
	} else if e.Type != proto.EntryOther {
		n, err := strconv.ParseInt(fs[m-1].s, 10, 64)
		if err != nil || n < 0 || fs[m-1].s[0] == '+' {
			return 0, false
		}
		e.Size = n
	}
	if sizeAt >= 5 {
		// A group of words only after a link count and before a size,
		// and every word of it a groupWord: "42 2019 nov  5 2000 x" is
		// a size then a date (Hungarian, the year first), not a group
		// "g 42" then a size and "nov  5 2000"; "0 42 6月28日 06:30 5 Jan
		// 02 2019 x" is an owner, a size and a date (Chinese), not a
		// group "6月28日 06:30".
		if !isDigits(fs[1].s) || e.Type == proto.EntryOther {
			return 0, false
		}
		for _, f := range fs[3:sizeAt] {
			if !groupWord(f.s) {
				return 0, false
			}
		}
	}
	return sizeAt, sizeAt >= 2 && sizeAt <= 7
}

// groupWord reports whether s may be a word of a group of several words:
// one that holds a digit holds a Latin letter too. Groups of several
// words are those of a Windows domain, through sssd or winbind: "domain
// users", "Domain Admins", with the domain "CORP01\domain users" or
// "domain users@ad1.example.com". A size is digits, and every date ls
// writes has, in its first two fields, a field with digits and no Latin
// letter (a day, a year, a time: "5", "5.", "2019", "06:30", "6月28日",
// "6월", and the year or time after Czech's "5.\u00a0led"): so no
// group of groupWords can hold a line's real size or date, and a line
// that would need one ("office 365 users") is left unread (and reported)
// rather than read wrong.
func groupWord(s string) bool {
	digit, latin := false, false
	for _, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			latin = true
		case unicode.IsDigit(c):
			digit = true
		}
	}
	return latin || !digit
}

// setUnixName sets the name of an ls entry from the text after its date:
// all of it, but a link's name ends at its first " -> ".
func setUnixName(e *proto.Entry, s string) bool {
	e.Name, e.Target = s, ""
	if e.Type == proto.EntryLink {
		if name, target, ok := strings.Cut(s, " -> "); ok {
			e.Name, e.Target = name, target
		}
	}
	return e.Name != ""
}

// unixType returns the entry type of an ls mode string: a type letter,
// nine permission letters, and perhaps one mark of an ACL ("+"), an
// SELinux context (".") or extended attributes ("@").
func unixType(perm string) (proto.EntryType, bool) {
	switch len(perm) {
	case 10:
	case 11:
		if c := perm[10]; c != '+' && c != '.' && c != '@' {
			return "", false
		}
	default:
		return "", false
	}
	var typ proto.EntryType
	switch perm[0] {
	case '-':
		typ = proto.EntryFile
	case 'd':
		typ = proto.EntryDir
	case 'l':
		typ = proto.EntryLink
	case 'c', 'b', 'p', 's', 'D':
		typ = proto.EntryOther
	default:
		return "", false
	}
	for i := 1; i < 10; i++ {
		switch perm[i] {
		case 'r', 'w', 'x', 's', 'S', 't', 'T', 'l', '-':
		default:
			return "", false
		}
	}
	return typ, true
}

// unixDate reads the date of an ls line starting at field i, in any of
// the styles parseUnixLine lists, and returns it with the end of its last
// field in the line.
func unixDate(line string, fs []field, i int, now time.Time) (time.Time, int, dateForm, bool) {
	s := fs[i].s
	if _, ok := month(s); ok {
		if i+2 >= len(fs) {
			return time.Time{}, 0, 0, false
		}
		t, ok := unixTime(s, fs[i+1].s, fs[i+2].s, now)
		form := formClock
		if !strings.Contains(fs[i+2].s, ":") {
			form = formYear
		}
		return t, fs[i+2].end, form, ok
	}
	switch {
	case len(s) == 10 && s[4] == '-' && s[7] == '-':
		return isoStyleDate(line, fs, i)
	case len(s) == 5 && s[2] == '-':
		return isoRecentDate(fs, i, now)
	}
	return time.Time{}, 0, 0, false
}

// isoStyleDate reads a date of ls's iso, long-iso or full-iso style
// starting at field i, "YYYY-MM-DD" then maybe a time of day and a zone,
// as unixDate.
func isoStyleDate(line string, fs []field, i int) (time.Time, int, dateForm, bool) {
	y, mo, d, ok := isoDate(fs[i].s)
	if !ok || i+1 >= len(fs) {
		return time.Time{}, 0, 0, false
	}
	hh, mm, ss, ns, hasSec, ok := isoClock(fs[i+1].s)
	if !ok {
		// iso style, an old file: the date alone.
		return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC), fs[i].end, formYearPadded, true
	}
	t := time.Date(y, mo, d, hh, mm, ss, ns, time.UTC)
	// full-iso: a zone follows the seconds. After a fraction it must;
	// after whole seconds, a zone-like field is the zone only if a
	// name follows it.
	frac := strings.Contains(fs[i+1].s, ".")
	if hasSec && i+2 < len(fs) {
		if off, ok := isoZone(fs[i+2].s); ok && (frac || fs[i+2].end+1 < len(line)) {
			return t.Add(-off), fs[i+2].end, formClock, true
		}
	}
	if frac {
		return time.Time{}, 0, 0, false // full-iso without its zone
	}
	return t, fs[i+1].end, formClock, true
}

// isoRecentDate reads the date of a recent file in ls's iso style,
// "MM-DD HH:MM", starting at field i, as unixDate.
func isoRecentDate(fs []field, i int, now time.Time) (time.Time, int, dateForm, bool) {
	s := fs[i].s
	mo, err1 := strconv.Atoi(s[:2])
	d, err2 := strconv.Atoi(s[3:])
	if err1 != nil || err2 != nil || !isDigits(s[:2]) || !isDigits(s[3:]) || mo < 1 || mo > 12 || d < 1 || d > 31 || i+1 >= len(fs) {
		return time.Time{}, 0, 0, false
	}
	hh, mm, _, _, hasSec, ok := isoClock(fs[i+1].s)
	if !ok || hasSec {
		return time.Time{}, 0, 0, false
	}
	return placeInYear(time.Month(mo), d, hh, mm, now), fs[i+1].end, formClock, true
}

// isoDate reads "YYYY-MM-DD", a date that exists, from 1900 on (as
// unixTime).
func isoDate(s string) (int, time.Month, int, bool) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !isDigits(s[:4]) || !isDigits(s[5:7]) || !isDigits(s[8:]) {
		return 0, 0, 0, false
	}
	y, _ := strconv.Atoi(s[:4])
	mo, _ := strconv.Atoi(s[5:7])
	d, _ := strconv.Atoi(s[8:])
	if y < 1900 || !validDate(y, mo, d) {
		return 0, 0, 0, false
	}
	return y, time.Month(mo), d, true
}

// validDate reports whether day d of month mo exists in year y.
func validDate(y, mo, d int) bool {
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return false
	}
	return time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC).Day() == d
}

// isoClock reads "HH:MM", "HH:MM:SS" or "HH:MM:SS.fraction" (up to nine
// digits of fraction are kept).
func isoClock(s string) (hh, mm, ss, ns int, hasSec, ok bool) {
	if len(s) < 5 || s[2] != ':' || !isDigits(s[:2]) || !isDigits(s[3:5]) {
		return
	}
	hh, _ = strconv.Atoi(s[:2])
	mm, _ = strconv.Atoi(s[3:5])
	if hh > 23 || mm > 59 {
		return
	}
	rest := s[5:]
	if rest == "" {
		return hh, mm, 0, 0, false, true
	}
	if len(rest) < 3 || rest[0] != ':' || !isDigits(rest[1:3]) {
		return
	}
	ss, _ = strconv.Atoi(rest[1:3])
	if ss > 60 {
		return
	}
	rest = rest[3:]
	if rest != "" {
		if rest[0] != '.' || len(rest) < 2 || !isDigits(rest[1:]) {
			return
		}
		frac := rest[1:]
		for i := 0; i < 9; i++ {
			ns *= 10
			if i < len(frac) {
				ns += int(frac[i] - '0')
			}
		}
	}
	return hh, mm, ss, ns, true, true
}

// isoZone reads a numeric zone "+HHMM" or "-HHMM" as an offset east of
// UTC.
func isoZone(s string) (time.Duration, bool) {
	if len(s) != 5 || s[0] != '+' && s[0] != '-' || !isDigits(s[1:]) {
		return 0, false
	}
	h, _ := strconv.Atoi(s[1:3])
	m, _ := strconv.Atoi(s[3:])
	if h > 23 || m > 59 {
		return 0, false
	}
	off := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute
	if s[0] == '-' {
		off = -off
	}
	return off, true
}

// unixTime reads ls's "Mon DD HH:MM" or "Mon DD YYYY" as UTC.
func unixTime(mon, day, tod string, now time.Time) (time.Time, bool) {
	mo, _ := month(mon)
	d, err := strconv.Atoi(day)
	if err != nil || d < 1 || d > 31 || len(day) > 2 {
		return time.Time{}, false
	}
	if strings.Contains(tod, ":") {
		hh, mm, ok := localClock(tod) // ":" is the only separator it can then take
		return placeInYear(mo, d, hh, mm, now), ok
	}
	y, err := strconv.Atoi(tod)
	if err != nil || len(tod) != 4 || y < 1900 {
		return time.Time{}, false
	}
	return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC), true
}

// placeInYear returns the moment of a date written without its year: in
// the twelve months before now, with a day of slack for clocks that
// differ.
func placeInYear(mo time.Month, d, hh, mm int, now time.Time) time.Time {
	now = now.UTC()
	t := time.Date(now.Year(), mo, d, hh, mm, 0, 0, time.UTC)
	if t.After(now.Add(24 * time.Hour)) {
		t = t.AddDate(-1, 0, 0)
	}
	return t
}

// parseDOSLine parses the MS-DOS style LIST output of IIS and some other
// Windows servers:
//
//	01-16-02  11:14AM       <DIR>          epsoft
//	12-05-1996  05:03PM            1234 file.txt
//
// Two-digit years below 70 are taken as 20xx. The name is what follows the
// spaces after the size (or <DIR>).
func parseDOSLine(line string) (proto.Entry, bool) {
	var buf [3]field
	fs := fields(buf[:0], line)
	if len(fs) < 3 {
		return proto.Entry{}, false
	}
	t, ok := dosTime(fs[0].s, fs[1].s)
	if !ok {
		return proto.Entry{}, false
	}
	e := proto.Entry{ModTime: t, Size: -1}
	if strings.EqualFold(fs[2].s, "<DIR>") {
		e.Type = proto.EntryDir
	} else {
		n, err := strconv.ParseInt(fs[2].s, 10, 64)
		if err != nil || n < 0 {
			return proto.Entry{}, false
		}
		e.Type, e.Size = proto.EntryFile, n
	}
	rest := line[fs[2].end:]
	rest = strings.TrimLeft(rest, " \t")
	if rest == "" {
		return proto.Entry{}, false
	}
	e.Name = rest
	return e, true
}

// dosTime reads "MM-DD-YY" or "MM-DD-YYYY" and "HH:MMAM"/"HH:MMPM" (or a
// 24-hour "HH:MM") as UTC.
func dosTime(date, tod string) (time.Time, bool) {
	y, mo, d, ok := dosDate(date)
	if !ok {
		return time.Time{}, false
	}
	hh, mm, ok := dosClock(tod)
	if !ok {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, hh, mm, 0, 0, time.UTC), true
}

// dosDate reads a DOS listing's date, "MM-DD-YY" or "MM-DD-YYYY"; a
// two-digit year below 70 is in the 2000s.
func dosDate(date string) (y, mo, d int, ok bool) {
	if len(date) != 8 && len(date) != 10 || date[2] != '-' || date[5] != '-' {
		return 0, 0, 0, false
	}
	p := [3]string{date[:2], date[3:5], date[6:]}
	for _, s := range p {
		if !isDigits(s) {
			return 0, 0, 0, false
		}
	}
	mo, _ = strconv.Atoi(p[0])
	d, _ = strconv.Atoi(p[1])
	y, _ = strconv.Atoi(p[2])
	if len(p[2]) == 2 {
		y = century(y)
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return 0, 0, 0, false
	}
	return y, mo, d, true
}

// century places a two-digit year: below 70 in the 2000s, else in the
// 1900s.
func century(y int) int {
	if y < 70 {
		return 2000 + y
	}
	return 1900 + y
}

// dosClock reads a DOS listing's time of day, "HH:MM" on the 24-hour
// clock or "HH:MMAM", "HH:MMPM" on the 12-hour one.
func dosClock(tod string) (hh, mm int, ok bool) {
	ampm := ""
	if n := len(tod); n > 2 {
		switch strings.ToUpper(tod[n-2:]) {
		case "AM", "PM":
			ampm = strings.ToUpper(tod[n-2:])
			tod = tod[:n-2]
		}
	}
	hh, mm, ok = localClock(tod)
	if !ok || strings.Contains(tod, ".") {
		return 0, 0, false
	}
	if ampm != "" {
		if hh < 1 || hh > 12 {
			return 0, 0, false
		}
		hh %= 12
		if ampm == "PM" {
			hh += 12
		}
	}
	return hh, mm, true
}
