package ftp

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
)

func clock(y int, m time.Month, d, hh, mm, ss int) time.Time {
	return time.Date(y, m, d, hh, mm, ss, 0, time.UTC)
}

// lineTest is one row of a layout's table: a line and the entry it must
// give, or ok false when the layout must refuse it.
type lineTest struct {
	line string
	want proto.Entry
	ok   bool
}

func runLineTests(t *testing.T, name string, parse func(string) (proto.Entry, bool), tests []lineTest) {
	t.Helper()
	for _, tt := range tests {
		got, ok := parse(tt.line)
		if ok != tt.ok || ok && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s(%q) = %+v, %v; want %+v, %v", name, tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

// EPLF: D. J. Bernstein, "EPLF: Easily Parsed LIST Format",
// cr.yp.to/ftp/list/eplf.html. The first two rows are the examples of
// that page.
var eplfTests = []lineTest{
	{"+i8388621.29609,m824255902,/,\tdev",
		proto.Entry{Name: "dev", Type: proto.EntryDir, Size: -1, ModTime: time.Unix(824255902, 0).UTC(), Extra: map[string]string{"eplf_id": "8388621.29609"}}, true},
	{"+i8388621.44468,m839956783,r,s10376,\tRFCEPLF",
		proto.Entry{Name: "RFCEPLF", Type: proto.EntryFile, Size: 10376, ModTime: time.Unix(839956783, 0).UTC(), Extra: map[string]string{"eplf_id": "8388621.44468"}}, true},
	// "up" gives the Unix mode in octal; unknown facts are ignored.
	{"+r,s0,up644,xunknown,\tempty file",
		proto.Entry{Name: "empty file", Type: proto.EntryFile, Size: 0, Extra: map[string]string{"perm": "-rw-r--r--"}}, true},
	{"+/,up2755,\tsgid dir",
		proto.Entry{Name: "sgid dir", Type: proto.EntryDir, Size: -1, Extra: map[string]string{"perm": "drwxr-sr-x"}}, true},
	// The name is everything after the TAB, spaces and commas included.
	{"+r,\t a, b ",
		proto.Entry{Name: " a, b ", Type: proto.EntryFile, Size: -1}, true},
	// Neither "/" nor "r": nothing to do with it.
	{"+m0,\tdevice", proto.Entry{Name: "device", Type: proto.EntryOther, Size: -1, ModTime: time.Unix(0, 0).UTC()}, true},
	// Malformed: no TAB, no name, bad size, bad time, bad mode.
	{"+r,s10 name", proto.Entry{}, false},
	{"+r,s10,\t", proto.Entry{}, false},
	{"+r,s-10,\tneg", proto.Entry{}, false},
	{"+r,sx,\tbad", proto.Entry{}, false},
	{"+r,m12a,\tbad", proto.Entry{}, false},
	{"+r,up999,\tbad", proto.Entry{}, false},
	{"+", proto.Entry{}, false},
}

func TestParseEPLFLine(t *testing.T) {
	runLineTests(t, "parseEPLFLine", parseEPLFLine, eplfTests)
}

// VMS: DCL DIRECTORY output of MultiNet, UCX and TCPware servers, as in the
// sample lines of cr.yp.to/ftpparse.html ("CORE.DIR;1 1 8-SEP-1996 16:09
// [SYSTEM] (RWE,RWE,RE,RE)") and Process Software's MultiNet user's guide.
var vmsTests = []lineTest{
	// MultiNet, with seconds, used/allocated blocks, owner and protection.
	{"README.TXT;3        2/4        4-JAN-2001 12:34:56  [SYSTEM]  (RWED,RWED,RE,RE)",
		proto.Entry{Name: "README.TXT;3", Type: proto.EntryFile, Size: -1, ModTime: clock(2001, 1, 4, 12, 34, 56),
			Extra: map[string]string{"vms_version": "3", "blocks": "2", "blocks_allocated": "4", "owner": "SYSTEM", "vms_protection": "RWED,RWED,RE,RE"}}, true},
	// A directory: NAME.DIR;N is NAME.
	{"SUBDIR.DIR;1   1  12-MAR-1999 10:00  [USER,NAME] (RWE,RWE,RE,E)",
		proto.Entry{Name: "SUBDIR", Type: proto.EntryDir, Size: -1, ModTime: clock(1999, 3, 12, 10, 0, 0),
			Extra: map[string]string{"vms_version": "1", "blocks": "1", "owner": "USER,NAME", "vms_protection": "RWE,RWE,RE,E"}}, true},
	// ftpparse's MultiNet samples.
	{"CORE.DIR;1          1  8-SEP-1996 16:09 [SYSTEM] (RWE,RWE,RE,RE)",
		proto.Entry{Name: "CORE", Type: proto.EntryDir, Size: -1, ModTime: clock(1996, 9, 8, 16, 9, 0),
			Extra: map[string]string{"vms_version": "1", "blocks": "1", "owner": "SYSTEM", "vms_protection": "RWE,RWE,RE,RE"}}, true},
	{"00README.TXT;1      2 30-DEC-1996 17:44 [SYSTEM] (RWED,RWED,RE,RE)",
		proto.Entry{Name: "00README.TXT;1", Type: proto.EntryFile, Size: -1, ModTime: clock(1996, 12, 30, 17, 44, 0),
			Extra: map[string]string{"vms_version": "1", "blocks": "2", "owner": "SYSTEM", "vms_protection": "RWED,RWED,RE,RE"}}, true},
	// UCX: an empty protection group, a two-digit day, an owner with a space.
	{"CII-MANUAL.TEX;1  213/216  29-JAN-1996 03:33:12  [ANONYMOU, ANONYMOUS]   (RWED,RWED,,)",
		proto.Entry{Name: "CII-MANUAL.TEX;1", Type: proto.EntryFile, Size: -1, ModTime: clock(1996, 1, 29, 3, 33, 12),
			Extra: map[string]string{"vms_version": "1", "blocks": "213", "blocks_allocated": "216", "owner": "ANONYMOU, ANONYMOUS", "vms_protection": "RWED,RWED,,"}}, true},
	// Without owner and protection; hundredths of a second; lower case.
	{"LOGIN.COM;12   5   04-JAN-2001 09:05:01.25",
		proto.Entry{Name: "LOGIN.COM;12", Type: proto.EntryFile, Size: -1, ModTime: time.Date(2001, 1, 4, 9, 5, 1, 250000000, time.UTC),
			Extra: map[string]string{"vms_version": "12", "blocks": "5"}}, true},
	{"notes.txt;2 7 1-feb-2000",
		proto.Entry{Name: "notes.txt;2", Type: proto.EntryFile, Size: -1, ModTime: clock(2000, 2, 1, 0, 0, 0),
			Extra: map[string]string{"vms_version": "2", "blocks": "7"}}, true},
	// Not entries: an error instead of details, no version, bad date,
	// trailing words, the header and trailer (not files), a name alone.
	{"SECRET.DAT;1  %RMS-E-PRV, insufficient privilege or file protection violation", proto.Entry{}, false},
	{"README.TXT   2  4-JAN-2001 12:34:56", proto.Entry{}, false},
	{"README.TXT;3  2  31-FEB-2001 12:34:56", proto.Entry{}, false},
	{"README.TXT;3  2  4-JAN-01 12:34:56", proto.Entry{}, false},
	{"README.TXT;3  2  4-JAN-2001 12:34:56 [SYSTEM] (RWED,RWED,RE,RE) extra", proto.Entry{}, false},
	{"README.TXT;3  2  4-JAN-2001 12:34:56 [SYSTEM", proto.Entry{}, false},
	{"README.TXT;3  2/x  4-JAN-2001", proto.Entry{}, false},
	{"Directory DISK$USER:[FOO.BAR]", proto.Entry{}, false},
	{"Total of 3 files, 12 blocks.", proto.Entry{}, false},
	{"LONGNAME.TXT;1", proto.Entry{}, false},
}

func TestParseVMSLine(t *testing.T) {
	runLineTests(t, "parseVMSLine", parseVMSLine, vmsTests)
}

// NetWare: the sample lines of cr.yp.to/ftpparse.html ("d [R----F--]
// supervisor 512 Jan 16 18:53 login", "- [R----F--] rhesus 214059 Oct 20
// 15:27 cx.exe"), and the nine-letter rights of later versions.
var netwareTests = []lineTest{
	{"d [R----F--] supervisor            512       Jan 16 18:53    login",
		proto.Entry{Name: "login", Type: proto.EntryDir, Size: 512, ModTime: date(2024, 1, 16, 18, 53), Extra: map[string]string{"netware_rights": "[R----F--]", "owner": "supervisor"}}, true},
	{"- [R----F--] rhesus             214059       Oct 20 15:27    cx.exe",
		proto.Entry{Name: "cx.exe", Type: proto.EntryFile, Size: 214059, ModTime: date(2023, 10, 20, 15, 27), Extra: map[string]string{"netware_rights": "[R----F--]", "owner": "rhesus"}}, true},
	{"d [RWCEAFMS] owner   512 Jan 01 12:00 name",
		proto.Entry{Name: "name", Type: proto.EntryDir, Size: 512, ModTime: date(2024, 1, 1, 12, 0), Extra: map[string]string{"netware_rights": "[RWCEAFMS]", "owner": "owner"}}, true},
	{"- [R----F--] owner 1234 May 14  1996 name with space",
		proto.Entry{Name: "name with space", Type: proto.EntryFile, Size: 1234, ModTime: date(1996, 5, 14, 0, 0), Extra: map[string]string{"netware_rights": "[R----F--]", "owner": "owner"}}, true},
	{"- [-RWCEAFMS] admin 99 Dec 31  1999 y2k.txt",
		proto.Entry{Name: "y2k.txt", Type: proto.EntryFile, Size: 99, ModTime: date(1999, 12, 31, 0, 0), Extra: map[string]string{"netware_rights": "[-RWCEAFMS]", "owner": "admin"}}, true},
	// Refused: other type letters, other rights letters, no name.
	{"l [RWCEAFMS] owner 512 Jan 01 12:00 name", proto.Entry{}, false},
	{"d [RWXEAFMS] owner 512 Jan 01 12:00 name", proto.Entry{}, false},
	{"d [RWCEAFMS] owner 512 Jan 01 12:00", proto.Entry{}, false},
	{"d [RWCEAFMS] owner -1 Jan 01 12:00 x", proto.Entry{}, false},
}

func TestParseNetWareLine(t *testing.T) {
	runLineTests(t, "parseNetWareLine", func(s string) (proto.Entry, bool) { return parseNetWareLine(s, now) }, netwareTests)
}

// OS/2: IBM TCP/IP for OS/2's FTP server, the "OS/2 basic server format"
// among the layouts of Mozilla's ParseFTPList.h.
var os2Tests = []lineTest{
	{"     0           DIR   04-11-95   16:26  ADDRESS",
		proto.Entry{Name: "ADDRESS", Type: proto.EntryDir, Size: -1, ModTime: date(1995, 4, 11, 16, 26)}, true},
	{"   612      A      07-03-95   10:12  FILE.TXT",
		proto.Entry{Name: "FILE.TXT", Type: proto.EntryFile, Size: 612, ModTime: date(1995, 7, 3, 10, 12), Extra: map[string]string{"os2_attrs": "A"}}, true},
	{" 11405                 12-05-96   09:02  NO ATTRS.DOC",
		proto.Entry{Name: "NO ATTRS.DOC", Type: proto.EntryFile, Size: 11405, ModTime: date(1996, 12, 5, 9, 2)}, true},
	{"  1024      RHS    01-01-00   00:00  IBMBIO.COM",
		proto.Entry{Name: "IBMBIO.COM", Type: proto.EntryFile, Size: 1024, ModTime: date(2000, 1, 1, 0, 0), Extra: map[string]string{"os2_attrs": "RHS"}}, true},
	// Refused: a 12-hour clock (that is IIS), seconds (OS/400), no name.
	{"   612      A      07-03-95   10:12AM  FILE.TXT", proto.Entry{}, false},
	{"   612  07-03-95 10:12:00 *STMF x", proto.Entry{}, false},
	{"   612      A      07-03-95   10:12", proto.Entry{}, false},
	{"   612      X      07-03-95   10:12  FILE.TXT", proto.Entry{}, false},
}

func TestParseOS2Line(t *testing.T) {
	runLineTests(t, "parseOS2Line", parseOS2Line, os2Tests)
}

// OS/400 (IBM i), LISTFMT 0: IBM i Knowledge Center, "File and directory
// entries in IBM i format" (rzaiqfdrt): owner, size, date, time, type,
// name; the first row is that page's example.
var os400Tests = []lineTest{
	{"BAILEYSE     5263360 06/11/97 12:27:39 *FILE     BPTFSAVF",
		proto.Entry{Name: "BPTFSAVF", Type: proto.EntryDir, Size: 5263360, ModTime: clock(1997, 6, 11, 12, 27, 39), Extra: map[string]string{"owner": "BAILEYSE", "os400_type": "*FILE"}}, true},
	{"QSYS    77824 02/23/00 15:09:55 *DIR       QDOC/",
		proto.Entry{Name: "QDOC", Type: proto.EntryDir, Size: 77824, ModTime: clock(2000, 2, 23, 15, 9, 55), Extra: map[string]string{"owner": "QSYS", "os400_type": "*DIR"}}, true},
	{"QPGMR   36864 12/01/01 10:12:03 *STMF      file.txt",
		proto.Entry{Name: "file.txt", Type: proto.EntryFile, Size: 36864, ModTime: clock(2001, 12, 1, 10, 12, 3), Extra: map[string]string{"owner": "QPGMR", "os400_type": "*STMF"}}, true},
	// A member: no size, no date.
	{"QPGMR                          *MEM       LIB.FILE/MEM.MBR",
		proto.Entry{Name: "LIB.FILE/MEM.MBR", Type: proto.EntryFile, Size: -1, Extra: map[string]string{"owner": "QPGMR", "os400_type": "*MEM"}}, true},
	// Anonymous sessions: no owner. A name with blanks.
	{"             4096 05/14/96 08:00:00 *STMF      read me.txt",
		proto.Entry{Name: "read me.txt", Type: proto.EntryFile, Size: 4096, ModTime: clock(1996, 5, 14, 8, 0, 0), Extra: map[string]string{"os400_type": "*STMF"}}, true},
	// A date in DD.MM.YY, a job of a European system.
	{"QSECOFR       8192 23.02.00 15.09.55 *LIB       MYLIB",
		proto.Entry{Name: "MYLIB", Type: proto.EntryDir, Size: 8192, ModTime: clock(2000, 2, 23, 15, 9, 55), Extra: map[string]string{"owner": "QSECOFR", "os400_type": "*LIB"}}, true},
	// Other object types are neither files nor directories.
	{"QSYS         40960 01/02/03 04:05:06 *PGM       QCMD",
		proto.Entry{Name: "QCMD", Type: proto.EntryOther, Size: 40960, ModTime: clock(2003, 1, 2, 4, 5, 6), Extra: map[string]string{"owner": "QSYS", "os400_type": "*PGM"}}, true},
	// Refused: two words before the type, an owner that is no profile
	// name, a bad date, no name.
	{"QSYS EXTRA 77824 02/23/00 15:09:55 *DIR QDOC/", proto.Entry{}, false},
	{"+i1,r,  *FILE  x", proto.Entry{}, false},
	{"QSYS    77824 13/45/00 15:09:55 *DIR       QDOC/", proto.Entry{}, false},
	{"QSYS    77824 02/23/00 15:09:55 *DIR", proto.Entry{}, false},
	{"QSYS    77824 02/23/00 15:09:55 *DIR       /", proto.Entry{}, false},
	{"QSYS    77824 02/23/00 15:09:55 *dir       x", proto.Entry{}, false},
}

func TestParseOS400Line(t *testing.T) {
	runLineTests(t, "parseOS400Line", parseOS400Line, os400Tests)
}

// TestLayoutsDisjoint: every line that a layout's table accepts is
// accepted by that layout alone, so that the order of trial never reads a
// line as an entry of the wrong layout.
func TestLayoutsDisjoint(t *testing.T) {
	tables := map[uint8][]lineTest{
		layoutEPLF: eplfTests, layoutVMS: vmsTests, layoutNetWare: netwareTests,
		layoutOS2: os2Tests, layoutOS400: os400Tests,
	}
	for _, tt := range unixTests {
		tables[layoutUnix] = append(tables[layoutUnix], lineTest(tt))
	}
	for _, tt := range dosTests {
		tables[layoutDOS] = append(tables[layoutDOS], lineTest(tt))
	}
	var all []string
	for _, tests := range tables {
		for _, tt := range tests {
			all = append(all, tt.line)
		}
	}
	for _, tt := range mlsdTests {
		all = append(all, tt.line)
	}
	for _, line := range all {
		var fits []uint8
		for l := uint8(0); l <= layoutEPLF; l++ {
			if _, ok := parseLayout(l, line, now); ok {
				fits = append(fits, l)
			}
		}
		if len(fits) > 1 {
			t.Errorf("%q fits layouts %v", line, fits)
		}
	}
	for l, tests := range tables {
		for _, tt := range tests {
			if _, ok := parseLayout(l, tt.line, now); ok != tt.ok {
				t.Errorf("parseLayout(%d, %q) = %v, want %v", l, tt.line, ok, tt.ok)
			}
		}
	}
}

// entryNames lists the names and types of entries, for short messages.
func entryNames(es []proto.Entry) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(string(e.Type) + ":" + e.Name + "|")
	}
	return b.String()
}

