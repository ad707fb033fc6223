// LIST layouts
//
// RFC 959 (section 4.1.3) leaves the format of a LIST reply to the server,
// and the servers of old archives wrote many. parseListing knows these,
// each described by the public source named here (the table tests cite
// them row by row):
//
//	layout   example line                                          source
//	unix     -rw-r--r--   1 ftp ftp  1234 Jan 02 03:04 name         ls -l (POSIX ls; GNU coreutils manual,
//	         -rw-r--r--.  1 0 0  5 2020-01-02 03:04 name             "Formatting file timestamps": long-iso,
//	         ... 2020-01-02 03:04:05.000000000 +0000 name            full-iso, iso)
//	dos      01-16-02  11:14AM       <DIR>          epsoft          IIS "MS-DOS" directory style
//	eplf     +i8388621.29609,m824255902,/,<TAB>dev                  D. J. Bernstein, cr.yp.to/ftp/list/eplf.html
//	vms      README.TXT;3   2/4   4-JAN-2001 12:34:56 [SYSTEM] (RWED,RWED,RE,RE)
//	                                                                MultiNet, UCX, TCPware DIRECTORY output
//	                                                                (sample lines of cr.yp.to/ftpparse.html;
//	                                                                Process Software MultiNet user's guide;
//	                                                                multi-line: Mozilla's ParseFTPList.h)
//	netware  d [RWCEAFMS] owner   512 Jan 01 12:00 name             Novell NetWare FTP server (cr.yp.to/ftpparse.html)
//	os2      612      A      07-03-95   10:12  FILE.TXT             OS/2 FTP server (IBM TCP/IP for OS/2), the "OS/2
//	                                                                basic server format" of Mozilla's ParseFTPList.h
//	os400    QPGMR   36864 12/01/01 10:12:03 *STMF   file.txt       IBM i Knowledge Center, "File and directory
//	                                                                entries in IBM i format" (rzaiqfdrt, LISTFMT 0)
//	mlsd     type=file;size=5;modify=20200102030405; name           RFC 3659 section 7 (MLSD, not LIST)
//
// Unix lines whose dates are in another language ("5. Okt 2019", "10月 5
// 10:00") fit no layout alone: what the whole listing shows decides how
// they are read (parseRows, months.go), and so does whether a space after
// a year is padding or the start of a name.
//
// Each line is tried against the layouts in turn, the layout that read the
// previous line first: a listing is read line by line, so that a mixed or
// unknown listing degrades one line at a time and one odd line never loses
// the others. The first order comes from the SYST reply (a server that
// says "VMS" is asked VMS first) and the line itself (only an EPLF line
// starts with "+"). The layouts are written so that no line fits two of
// them (TestLayoutsDisjoint checks every table row against every layout,
// FuzzLayoutsDisjoint any line): a line is never read as an entry of the
// wrong layout. An MLSD reply is read as MLSD, and a line of it that is
// not MLSD is tried in the LIST layouts.
//
// Lines that describe the listing are neither entries nor unparsed lines:
// blank lines (or spaces and tabs only), "total N" (ls), the VMS "Directory DISK:[DIR]" header and
// its "Total of N files, M blocks." and "Grand total of ..." trailers (and
// MLSD's cdir and pdir entries). A VMS name too long for its column stands
// alone on its line, its details on the next line: the two are read as one.
//
// Extra keys set, by layout (besides the fields of proto.Entry):
//
//	unix     perm (the mode string as listed, with an ACL mark), owner, group
//	eplf     eplf_id (the i fact), perm (from the up fact, as ls writes it)
//	vms      vms_version, blocks (blocks used), blocks_allocated, owner,
//	         vms_protection
//	netware  netware_rights (the bracketed rights), owner
//	os2      os2_attrs (A, R, H, S as listed)
//	os400    os400_type (*STMF, *DIR, *FILE, *MEM, ...), owner
//	mlsd     each fact other than type, size, sizd, modify, under its
//	         lower-case name
//
// OS/400 object types: *DIR, *LIB, *FLR and *FILE are EntryDir (a *FILE,
// a database file, is a container whose members the server lists as *MEM
// entries when one changes into it; a save file is a *FILE too, which the
// listing cannot tell apart), *STMF, *DOC and *MEM are EntryFile (a *MEM
// line usually has no size: -1), and every other object type (*PGM,
// *CMD, *USRPRF, ...) is EntryOther, which a mirror leaves alone.

package ftp

