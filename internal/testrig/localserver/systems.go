package localserver

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Systems whose FTP servers SystemFTP can play. Each answers SYST, PWD and
// LIST the way that system's server does; the layouts of LIST are as their
// public descriptions give them.
const (
	// SysUnix: ls -l with month names ("Mar 12  2024"), as most Unix
	// servers (vsftpd, ProFTPD, wu-ftpd) list.
	SysUnix = "unix"
	// SysUnixLongISO: ls -l --time-style=long-iso ("2024-03-12 14:30").
	SysUnixLongISO = "unix-long-iso"
	// SysUnixFullISO: ls -l --time-style=full-iso
	// ("2024-03-12 14:30:00.000000000 +0000").
	SysUnixFullISO = "unix-full-iso"
	// SysDOS: Microsoft IIS in its MS-DOS style ("03-12-24  02:30PM
	// <DIR> sub"), SYST "Windows_NT".
	SysDOS = "dos"
	// SysEPLF: D. J. Bernstein's Easily Parsed LIST Format
	// ("+i8388621.29609,m824255902,/,\tsub"), as publicfile sends it.
	SysEPLF = "eplf"
	// SysVMS: a VMS server (MultiNet style): "NAME.EXT;VERSION", the size
	// in blocks, directories as "NAME.DIR;1", a "Directory" header and a
	// "Total of" trailer; PWD answers "DISK$USER:[ANONYMOUS]".
	SysVMS = "vms"
	// SysNetWare: Novell NetWare ("- [RWCEAFMS] admin 3000 Mar 12  2024
	// name"), SYST "NETWARE  Type: L8".
	SysNetWare = "netware"
	// SysOS2: IBM OS/2 ("3000  A  03-12-24  14:30  name", "0  DIR ...").
	SysOS2 = "os2"
	// SysOS400: IBM OS/400 (IFS): owner, size, date, time, object type
	// (*STMF, *DIR), name; directories end in "/".
	SysOS400 = "os400"
	// SysMLSD: a server that offers MLST in FEAT and answers MLSD
	// (RFC 3659 section 7).
	SysMLSD = "mlsd"
	// SysUnknown: a layout no parser knows; NLST works as usual.
	SysUnknown = "unknown"
)

// Systems lists every system SystemFTP plays, SysUnknown last.
var Systems = []string{SysUnix, SysUnixLongISO, SysUnixFullISO, SysDOS, SysEPLF, SysVMS,
	SysNetWare, SysOS2, SysOS400, SysMLSD, SysUnknown}

// Tree is a small file tree for SystemFTP.
type Tree struct {
	// Files maps a relative, slash-separated path ("sub/notes.txt") to
	// its contents. For SysVMS the names carry their version
	// ("README.TXT;2") and are upper case.
	Files map[string][]byte
	// Dirs lists directories that hold no file; every directory on the
	// path of a file exists anyway.
	Dirs []string
	// Time is every entry's modification time (UTC, whole seconds).
	Time time.Time
}

// sysEntry is one member of a directory, as a listing shows it.
type sysEntry struct {
	name string // as stored: a VMS file with its version, a VMS directory without .DIR;1
	dir  bool
	size int
}