// wholeListings are complete LIST replies, one per layout, with their
// headers and trailers, and the entries (type:name|...) they hold.
var wholeListings = []struct {
	name, syst, raw, want string
}{
	{"unix", "UNIX Type: L8",
		"total 12\r\n" +
			"drwxr-xr-x    5 0        0            4096 Mar 15  2019 .\r\n" +
			"drwxr-xr-x    5 0        0            4096 Mar 15  2019 ..\r\n" +
			"drwxr-xr-x+   2 0        0            4096 Mar 15  2019 pub\r\n" +
			"-rw-r--r--.   1 1000 1000            1234 Jan 02 03:04 two  spaces \r\n" +
			"lrwxrwxrwx    1 0        0               7 Mar 15  2019 latest -> v1 -> v2\r\n" +
			"crw-rw-rw-    1 0        0          1,   3 Mar 15  2019 null\r\n" +
			"-rw-r--r--    1 ftp                    10 2020-01-02 03:04 long-iso\r\n" +
			"-rw-r--r--@   1 ftp      ftp           10 2020-01-02 03:04:05.123456789 +0100 full-iso\r\n",
		"dir:pub|file:two  spaces |link:latest|other:null|file:long-iso|file:full-iso|"},
	{"dos", "Windows_NT",
		"01-16-02  11:14AM       <DIR>          epsoft\r\n" +
			"12-05-1996  05:03PM            1234 file name.txt\r\n" +
			"07-04-21  23:59                 10 late\r\n",
		"dir:epsoft|file:file name.txt|file:late|"},
	{"eplf", "",
		"+i8388621.29609,m824255902,/,\tdev\r\n" +
			"+i8388621.44468,m839956783,r,s10376,\tRFCEPLF\r\n",
		"dir:dev|file:RFCEPLF|"},
	{"vms", "VMS V6.1",
		"\r\n" +
			"Directory DISK$USER:[FOO.BAR]\r\n" +
			"\r\n" +
			"README.TXT;3        2/4        4-JAN-2001 12:34:56  [SYSTEM]  (RWED,RWED,RE,RE)\r\n" +
			"SUBDIR.DIR;1   1  12-MAR-1999 10:00  [USER,NAME] (RWE,RWE,RE,E)\r\n" +
			"A_VERY_LONG_FILE_NAME_INDEED.TAR-GZ;1\r\n" +
			"                  1200/1200  4-JAN-2001 12:34:56  [SYSTEM]  (RWED,RWED,RE,RE)\r\n" +
			"\r\n" +
			"Total of 3 files, 1203/1205 blocks.\r\n" +
			"\r\n" +
			"Grand total of 1 directory, 3 files, 1203/1205 blocks.\r\n",
		"file:README.TXT;3|dir:SUBDIR|file:A_VERY_LONG_FILE_NAME_INDEED.TAR-GZ;1|"},
	// A VMS listing from a server whose SYST claims Unix.
	{"vms-as-unix", "UNIX Type: L8",
		"Directory ANON$ROOT:[000000]\r\n\r\n" +
			"CORE.DIR;1          1  8-SEP-1996 16:09 [SYSTEM] (RWE,RWE,RE,RE)\r\n" +
			"00README.TXT;1      2 30-DEC-1996 17:44 [SYSTEM] (RWED,RWED,RE,RE)\r\n\r\n" +
			"Total of 2 files, 3 blocks.\r\n",
		"dir:CORE|file:00README.TXT;1|"},
	{"netware", "NETWARE",
		"d [RWCEAFMS] supervisor            512       Jan 16 18:53    login\r\n" +
			"- [R----F--] rhesus             214059       Oct 20 15:27    cx.exe\r\n",
		"dir:login|file:cx.exe|"},
	{"os2", "OS/2",
		"     0           DIR   04-11-95   16:26  ADDRESS\r\n" +
			"   612      A      07-03-95   10:12  FILE.TXT\r\n",
		"dir:ADDRESS|file:FILE.TXT|"},
	{"os400", "OS/400 is the remote operating system. The TCP/IP version is \"V5R1M0\".",
		"QSYS    77824 02/23/00 15:09:55 *DIR       QDOC/\r\n" +
			"QPGMR   36864 12/01/01 10:12:03 *STMF      file.txt\r\n" +
			"QPGMR                          *MEM       LIB.FILE/MEM.MBR\r\n",
		"dir:QDOC|file:file.txt|file:LIB.FILE/MEM.MBR|"},
	// One listing of every layout at once, with no SYST: each line is
	// read in its own layout.
	{"mixed", "",
		"-rw-r--r--    1 0        0               3 Mar 15  2019 a\r\n" +
			"01-16-02  11:14AM       <DIR>          b\r\n" +
			"+r,s1,\tc\r\n" +
			"D.TXT;1  1  4-JAN-2001\r\n" +
			"- [R----F--] owner 1 May 14  1996 e\r\n" +
			"   612      A      07-03-95   10:12  f\r\n" +
			"QPGMR   36864 12/01/01 10:12:03 *STMF      g\r\n",
		"file:a|dir:b|file:c|file:D.TXT;1|file:e|file:f|file:g|"},
}

