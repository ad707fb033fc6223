package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// parseNetWareLine parses one line of the LIST output of Novell NetWare's
// FTP server (sample lines: cr.yp.to/ftpparse.html):
//
//	d [RWCEAFMS] supervisor            512       Jan 16 18:53    login
//	- [R----F--] rhesus             214059       Oct 20 15:27    cx.exe
//	- [-RWCEAFMS] owner               1234       May 14  1996    name with space
//
// The type ("d" or "-"), the trustee rights in brackets (letters of
// RWCEAFMS or "-"), the owner, the size in bytes, and an ls date; the
// name follows the spaces after the date.
func parseNetWareLine(line string, now time.Time) (proto.Entry, bool) {
	var buf [8]field
	fs := fields(buf[:0], line)
	if len(fs) < 7 {
		return proto.Entry{}, false
	}
	var e proto.Entry
	switch fs[0].s {
	case "d":
		e.Type = proto.EntryDir
	case "-":
		e.Type = proto.EntryFile
	default:
		return proto.Entry{}, false
	}
	rights := fs[1].s
	if len(rights) < 10 || len(rights) > 11 || rights[0] != '[' || rights[len(rights)-1] != ']' {
		return proto.Entry{}, false
	}
	for i := 1; i < len(rights)-1; i++ {
		if !strings.ContainsRune("RWCEAFMS-", rune(rights[i])) {
			return proto.Entry{}, false
		}
	}
	n, ok := decimalSize(fs[3].s)
	if !ok {
		return proto.Entry{}, false
	}
	if _, ok := month(fs[4].s); !ok {
		return proto.Entry{}, false
	}
	t, ok := unixTime(fs[4].s, fs[5].s, fs[6].s, now)
	if !ok {
		return proto.Entry{}, false
	}
	name := strings.TrimLeft(line[fs[6].end:], " \t")
	if name == "" {
		return proto.Entry{}, false
	}
	e.Name, e.Size, e.ModTime = name, n, t
	setExtra(&e, "netware_rights", rights)
	setExtra(&e, "owner", fs[2].s)
	return e, true
}

// parseOS2Line parses one line of the LIST output of the OS/2 FTP server
// (IBM TCP/IP for OS/2), the "OS/2 basic server format" among the
// layouts of Mozilla's ParseFTPList.h:
//
//	    0           DIR   04-11-95   16:26  ADDRESS
//	  612      A          07-03-95   10:12  FILE.TXT
//	11405                 12-05-96   09:02  NO ATTRS.DOC
//
// The size in bytes, the attributes (A, R, H, S) or DIR, the date
// MM-DD-YY, the time HH:MM, then the name after the spaces. A directory's
// size (always 0) is left at -1; the attributes go to Extra["os2_attrs"].
func parseOS2Line(line string) (proto.Entry, bool) {
	var buf [8]field
	fs := fields(buf[:0], line)
	if len(fs) < 4 {
		return proto.Entry{}, false
	}
	n, ok := decimalSize(fs[0].s)
	if !ok {
		return proto.Entry{}, false
	}
	e := proto.Entry{Type: proto.EntryFile, Size: n}
	i := 1
	var attrs []string
	for ; i < len(fs) && i <= 3; i++ {
		s := fs[i].s
		if s == "DIR" {
			e.Type, e.Size = proto.EntryDir, -1
			continue
		}
		if strings.Trim(s, "ARHS") != "" || len(s) > 4 {
			break
		}
		attrs = append(attrs, s)
	}
	if i+2 >= len(fs) || len(fs[i].s) != 8 {
		return proto.Entry{}, false
	}
	t, ok := dosTime(fs[i].s, fs[i+1].s)
	if !ok || len(fs[i+1].s) != 5 {
		return proto.Entry{}, false // HH:MM only, no AM/PM
	}
	name := strings.TrimLeft(line[fs[i+1].end:], " \t")
	if name == "" {
		return proto.Entry{}, false
	}
	e.Name, e.ModTime = name, t
	if len(attrs) > 0 {
		setExtra(&e, "os2_attrs", strings.Join(attrs, " "))
	}
	return e, true
}