import (
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// The LIST layouts, in the default order of trial.
const (
	layoutUnix = iota
	layoutDOS
	layoutVMS
	layoutNetWare
	layoutOS2
	layoutOS400
	numLayouts

	// layoutEPLF is not in the order of trial: only an EPLF line starts
	// with "+", and such a line is tried as EPLF alone.
	layoutEPLF = numLayouts
)

// lineParser reads the lines of one listing. It is not safe for
// concurrent use.
type lineParser struct {
	now   time.Time
	mlsd  bool
	lean  bool              // entries lean (proto.FTPOptions.Lean)
	order [numLayouts]uint8 // layouts to try, most likely first

	// Of lines of the listing read before (stream), for parseRows:
	// the name columns of ls lines with a time of day (settlePadding),
	// whether a line was read before the first of the rows, and whether
	// a line was read as ls -l (skipLocalTotal).
	cols          []int
	readBefore    bool
	unixElsewhere bool
}

// newLineParser returns a lineParser for a listing in format (formatMLSD
// or formatLIST) from a server whose SYST reply was syst.
func newLineParser(format, syst string, now time.Time) lineParser {
	p := lineParser{now: now, mlsd: format == formatMLSD}
	for i := range p.order {
		p.order[i] = uint8(i)
	}
	if l, ok := systLayout(syst); ok {
		p.prefer(l)
	}
	return p
}

// systLayout returns the layout a SYST reply suggests (RFC 959 section
// 4.1.3: the first word is a system name of the Assigned Numbers list;
// some servers add their own words).
func systLayout(syst string) (uint8, bool) {
	s := strings.ToUpper(syst)
	switch {
	case strings.Contains(s, "VMS"):
		return layoutVMS, true
	case strings.Contains(s, "NETWARE"):
		return layoutNetWare, true
	case strings.Contains(s, "OS/400"):
		return layoutOS400, true
	case strings.Contains(s, "OS/2"):
		return layoutOS2, true
	case strings.HasPrefix(s, "WINDOWS"), strings.HasPrefix(s, "MSDOS"):
		return layoutDOS, true
	}
	return 0, false
}

// prefer moves layout l to the front of the order of trial.
func (p *lineParser) prefer(l uint8) {
	i := 0
	for i < len(p.order) && p.order[i] != l {
		i++
	}
	if i == len(p.order) {
		return
	}
	copy(p.order[1:i+1], p.order[:i])
	p.order[0] = l
}

// parseLine returns the entry one line describes, trying the layouts in
// order; the one that fits is tried first for the next line. A line read
// as ls -l (unix) comes with what parseUnix tells of its date.
func (p *lineParser) parseLine(line string) (e proto.Entry, unix bool, date lineDate, ok bool) {
	if p.mlsd {
		if e, ok := parseMLSDLine(line); ok {
			return e, false, lineDate{}, true
		}
	}
	if line[0] == '+' {
		// Only EPLF lines start with "+" (cr.yp.to/ftp/list/eplf.html).
		e, ok := parseEPLFLine(line)
		return e, false, lineDate{}, ok
	}
	for i, l := range p.order {
		if l == layoutUnix {
			e, date, ok = parseUnix(line, p.now, nil, !p.lean)
		} else {
			e, ok = parseLayout(l, line, p.now)
		}
		if ok {
			if i > 0 {
				p.prefer(l)
			}
			return e, l == layoutUnix, date, true
		}
	}
	return proto.Entry{}, false, lineDate{}, false
}

func parseLayout(l uint8, line string, now time.Time) (proto.Entry, bool) {
	switch l {
	case layoutUnix:
		return parseUnixLine(line, now)
	case layoutDOS:
		return parseDOSLine(line)
	case layoutVMS:
		return parseVMSLine(line)
	case layoutNetWare:
		return parseNetWareLine(line, now)
	case layoutOS2:
		return parseOS2Line(line)
	case layoutOS400:
		return parseOS400Line(line)
	case layoutEPLF:
		return parseEPLFLine(line)
	}
	return proto.Entry{}, false
}

// isBlank reports whether line holds nothing but spaces and tabs.
func isBlank(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] != ' ' && line[i] != '\t' {
			return false
		}
	}
	return true
}

// isNonEntryLine reports whether a LIST line describes the listing rather
// than an entry: "total N" (ls), the VMS "Directory X:[Y]" header, or the
// VMS "Total of ..." and "Grand total of ..." trailers.
func isNonEntryLine(line string) bool {
	switch line[0] {
	case 't':
		return isTotalLine(line)
	case 'D':
		return isVMSHeader(line)
	case 'T', 'G':
		return isVMSTrailer(line)
	}
	return false
}