func TestParseListingWhole(t *testing.T) {
	garbage := []string{
		"hello, this is not a listing",
		"-rw-r--r-- 1 0 0 3 Mar 15 2019",    // truncated: no name
		"Total of many files",               // not a VMS trailer
		"Directory of C:\\",                 // not a VMS header
		"README.TXT;3  %RMS-E-PRV, no priv", // a VMS error
		"\x00\x01\x02 control \x7f",
	}
	for _, tt := range wholeListings {
		t.Run(tt.name, func(t *testing.T) {
			got, unparsed := parseListing([]byte(tt.raw), formatLIST, tt.syst, now)
			if s := entryNames(got); s != tt.want || len(unparsed) != 0 {
				t.Errorf("parseListing = %s, unparsed %q; want %s and none", s, unparsed, tt.want)
			}
			// Garbage lines around and between the lines (but not between
			// a wrapped VMS name and its details): each comes back
			// unparsed, in order, and the entries are the same.
			lines := strings.SplitAfter(tt.raw, "\n")
			var b strings.Builder
			n := 0
			for _, l := range lines {
				if !strings.HasPrefix(l, " ") || tt.name == "os2" {
					b.WriteString(garbage[n%len(garbage)] + "\r\n")
					n++
				}
				b.WriteString(l)
			}
			got, unparsed = parseListing([]byte(b.String()), formatLIST, tt.syst, now)
			if s := entryNames(got); s != tt.want {
				t.Errorf("with garbage, parseListing = %s; want %s", s, tt.want)
			}
			for i, u := range unparsed {
				if want := garbage[i%len(garbage)]; u != want {
					t.Errorf("with garbage, unparsed[%d] = %q, want %q", i, u, want)
				}
			}
			if len(unparsed) != n {
				t.Errorf("with garbage, %d unparsed lines, want %d: %q", len(unparsed), n, unparsed)
			}
		})
	}
}