// parseOS400Line parses one line of the LIST output of an IBM i (OS/400)
// server in its own format, LISTFMT 0 (IBM i Knowledge Center, "File and
// directory entries in IBM i format", rzaiqfdrt):
//
//	owner size date time type name
//	QSYS          77824 02/23/00 15:09:55 *DIR       QDOC/
//	QPGMR         36864 12/01/01 10:12:03 *STMF      file.txt
//	BAILEYSE    5263360 06/11/97 12:27:39 *FILE      BPTFSAVF
//	QPGMR                                 *MEM       LIB.FILE/MEM.MBR
//
// The owner is blank for anonymous sessions, the size when the object
// has none, and a member has neither date nor time. The name follows the
// object type and may hold blanks; a directory's trailing "/" is removed.
// The date has the server job's format: with "/" or "-" it is read as
// MM/DD/YY (the default of US systems), else YY/MM/DD or DD/MM/YY when
// that is the only valid reading; with "." as DD.MM.YY. How the object
// types map to entry types is described at the top of list.go.
func parseOS400Line(line string) (proto.Entry, bool) {
	var buf [6]field
	fs := fields(buf[:0], line)
	k := -1
	for i := 0; i < len(fs) && i <= 4; i++ {
		if isOS400Type(fs[i].s) {
			k = i
			break
		}
	}
	if k < 0 {
		return proto.Entry{}, false
	}
	e := proto.Entry{Size: -1}
	pre := fs[:k]
	if n := len(pre); n >= 2 {
		if t, ok := os400Time(pre[n-2].s, pre[n-1].s); ok {
			e.ModTime = t
			pre = pre[:n-2]
		}
	}
	if n := len(pre); n >= 1 && isDigits(pre[n-1].s) {
		size, err := strconv.ParseInt(pre[n-1].s, 10, 64)
		if err != nil {
			return proto.Entry{}, false
		}
		e.Size = size
		pre = pre[:n-1]
	}
	switch len(pre) {
	case 0:
	case 1:
		if !isOS400Profile(pre[0].s) {
			return proto.Entry{}, false
		}
		setExtra(&e, "owner", pre[0].s)
	default:
		return proto.Entry{}, false
	}
	typ := fs[k].s
	name := strings.TrimLeft(line[fs[k].end:], " \t")
	switch typ {
	case "*DIR", "*LIB", "*FLR", "*FILE":
		e.Type = proto.EntryDir
		name = strings.TrimSuffix(name, "/")
	case "*STMF", "*DOC", "*MEM":
		e.Type = proto.EntryFile
	default:
		e.Type = proto.EntryOther
	}
	if name == "" {
		return proto.Entry{}, false
	}
	e.Name = name
	setExtra(&e, "os400_type", typ)
	return e, true
}

// isOS400Type reports whether s is an object type: "*" and 2 to 10
// upper-case letters or digits, the first a letter.
func isOS400Type(s string) bool {
	if len(s) < 3 || len(s) > 11 || s[0] != '*' || s[1] < 'A' || s[1] > 'Z' {
		return false
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isOS400Profile reports whether s can be a user profile name: up to 10
// letters, digits, "$", "#", "@" or "_", the first not a digit or "_".
func isOS400Profile(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		switch {
		case 'a' <= c && c <= 'z', s[i] == '$', s[i] == '#', s[i] == '@':
		case i > 0 && ('0' <= s[i] && s[i] <= '9' || s[i] == '_'):
		default:
			return false
		}
	}
	return true
}

// os400Time reads the date and time of an IBM i listing: an 8-character
// date with "/", "-" or "." between two-digit parts, and HH:MM:SS (or
// HH.MM.SS), as UTC.
func os400Time(date, tod string) (time.Time, bool) {
	if len(date) != 8 || len(tod) != 8 {
		return time.Time{}, false
	}
	p, sep, ok := os400Date(date)
	if !ok {
		return time.Time{}, false
	}
	hh, mm, ss, ok := os400Clock(tod)
	if !ok {
		return time.Time{}, false
	}
	// Readings in order of preference: (year, month, day); with "." only
	// the last.
	tries := [][3]int{{century(p[2]), p[0], p[1]}, {century(p[0]), p[1], p[2]}, {century(p[2]), p[1], p[0]}}
	if sep == '.' {
		tries = tries[2:]
	}
	for _, r := range tries {
		if validDate(r[0], r[1], r[2]) {
			return time.Date(r[0], time.Month(r[1]), r[2], hh, mm, ss, 0, time.UTC), true
		}
	}
	return time.Time{}, false
}

// os400Date reads the three two-digit parts of an IBM i listing's date of
// 8 characters and the separator between them: "/", "-" or ".".
func os400Date(date string) (p [3]int, sep byte, ok bool) {
	sep = date[2]
	if sep != '/' && sep != '-' && sep != '.' || date[5] != sep {
		return p, 0, false
	}
	for i := range p {
		s := date[3*i : 3*i+2]
		if !isDigits(s) {
			return p, 0, false
		}
		p[i], _ = strconv.Atoi(s)
	}
	return p, sep, true
}

// os400Clock reads an IBM i listing's time of day of 8 characters,
// HH:MM:SS or HH.MM.SS.
func os400Clock(tod string) (hh, mm, ss int, ok bool) {
	tsep := tod[2]
	if tsep != ':' && tsep != '.' || tod[5] != tsep || !isDigits(tod[:2]) || !isDigits(tod[3:5]) || !isDigits(tod[6:]) {
		return 0, 0, 0, false
	}
	hh, _ = strconv.Atoi(tod[:2])
	mm, _ = strconv.Atoi(tod[3:5])
	ss, _ = strconv.Atoi(tod[6:])
	if hh > 23 || mm > 59 || ss > 59 {
		return 0, 0, 0, false
	}
	return hh, mm, ss, true
}
