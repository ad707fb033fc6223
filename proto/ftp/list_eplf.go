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
	dir, file := false, false
	var perm uint32 // the up fact's mode, with bit 31 set when given
	for f := range strings.SplitSeq(facts, ",") {
		if f == "" {
			continue
		}
		switch f[0] {
		case '/':
			dir = true
		case 'r':
			file = true
		case 's':
			n, err := strconv.ParseInt(f[1:], 10, 64)
			if err != nil || n < 0 || !isDigits(f[1:]) {
				return proto.Entry{}, false
			}
			e.Size = n
		case 'm':
			n, err := strconv.ParseInt(f[1:], 10, 64)
			if err != nil || !isDigits(f[1:]) || n > 1<<40 {
				return proto.Entry{}, false
			}
			e.ModTime = time.Unix(n, 0).UTC()
		case 'i':
			setExtra(&e, "eplf_id", f[1:])
		case 'u':
			if len(f) > 1 && f[1] == 'p' {
				mode, err := strconv.ParseUint(f[2:], 8, 32)
				if err != nil || f[2:] == "" || f[2] == '+' || mode > 0o7777 {
					return proto.Entry{}, false
				}
				perm = uint32(mode) | 1<<31
			}
		}
	}
	switch {
	case dir:
		e.Type = proto.EntryDir
	case file:
		e.Type = proto.EntryFile
	}
	if perm != 0 {
		setExtra(&e, "perm", modeString(e.Type, perm))
	}
	return e, true
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