// Hostile lines: an overlong name is kept whole, an overlong line that
// fits no layout comes back whole, control bytes in a name are the
// name's (the caller checks names before use), and every truncation of a
// valid line of any layout is either refused or read without losing the
// line (a cut that ends in " ." or " .." names the directory or its
// parent, left out).
func TestParseListingHostile(t *testing.T) {
	long := strings.Repeat("n", 1<<20)
	got, unparsed := parseListing([]byte("-rw-r--r--    1 0 0 5 Mar 15  2019 "+long+"\r\n"+long+"\r\n"), formatLIST, "", now)
	if len(got) != 1 || got[0].Name != long || len(unparsed) != 1 || unparsed[0] != long {
		t.Errorf("overlong lines: %d entries, %d unparsed; want the long name and the long line", len(got), len(unparsed))
	}
	ctl := "a\x00b\x1b[31m\rc\x7f"
	for _, line := range []string{
		"-rw-r--r--    1 0 0 5 Mar 15  2019 " + ctl,
		"+r,s5,\t" + ctl,
		"12-05-96  05:03PM   5 " + ctl,
		"QPGMR   5 12/01/01 10:12:03 *STMF      " + ctl,
	} {
		got, unparsed := parseListing([]byte(line+"\r\n"), formatLIST, "", now)
		if len(got) != 1 || got[0].Name != ctl || len(unparsed) != 0 {
			t.Errorf("parseListing(%q) = %s, unparsed %q; want the name %q", line, entryNames(got), unparsed, ctl)
		}
	}
	// A NUL or an ESC inside the fields is not a layout's.
	for _, line := range []string{
		"-rw-r--r--\x00   1 0 0 5 Mar 15  2019 x",
		"README.TXT;3 2\x1b 4-JAN-2001",
		"+r,s5\x00,\tx",
	} {
		if got, unparsed := parseListing([]byte(line), formatLIST, "", now); len(got) != 0 || len(unparsed) != 1 {
			t.Errorf("parseListing(%q) = %s, unparsed %q; want it unparsed", line, entryNames(got), unparsed)
		}
	}
	var all []lineTest
	for _, tests := range [][]lineTest{eplfTests, vmsTests, netwareTests, os2Tests, os400Tests} {
		all = append(all, tests...)
	}
	for _, tt := range unixTests {
		all = append(all, lineTest(tt))
	}
	for _, tt := range dosTests {
		all = append(all, lineTest(tt))
	}
	for _, tt := range all {
		if !tt.ok {
			continue
		}
		for n := 1; n < len(tt.line); n++ {
			cut := tt.line[:n]
			got, unparsed := parseListing([]byte(cut), formatLIST, "", now)
			switch {
			case len(got)+len(unparsed) > 1:
				t.Errorf("parseListing(%q) = %s and %q: one line, two results", cut, entryNames(got), unparsed)
			case len(got) == 1 && !strings.Contains(cut, got[0].Name):
				t.Errorf("parseListing(%q) = %s: a name not in the line", cut, entryNames(got))
			case len(got) == 0 && len(unparsed) == 0 && !isBlank(cut) && !accounted(cut, 0, nil, nil, formatLIST):
				t.Errorf("parseListing(%q) lost the line", cut)
			}
		}
	}
}