// SystemFTP returns a RawFTP that serves t as the FTP server of system
// (one of Systems) would: its SYST reply, its PWD syntax, its LIST layout
// (MLSD for SysMLSD), NLST with the names as the system writes them, SIZE,
// MDTM and RETR. Start it with StartRawFTP.
func SystemFTP(system string, t Tree) (*RawFTP, error) {
	if !slices.Contains(Systems, system) {
		return nil, fmt.Errorf("localserver: unknown system %q", system)
	}
	s := &RawFTP{
		Listings:  map[string]string{},
		NameLists: map[string]string{},
		Files:     map[string][]byte{},
		Times:     map[string]time.Time{},
		Syst:      systText[system],
	}
	members := map[string][]sysEntry{"/": nil}
	var addDir func(dir string)
	addDir = func(dir string) {
		if _, ok := members[dir]; ok {
			return
		}
		members[dir] = nil
		parent := path.Dir(dir)
		addDir(parent)
		members[parent] = append(members[parent], sysEntry{name: path.Base(dir), dir: true})
	}
	for _, d := range t.Dirs {
		addDir("/" + strings.Trim(d, "/"))
	}
	for p, b := range t.Files {
		full := "/" + strings.Trim(p, "/")
		dir := path.Dir(full)
		addDir(dir)
		members[dir] = append(members[dir], sysEntry{name: path.Base(full), size: len(b)})
		s.Files[full] = b
		s.Times[full] = t.Time
	}
	if system == SysMLSD {
		s.MLSD = map[string]string{}
	}
	if system == SysVMS {
		s.Paths = vmsPaths{}
	}
	for dir, es := range members {
		slices.SortFunc(es, func(a, b sysEntry) int { return strings.Compare(a.name, b.name) })
		var list, names strings.Builder
		if system == SysVMS {
			fmt.Fprintf(&list, "\r\nDirectory %s\r\n\r\n", vmsPaths{}.PWD(dir))
		}
		blocks := 0
		for _, e := range es {
			name := e.name
			if system == SysVMS && e.dir {
				name += ".DIR;1"
			}
			list.WriteString(listLine(system, e, name, t.Time) + "\r\n")
			names.WriteString(name + "\r\n")
			blocks += (e.size + 511) / 512
		}
		if system == SysVMS {
			fmt.Fprintf(&list, "\r\nTotal of %d files, %d/%d blocks.\r\n", len(es), blocks, blocks)
		}
		switch system {
		case SysMLSD:
			s.MLSD[dir] = "type=cdir;modify=" + t.Time.Format("20060102150405") + "; .\r\n" + list.String()
			s.Listings[dir] = names.String() // LIST is not asked when MLSD is offered
		default:
			s.Listings[dir] = list.String()
		}
		s.NameLists[dir] = names.String()
	}
	return s, nil
}

// systText is each system's answer to SYST.
var systText = map[string]string{
	SysUnix:        "UNIX Type: L8",
	SysUnixLongISO: "UNIX Type: L8",
	SysUnixFullISO: "UNIX Type: L8",
	SysDOS:         "Windows_NT",
	SysEPLF:        "UNIX Type: L8",
	SysVMS:         "VMS MultiNet V4.4",
	SysNetWare:     "NETWARE  Type: L8",
	SysOS2:         "OS/2",
	SysOS400:       `OS/400 is the remote operating system. The TCP/IP version is "V7R4M0".`,
	SysMLSD:        "UNIX Type: L8",
	SysUnknown:     "UNKNOWN Type: L8",
}

// listLine is the line that system's LIST gives for e, shown as name.
func listLine(system string, e sysEntry, name string, t time.Time) string {
	switch system {
	case SysUnix, SysUnixLongISO, SysUnixFullISO:
		mode, size := "-rw-r--r--", e.size
		if e.dir {
			mode, size = "drwxr-xr-x", 4096
		}
		when := t.Format("Jan _2  2006")
		switch system {
		case SysUnixLongISO:
			when = t.Format("2006-01-02 15:04")
		case SysUnixFullISO:
			when = t.Format("2006-01-02 15:04:05.000000000 -0700")
		}
		return fmt.Sprintf("%s    1 ftp      ftp      %8d %s %s", mode, size, when, name)
	case SysDOS:
		if e.dir {
			return fmt.Sprintf("%s       <DIR>          %s", t.Format("01-02-06  03:04PM"), name)
		}
		return fmt.Sprintf("%s %20d %s", t.Format("01-02-06  03:04PM"), e.size, name)
	case SysEPLF:
		if e.dir {
			return fmt.Sprintf("+i8388621.%d,m%d,/,\t%s", len(name), t.Unix(), name)
		}
		return fmt.Sprintf("+i8388621.%d,m%d,r,s%d,\t%s", len(name), t.Unix(), e.size, name)
	case SysVMS:
		blocks := (e.size + 511) / 512
		if e.dir {
			blocks = 1
		}
		return fmt.Sprintf("%-24s %5d/%-5d %s  [ANONYMOUS]  (RWED,RWED,RE,RE)", name, blocks, blocks,
			strings.ToUpper(t.Format("2-Jan-2006 15:04:05")))
	case SysNetWare:
		kind, size := "-", e.size
		if e.dir {
			kind, size = "d", 512
		}
		return fmt.Sprintf("%s [RWCEAFMS] admin %20d %s %s", kind, size, t.Format("Jan _2  2006"), name)
	case SysOS2:
		if e.dir {
			return fmt.Sprintf("%12d           DIR   %s  %s", 0, t.Format("01-02-06  15:04"), name)
		}
		return fmt.Sprintf("%12d  A          %s  %s", e.size, t.Format("01-02-06  15:04"), name)
	case SysOS400:
		if e.dir {
			return fmt.Sprintf("QSYS       %12d %s *DIR       %s/", 8192, t.Format("01/02/06 15:04:05"), name)
		}
		return fmt.Sprintf("QSECOFR    %12d %s *STMF      %s", e.size, t.Format("01/02/06 15:04:05"), name)
	case SysMLSD:
		if e.dir {
			return fmt.Sprintf("type=dir;modify=%s; %s", t.Format("20060102150405"), name)
		}
		return fmt.Sprintf("type=file;size=%d;modify=%s; %s", e.size, t.Format("20060102150405"), name)
	}
	// SysUnknown: no parser's layout.
	kind := "file"
	if e.dir {
		kind = "folder"
	}
	return fmt.Sprintf("<<%s>> %s :: %d :: %s", kind, name, e.size, t.Format(time.RFC3339))
}

