package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// parseEPLFLine parses one line of Bernstein's Easily Parsed LIST Format
// (cr.yp.to/ftp/list/eplf.html):
//
//	+i8388621.29609,m824255902,/,<TAB>dev
//	+i8388621.44468,m839956783,r,s10376,<TAB>RFCEPLF
//
// A "+", facts separated by ",", a TAB, then the name, which may hold any
// byte but LF. Facts: "/" (CWD may work: a directory), "r" (RETR may
// work: a file), "s<bytes>", "m<seconds since 1970, UTC>", "i<id>" (the
// same for two names of one file) and "up<octal mode>"; other facts are
// ignored, as the format asks. A line with neither "/" nor "r" is an
// EntryOther. A malformed s, m or up fact refuses the line rather than
// give a wrong size or time.
func parseEPLFLine(line string) (proto.Entry, bool) {
	if len(line) < 3 || line[0] != '+' {
		return proto.Entry{}, false
	}
	facts, name, ok := strings.Cut(line[1:], "\t")
	if !ok || name == "" {
		return proto.Entry{}, false
	}
	e := proto.Entry{Name: name, Type: proto.EntryOther, Size: -1}
	if !setEPLFFacts(&e, facts) {
		return proto.Entry{}, false
	}
	return e, true
}

// setEPLFFacts sets in e the facts of an EPLF line, separated by ",": its
// type from "/" and "r", its size, time, id and mode. It reports false
// for a malformed s, m or up fact.
func setEPLFFacts(e *proto.Entry, facts string) bool {
	dir, file := false, false
	var perm uint32 // the up fact's mode, with bit 31 set when given
	for f := range strings.SplitSeq(facts, ",") {
		if f == "" {
			continue
		}
		var ok bool
		switch f[0] {
		case '/':
			dir, ok = true, true
		case 'r':
			file, ok = true, true
		case 's':
			e.Size, ok = decimalSize(f[1:])
		case 'm':
			e.ModTime, ok = eplfTime(f[1:])
		case 'i':
			setExtra(e, "eplf_id", f[1:])
			ok = true
		case 'u':
			perm, ok = eplfPerm(f[1:], perm)
		default:
			ok = true
		}
		if !ok {
			return false
		}
	}
	switch {
	case dir:
		e.Type = proto.EntryDir
	case file:
		e.Type = proto.EntryFile
	}
	if perm != 0 {
		setExtra(e, "perm", modeString(e.Type, perm))
	}
	return true
}

// decimalSize reads a size in bytes written as decimal digits (EPLF's s
// fact, a NetWare or OS/2 line's size).
func decimalSize(v string) (int64, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil && isDigits(v)
}

// eplfTime reads the m fact's time, decimal seconds since 1970 (UTC).
func eplfTime(v string) (time.Time, bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || !isDigits(v) || n > 1<<40 {
		return time.Time{}, false
	}
	return time.Unix(n, 0).UTC(), true
}

// eplfPerm reads a fact starting with "u" after its "u": the up fact's
// octal mode, returned with bit 31 set; a fact u of another name leaves
// perm as it was.
func eplfPerm(v string, perm uint32) (uint32, bool) {
	octal, up := strings.CutPrefix(v, "p")
	if !up {
		return perm, true
	}
	mode, err := strconv.ParseUint(octal, 8, 32)
	if err != nil || octal == "" || octal[0] == '+' || mode > 0o7777 {
		return 0, false
	}
	return uint32(mode) | 1<<31, true
}

// modeString writes the permission bits of mode as ls does
// ("-rw-r--r--", "drwxr-sr-t"), with "?" as the type letter of an
// EntryOther.
func modeString(t proto.EntryType, mode uint32) string {
	b := []byte("?rwxrwxrwx")
	switch t {
	case proto.EntryDir:
		b[0] = 'd'
	case proto.EntryFile:
		b[0] = '-'
	}
	for i := 0; i < 9; i++ {
		if mode&(1<<(8-i)) == 0 {
			b[1+i] = '-'
		}
	}
	special := func(bit uint32, at int, set, unset byte) {
		if mode&bit != 0 {
			if b[at] == 'x' {
				b[at] = set
			} else {
				b[at] = unset
			}
		}
	}
	special(0o4000, 3, 's', 'S')
	special(0o2000, 6, 's', 'S')
	special(0o1000, 9, 't', 'T')
	return string(b)
}