// The SYST reply decides which layout is tried first, not which layouts
// are tried: each listing is read whatever SYST said.
func TestSystLayout(t *testing.T) {
	for syst, want := range map[string]int{
		"UNIX Type: L8": -1,
		"":              -1,
		"VMS V6.1":      layoutVMS,
		"OpenVMS V7.3":  layoutVMS,
		"Windows_NT":    layoutDOS,
		"NETWARE":       layoutNetWare,
		"OS/2":          layoutOS2,
		"OS/400 is the remote operating system. The TCP/IP version is \"V4R5M0\".": layoutOS400,
	} {
		l, ok := systLayout(syst)
		if !ok && want != -1 || ok && int(l) != want {
			t.Errorf("systLayout(%q) = %d, %v; want %d", syst, l, ok, want)
		}
		p := newLineParser(formatLIST, syst, now)
		if want >= 0 && int(p.order[0]) != want {
			t.Errorf("newLineParser(%q) tries %d first, want %d", syst, p.order[0], want)
		}
		for _, tt := range wholeListings {
			got, unparsed := parseListing([]byte(tt.raw), formatLIST, syst, now)
			if s := entryNames(got); s != tt.want || len(unparsed) != 0 {
				t.Errorf("SYST %q, listing %s: parseListing = %s, unparsed %q; want %s", syst, tt.name, s, unparsed, tt.want)
			}
		}
	}
}

