package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// parseVMSLine parses one line of the LIST output of VMS servers
// (MultiNet, UCX, TCPware), which is that of DCL's DIRECTORY/SIZE/DATE/
// OWNER/PROTECTION (sample lines: cr.yp.to/ftpparse.html):
//
//	README.TXT;3        2/4        4-JAN-2001 12:34:56  [SYSTEM]  (RWED,RWED,RE,RE)
//	SUBDIR.DIR;1   1  12-MAR-1999 10:00  [USER,NAME] (RWE,RWE,RE,E)
//	00README.TXT;1      2 30-DEC-1996 17:44
//
// The name with its version, the size in blocks ("used" or
// "used/allocated"), the date D-MON-YYYY, perhaps the time (HH:MM,
// HH:MM:SS or HH:MM:SS.cc), perhaps the owner in brackets and the
// protection in parentheses. A file keeps its name as listed,
// NAME.EXT;VERSION; NAME.DIR;N is the directory NAME. Size is -1 (blocks
// are not bytes: the record format decides how many bytes a block
// yields); Extra holds vms_version, blocks (used), blocks_allocated,
// owner and vms_protection. A name whose details are an error message
// (%RMS-E-PRV, ...) is refused: nothing is known of that file.
func parseVMSLine(line string) (proto.Entry, bool) {
	var buf [8]field
	fs := fields(buf[:0], line)
	if len(fs) < 3 {
		return proto.Entry{}, false
	}
	base, version, ok := vmsName(fs[0].s)
	if !ok {
		return proto.Entry{}, false
	}
	used, alloc, ok := strings.Cut(fs[1].s, "/")
	if !isDigits(used) || ok && !isDigits(alloc) || len(used) > 18 || len(alloc) > 18 {
		return proto.Entry{}, false
	}
	y, mo, d, ok := vmsDate(fs[2].s)
	if !ok {
		return proto.Entry{}, false
	}
	e := proto.Entry{Name: fs[0].s, Type: proto.EntryFile, Size: -1}
	i := 3
	hh, mm, ss, ns := 0, 0, 0, 0
	if i < len(fs) && strings.IndexByte(fs[i].s, ':') > 0 {
		if hh, mm, ss, ns, ok = vmsClock(fs[i].s); !ok {
			return proto.Entry{}, false
		}
		i++
	}
	e.ModTime = time.Date(y, mo, d, hh, mm, ss, ns, time.UTC)
	// The owner in brackets, then the protection in parentheses; nothing
	// else may follow.
	rest := line[fs[i-1].end:]
	rest = strings.TrimLeft(rest, " \t")
	for _, g := range [...]struct {
		open, close byte
		key         string
	}{{'[', ']', "owner"}, {'(', ')', "vms_protection"}} {
		if rest == "" || rest[0] != g.open {
			continue
		}
		j := strings.IndexByte(rest, g.close)
		if j < 0 {
			return proto.Entry{}, false
		}
		setExtra(&e, g.key, rest[1:j])
		rest = strings.TrimLeft(rest[j+1:], " \t")
	}
	if rest != "" {
		return proto.Entry{}, false
	}
	setExtra(&e, "vms_version", version)
	setExtra(&e, "blocks", used)
	if alloc != "" {
		setExtra(&e, "blocks_allocated", alloc)
	}
	if len(base) > 4 && strings.EqualFold(base[len(base)-4:], ".DIR") {
		e.Type, e.Name = proto.EntryDir, base[:len(base)-4]
	}
	return e, true
}

// vmsName splits a VMS file name with its version, "NAME.EXT;N", into
// "NAME.EXT" and "N". The name part holds no space, ";", "[" or "%" (the
// start of a DCL message).
func vmsName(s string) (base, version string, ok bool) {
	i := strings.LastIndexByte(s, ';')
	if i <= 0 || i == len(s)-1 || len(s)-i-1 > 5 || !isDigits(s[i+1:]) {
		return "", "", false
	}
	base = s[:i]
	if base[0] == '%' || strings.ContainsAny(base, ";[]") {
		return "", "", false
	}
	return base, s[i+1:], true
}

// isVMSNameLine reports whether line is a VMS file name alone, whose
// details the server wrote on the next line.
func isVMSNameLine(line string) bool {
	s := strings.TrimSpace(line)
	if strings.ContainsAny(s, " \t") {
		return false
	}
	_, _, ok := vmsName(s)
	return ok
}

// vmsDate reads "D-MON-YYYY" or "DD-MON-YYYY", a date that exists.
func vmsDate(s string) (int, time.Month, int, bool) {
	ds, rest, ok1 := strings.Cut(s, "-")
	ms, ys, ok2 := strings.Cut(rest, "-")
	if !ok1 || !ok2 || len(ds) < 1 || len(ds) > 2 || !isDigits(ds) || len(ys) != 4 || !isDigits(ys) {
		return 0, 0, 0, false
	}
	mo, ok := month(ms)
	if !ok {
		return 0, 0, 0, false
	}
	d, _ := strconv.Atoi(ds)
	y, _ := strconv.Atoi(ys)
	if !validDate(y, int(mo), d) {
		return 0, 0, 0, false
	}
	return y, mo, d, true
}

// vmsClock reads "HH:MM", "HH:MM:SS" or "HH:MM:SS.cc" (hundredths).
func vmsClock(s string) (hh, mm, ss, ns int, ok bool) {
	if len(s) == 4 {
		s = "0" + s // "9:05"
	}
	hh, mm, ss, ns, _, ok = isoClock(s)
	return hh, mm, ss, ns, ok
}

// isVMSHeader reports whether line is the header of a VMS listing,
// "Directory DISK$USER:[FOO.BAR]" (or with <FOO.BAR>).
func isVMSHeader(line string) bool {
	rest, ok := strings.CutPrefix(line, "Directory ")
	rest = strings.TrimSpace(rest)
	if !ok || rest == "" || strings.ContainsAny(rest, " \t") {
		return false
	}
	return strings.HasSuffix(rest, "]") && strings.Contains(rest, "[") ||
		strings.HasSuffix(rest, ">") && strings.Contains(rest, "<")
}

// isVMSTrailer reports whether line is a trailer of a VMS listing:
// "Total of 3 files, 12 blocks." (or "12/36 blocks.") or "Grand total of
// 2 directories, 5 files, 20 blocks.".
func isVMSTrailer(line string) bool {
	var rest string
	var ok bool
	if rest, ok = strings.CutPrefix(line, "Total of "); !ok {
		if rest, ok = strings.CutPrefix(line, "Grand total of "); !ok {
			return false
		}
	}
	n, rest, _ := strings.Cut(rest, " ")
	if !isDigits(n) {
		return false
	}
	return strings.HasPrefix(rest, "file") || strings.HasPrefix(rest, "director")
}
