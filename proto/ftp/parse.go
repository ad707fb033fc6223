package ftp

import (
	"bytes"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// Listing formats, as reported in Response.Info["ftp_listing"].
const (
	formatMLSD = "mlsd" // RFC 3659 section 7 machine listing
	formatLIST = "list" // LIST: Unix "ls -l" or MS-DOS style, per line
	formatNLST = "nlst" // NLST: one name per line (RFC 959 section 4.1.3)
)

// splitLines splits a listing into its lines: each ends in LF, and one CR
// before the LF is dropped (RFC 959 sends listings as lines ending CRLF;
// some servers send bare LF). A CR elsewhere stays part of the line. Empty
// lines are left out.
func splitLines(raw []byte) []string {
	lines := make([]string, 0, bytes.Count(raw, []byte{'\n'})+1)
	s := string(raw)
	for s != "" {
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		line = strings.TrimSuffix(line, "\r")
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// parseListing parses the bytes of a directory listing. format is
// formatMLSD, formatLIST or formatNLST; syst is the text of the server's
// reply to SYST ("UNIX Type: L8", "VMS V5.5", "" when unknown), which helps
// choose among LIST layouts. The entries "." and ".." (which name the
// directory and its parent, not a member) are left out, and so are lines
// that describe the listing rather than an entry ("total N", a VMS header
// or trailer). Every other line that fits no known layout is returned in
// unparsed, exactly as the server sent it, so that the caller can say so:
// a line left out silently could be a file never mirrored. now is the
// moment used to place Unix dates written without a year.
//
// Names are kept exactly as the server sent them: they may hold "/", "..",
// CR or any other byte, and must be checked before use as local paths.
func parseListing(raw []byte, format, syst string, now time.Time) (entries []proto.Entry, unparsed []string) {
	_ = syst
	lines := splitLines(raw)
	entries = make([]proto.Entry, 0, len(lines))
	for _, line := range lines {
		var e proto.Entry
		var ok bool
		switch format {
		case formatMLSD:
			e, ok = parseMLSDLine(line)
			if !ok && isMLSDSelf(line) {
				continue
			}
		case formatNLST:
			e, ok = proto.Entry{Name: line, Type: proto.EntryOther, Size: -1}, true
		default:
			if isTotalLine(line) {
				continue
			}
			e, ok = parseUnixLine(line, now)
			if !ok {
				e, ok = parseDOSLine(line)
			}
		}
		if !ok {
			unparsed = append(unparsed, line)
			continue
		}
		if e.Name != "." && e.Name != ".." {
			entries = append(entries, e)
		}
	}
	return entries, unparsed
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

// isMLSDSelf reports whether an MLSD line that parseMLSDLine refused is
// the cdir or pdir entry (the directory itself or its parent), which is
// not a member and not a line to report.
func isMLSDSelf(line string) bool {
	facts, _, _ := strings.Cut(line, " ")
	for _, f := range strings.Split(facts, ";") {
		k, v, _ := strings.Cut(f, "=")
		if strings.EqualFold(k, "type") && (strings.EqualFold(v, "cdir") || strings.EqualFold(v, "pdir")) {
			return true
		}
	}
	return false
}

// parseMLSDLine parses one line of an MLSD listing (RFC 3659 section 7.2):
//
//	entry = [ facts ] SP pathname
//	facts = 1*( fact ";" )
//	fact  = factname "=" value
//
// Fact names are case-insensitive. type (file, dir, cdir, pdir, or an OS
// specific value such as OS.unix=slink:TARGET), size, sizd and modify
// (YYYYMMDDHHMMSS[.sss], UTC, section 2.3) fill the entry; the other facts
// go to Extra under their lower-case names. cdir and pdir entries (the
// directory itself and its parent) are not members and are refused.
func parseMLSDLine(line string) (proto.Entry, bool) {
	facts, name, ok := strings.Cut(line, " ")
	if !ok || name == "" {
		return proto.Entry{}, false
	}
	e := proto.Entry{Name: name, Type: proto.EntryOther, Size: -1}
	sawType := false
	for _, f := range strings.Split(facts, ";") {
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return proto.Entry{}, false
		}
		k = strings.ToLower(k)
		switch k {
		case "type":
			sawType = true
			lv := strings.ToLower(v)
			switch {
			case lv == "file":
				e.Type = proto.EntryFile
			case lv == "dir":
				e.Type = proto.EntryDir
			case lv == "cdir" || lv == "pdir":
				return proto.Entry{}, false
			case strings.HasPrefix(lv, "os.unix=slink"), strings.HasPrefix(lv, "os.unix=symlink"), lv == "link":
				e.Type = proto.EntryLink
				if _, target, ok := strings.Cut(v, ":"); ok {
					e.Target = target
				}
			default:
				e.Type = proto.EntryOther
				setExtra(&e, "type", v)
			}
		case "size", "sizd":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return proto.Entry{}, false
			}
			e.Size = n
		case "modify":
			t, ok := parseMLSDTime(v)
			if !ok {
				return proto.Entry{}, false
			}
			e.ModTime = t
		default:
			setExtra(&e, k, v)
		}
	}
	if !sawType {
		e.Type = proto.EntryOther
	}
	return e, true
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
//
// The group column may be missing, and device files show "major, minor"
// where others show the size. The name is everything after the single
// space that follows the date, so names with spaces (even leading ones)
// survive. A date without a year is placed in the twelve months before
// now (plus a day of slack for clocks that differ).
func parseUnixLine(line string, now time.Time) (proto.Entry, bool) {
	var buf [9]field
	fs := fields(buf[:0], line)
	if len(fs) < 7 || len(fs[0].s) < 10 {
		return proto.Entry{}, false
	}
	perm := fs[0].s
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
		return proto.Entry{}, false
	}
	for _, c := range perm[1:10] {
		if !strings.ContainsRune("rwxsStTl-", c) {
			return proto.Entry{}, false
		}
	}
	// Find the month: it follows the size, which follows the owner (and
	// perhaps a group) after the link count.
	m := -1
	for i := 3; i+2 < len(fs) && i <= 6; i++ {
		if _, ok := month(fs[i].s); ok {
			m = i
			break
		}
	}
	if m < 0 {
		return proto.Entry{}, false
	}
	t, ok := unixTime(fs[m].s, fs[m+1].s, fs[m+2].s, now)
	if !ok {
		return proto.Entry{}, false
	}
	e := proto.Entry{Type: typ, Size: -1, ModTime: t}
	sizeAt := m - 1
	if typ == proto.EntryOther && m >= 5 && strings.HasSuffix(fs[m-2].s, ",") {
		sizeAt = m - 2 // "major, minor"
	} else if typ != proto.EntryOther {
		n, err := strconv.ParseInt(fs[m-1].s, 10, 64)
		if err != nil || n < 0 {
			return proto.Entry{}, false
		}
		e.Size = n
	}
	if sizeAt < 3 || sizeAt > 4 {
		return proto.Entry{}, false
	}
	end := fs[m+2].end
	if end+1 >= len(line) {
		return proto.Entry{}, false
	}
	e.Name = line[end+1:]
	if typ == proto.EntryLink {
		if name, target, ok := strings.Cut(e.Name, " -> "); ok {
			e.Name, e.Target = name, target
		}
	}
	if e.Name == "" {
		return proto.Entry{}, false
	}
	setExtra(&e, "perm", perm)
	setExtra(&e, "owner", fs[2].s)
	if sizeAt == 4 {
		setExtra(&e, "group", fs[3].s)
	}
	return e, true
}

// unixTime reads ls's "Mon DD HH:MM" or "Mon DD YYYY" as UTC.
func unixTime(mon, day, tod string, now time.Time) (time.Time, bool) {
	mo, _ := month(mon)
	d, err := strconv.Atoi(day)
	if err != nil || d < 1 || d > 31 || len(day) > 2 {
		return time.Time{}, false
	}
	if h, mi, ok := strings.Cut(tod, ":"); ok {
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(mi)
		if err1 != nil || err2 != nil || len(h) > 2 || len(mi) != 2 || hh > 23 || mm > 59 || hh < 0 || mm < 0 {
			return time.Time{}, false
		}
		now = now.UTC()
		t := time.Date(now.Year(), mo, d, hh, mm, 0, 0, time.UTC)
		if t.After(now.Add(24 * time.Hour)) {
			t = t.AddDate(-1, 0, 0)
		}
		return t, true
	}
	y, err := strconv.Atoi(tod)
	if err != nil || len(tod) != 4 || y < 1900 {
		return time.Time{}, false
	}
	return time.Date(y, mo, d, 0, 0, 0, 0, time.UTC), true
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
	p := strings.Split(date, "-")
	if len(p) != 3 || len(p[0]) != 2 || len(p[1]) != 2 || len(p[2]) != 2 && len(p[2]) != 4 {
		return time.Time{}, false
	}
	for _, s := range p {
		if !isDigits(s) {
			return time.Time{}, false
		}
	}
	mo, _ := strconv.Atoi(p[0])
	d, _ := strconv.Atoi(p[1])
	y, _ := strconv.Atoi(p[2])
	if len(p[2]) == 2 {
		if y < 70 {
			y += 2000
		} else {
			y += 1900
		}
	}
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	ampm := ""
	if n := len(tod); n > 2 {
		switch strings.ToUpper(tod[n-2:]) {
		case "AM", "PM":
			ampm = strings.ToUpper(tod[n-2:])
			tod = tod[:n-2]
		}
	}
	h, mi, ok := strings.Cut(tod, ":")
	if !ok || len(h) == 0 || len(h) > 2 || len(mi) != 2 || !isDigits(h) || !isDigits(mi) {
		return time.Time{}, false
	}
	hh, _ := strconv.Atoi(h)
	mm, _ := strconv.Atoi(mi)
	switch ampm {
	case "AM", "PM":
		if hh < 1 || hh > 12 {
			return time.Time{}, false
		}
		hh %= 12
		if ampm == "PM" {
			hh += 12
		}
	}
	if hh > 23 || mm > 59 {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(mo), d, hh, mm, 0, 0, time.UTC), true
}