// vmsPaths is the path syntax of a VMS server whose anonymous login
// directory is DISK$USER:[ANONYMOUS]. A CWD takes a full directory
// specification ("DISK$USER:[ANONYMOUS.SUB]"), a relative one ("[.SUB]",
// "[-]" for the parent) or a bare name ("SUB", a subdirectory, as MultiNet
// and TCP/IP Services accept). Files are named "NAME.EXT;VERSION", or
// "NAME.EXT" for the highest version. Names are case-insensitive.
type vmsPaths struct{}

const vmsRoot = "DISK$USER:[ANONYMOUS"

func (vmsPaths) PWD(dir string) string {
	if dir == "/" {
		return vmsRoot + "]"
	}
	return vmsRoot + strings.ReplaceAll(dir, "/", ".") + "]"
}

func (vmsPaths) CWD(s *RawFTP, dir, arg string) (string, bool) {
	arg = strings.ToUpper(arg)
	var to string
	switch {
	case strings.HasPrefix(arg, vmsRoot) && strings.HasSuffix(arg, "]"):
		inner := strings.TrimSuffix(strings.TrimPrefix(arg, vmsRoot), "]")
		if inner != "" && !strings.HasPrefix(inner, ".") {
			return "", false
		}
		to = "/" + strings.ReplaceAll(strings.TrimPrefix(inner, "."), ".", "/")
	case arg == "[-]":
		to = path.Dir(dir)
	case strings.HasPrefix(arg, "[.") && strings.HasSuffix(arg, "]"):
		to = path.Join(dir, strings.ReplaceAll(arg[2:len(arg)-1], ".", "/"))
	case arg != "" && !strings.ContainsAny(arg, "[]:;/."):
		to = path.Join(dir, arg)
	default:
		return "", false
	}
	to = path.Clean(to)
	_, ok := s.Listings[to]
	return to, ok
}

func (vmsPaths) File(s *RawFTP, dir, arg string) (string, bool) {
	arg = strings.ToUpper(arg)
	if strings.ContainsAny(arg, "/[]:") || arg == "" {
		return "", false
	}
	if strings.Contains(arg, ";") {
		key := path.Join(dir, arg)
		_, ok := s.Files[key]
		return key, ok
	}
	best, bestV := "", -1
	prefix := path.Join(dir, arg) + ";"
	for key := range s.Files {
		if v, err := strconv.Atoi(strings.TrimPrefix(key, prefix)); strings.HasPrefix(key, prefix) && err == nil && v > bestV {
			best, bestV = key, v
		}
	}
	return best, bestV >= 0
}