// A server that answers MLSD with LIST lines (or mixes them in): each
// line is read in the layout it fits, the cdir line is left out, and a
// line of neither comes back unparsed.
func TestParseListingMLSDFallback(t *testing.T) {
	raw := "type=cdir;modify=20220813133357; /pub\r\n" +
		"type=file;size=5; a\r\n" +
		"-rw-r--r--    1 0        0               3 Mar 15  2019 b\r\n" +
		"Type=PDir; ..\r\n" +
		"neither\r\n"
	got, unparsed := parseListing([]byte(raw), formatMLSD, "", now)
	if s := entryNames(got); s != "file:a|file:b|" || len(unparsed) != 1 || unparsed[0] != "neither" {
		t.Errorf("parseListing(MLSD) = %s, unparsed %q; want a and b, and [neither]", s, unparsed)
	}
}

// FuzzLayoutsDisjoint: no line is an entry of two layouts, so that the
// order in which they are tried never changes what a line means.
func FuzzLayoutsDisjoint(f *testing.F) {
	for _, tests := range [][]lineTest{eplfTests, vmsTests, netwareTests, os2Tests, os400Tests} {
		for _, tt := range tests {
			f.Add(tt.line)
		}
	}
	for _, tt := range unixTests {
		f.Add(tt.line)
	}
	for _, tt := range dosTests {
		f.Add(tt.line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var fits []uint8
		for l := uint8(0); l <= layoutEPLF; l++ {
			if _, ok := parseLayout(l, line, now); ok {
				fits = append(fits, l)
			}
		}
		if len(fits) > 1 {
			t.Errorf("%q fits layouts %v", line, fits)
		}
	})
}

// parseEach, which keeps no row per line, reads a listing only when the
// whole-listing reading (parseAll: VMS names on two lines, month names
// of another language, a year's padding) would read it the same: every
// listing it takes gives what parseAll gives, lean or not. The unix and
// mixed listings of wholeListings are taken; the German one is not.
func TestParseEachAsAll(t *testing.T) {
	now := clock(2020, 1, 10, 0, 0, 0)
	taken := map[string]bool{}
	for _, tt := range wholeListings {
		taken[tt.name] = checkParseEach(t, tt.raw, tt.syst, now)
	}
	if !taken["unix"] || !taken["eplf"] {
		t.Errorf("parseEach took %v; want the unix and eplf listings", taken)
	}
	german := "-rw-r--r-- 1 u g 9  5. Okt 2019 o\r\n-rw-r--r-- 1 u g 9  6. Okt 2019 p\r\n"
	if checkParseEach(t, german, "", now) {
		t.Errorf("parseEach took the German listing, which months.go reads")
	}
}

// checkParseEach compares parseEach with parseAll on raw and reports
// whether parseEach took it.
func checkParseEach(t *testing.T, raw, syst string, now time.Time) bool {
	t.Helper()
	for _, lean := range []bool{false, true} {
		p := newLineParser(formatLIST, syst, now)
		p.lean = lean
		q := p
		got, self, ok := q.parseEach(text{raw})
		if !ok {
			return false
		}
		want, unparsed, wantSelf := p.parseAll(text{raw}, nil)
		if len(got)+len(want) > 0 && !reflect.DeepEqual(got, want) || unparsed != nil || self != wantSelf {
			t.Errorf("lean %v, %q:\nparseEach = %s, self %v\nparseAll  = %s, self %v, unparsed %q", lean, raw, entryNames(got), self, entryNames(want), wantSelf, unparsed)
		}
	}
	return true
}

func FuzzParseEach(f *testing.F) {
	for _, tt := range wholeListings {
		f.Add(tt.raw, tt.syst)
	}
	f.Add("-rw-r--r-- 1 u g 9 2019-01-05  a\r\n-rw-r--r-- 1 u g 9 2019-01-05 10:00 b\r\n", "")
	now := clock(2020, 1, 10, 0, 0, 0)
	f.Fuzz(func(t *testing.T, raw, syst string) {
		checkParseEach(t, raw, syst, now)
	})
}
