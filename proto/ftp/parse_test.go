package ftp

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
)

var now = time.Date(2024, time.March, 10, 12, 0, 0, 0, time.UTC)

func date(y int, m time.Month, d, hh, mm int) time.Time {
	return time.Date(y, m, d, hh, mm, 0, 0, time.UTC)
}

var mlsdTests = []struct {
	line string
	want proto.Entry
	ok   bool
}{
	// RFC 3659 7.2: facts, SP, pathname; 2.3: time-val in UTC.
	{"type=file;size=1024;modify=20220813133357; notes.txt",
		proto.Entry{Name: "notes.txt", Type: proto.EntryFile, Size: 1024, ModTime: time.Date(2022, 8, 13, 13, 33, 57, 0, time.UTC)}, true},
	// 7.5.1: fact names are case-insensitive.
	{"Type=dir;Modify=20220813133357;Perm=el; pub",
		proto.Entry{Name: "pub", Type: proto.EntryDir, Size: -1, ModTime: time.Date(2022, 8, 13, 13, 33, 57, 0, time.UTC), Extra: map[string]string{"perm": "el"}}, true},
	// 2.3: a fraction of a second.
	{"type=file;size=0;modify=20220813133357.25; a",
		proto.Entry{Name: "a", Type: proto.EntryFile, Size: 0, ModTime: time.Date(2022, 8, 13, 13, 33, 57, 250000000, time.UTC)}, true},
	// A pathname with spaces and ";" is kept whole.
	{"type=file;size=5; two words; and more",
		proto.Entry{Name: "two words; and more", Type: proto.EntryFile, Size: 5}, true},
	// 7.5.1: cdir and pdir are the directory and its parent, not members.
	{"type=cdir;modify=20220813133357; /pub", proto.Entry{}, false},
	{"type=pdir;modify=20220813133357; /", proto.Entry{}, false},
	// OS-specific types (7.5.1): symbolic links as several servers send them.
	{"type=OS.unix=slink:/etc/target;size=0; link",
		proto.Entry{Name: "link", Type: proto.EntryLink, Size: 0, Target: "/etc/target"}, true},
	{"type=OS.unix=symlink; link2", proto.Entry{Name: "link2", Type: proto.EntryLink, Size: -1}, true},
	{"type=OS.unix=chr-1/3; null", proto.Entry{Name: "null", Type: proto.EntryOther, Size: -1, Extra: map[string]string{"type": "OS.unix=chr-1/3"}}, true},
	// 7.2: no facts at all.
	{" bare", proto.Entry{Name: "bare", Type: proto.EntryOther, Size: -1}, true},
	// Malformed: no space, bad size, bad time, fact without "=".
	{"type=file;size=1;nospace", proto.Entry{}, false},
	{"type=file;size=-1; neg", proto.Entry{}, false},
	{"type=file;size=x; bad", proto.Entry{}, false},
	{"type=file;modify=2022; short", proto.Entry{}, false},
	{"type=file;junk; x", proto.Entry{}, false},
	{"type=file; ", proto.Entry{}, false},
}

func TestParseMLSDLine(t *testing.T) {
	for _, tt := range mlsdTests {
		got, ok := parseMLSDLine(tt.line)
		if ok != tt.ok || ok && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseMLSDLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

var unixTests = []struct {
	line string
	want proto.Entry
	ok   bool
}{
	// vsftpd: numeric owner and group, a date with a year.
	{"drwxr-xr-x    2 0        0            4096 Mar 15  2019 pub",
		proto.Entry{Name: "pub", Type: proto.EntryDir, Size: 4096, ModTime: date(2019, 3, 15, 0, 0), Extra: map[string]string{"perm": "drwxr-xr-x", "owner": "0", "group": "0"}}, true},
	// A recent file: time instead of year, in the past twelve months.
	{"-rw-r--r--    1 ftp      ftp          1234 Jan 02 03:04 name with  spaces",
		proto.Entry{Name: "name with  spaces", Type: proto.EntryFile, Size: 1234, ModTime: date(2024, 1, 2, 3, 4), Extra: map[string]string{"perm": "-rw-r--r--", "owner": "ftp", "group": "ftp"}}, true},
	// A time that would be in the future this year belongs to last year.
	{"-rw-r--r--    1 ftp      ftp          1 Dec 24 18:00 xmas",
		proto.Entry{Name: "xmas", Type: proto.EntryFile, Size: 1, ModTime: date(2023, 12, 24, 18, 0), Extra: map[string]string{"perm": "-rw-r--r--", "owner": "ftp", "group": "ftp"}}, true},
	// Symbolic link: "name -> target".
	{"lrwxrwxrwx    1 0        0               7 Mar 15  2019 latest -> v1.2.3",
		proto.Entry{Name: "latest", Type: proto.EntryLink, Size: 7, Target: "v1.2.3", ModTime: date(2019, 3, 15, 0, 0), Extra: map[string]string{"perm": "lrwxrwxrwx", "owner": "0", "group": "0"}}, true},
	// No group column.
	{"-rw-r--r-- 1 owner 99 Feb 29 2020 leap",
		proto.Entry{Name: "leap", Type: proto.EntryFile, Size: 99, ModTime: date(2020, 2, 29, 0, 0), Extra: map[string]string{"perm": "-rw-r--r--", "owner": "owner"}}, true},
	// A device: "major, minor" where the size would be.
	{"crw-rw-rw-    1 0        0          1,   3 Mar 15  2019 null",
		proto.Entry{Name: "null", Type: proto.EntryOther, Size: -1, ModTime: date(2019, 3, 15, 0, 0), Extra: map[string]string{"perm": "crw-rw-rw-", "owner": "0", "group": "0"}}, true},
	// An ACL mark after the permissions.
	{"-rw-r--r--+   1 0        0               5 Mar 15  2019 acl",
		proto.Entry{Name: "acl", Type: proto.EntryFile, Size: 5, ModTime: date(2019, 3, 15, 0, 0), Extra: map[string]string{"perm": "-rw-r--r--+", "owner": "0", "group": "0"}}, true},
	// Hostile names survive as they are.
	{"-rw-r--r--    1 0        0               5 Mar 15  2019 ../../etc/passwd",
		proto.Entry{Name: "../../etc/passwd", Type: proto.EntryFile, Size: 5, ModTime: date(2019, 3, 15, 0, 0), Extra: map[string]string{"perm": "-rw-r--r--", "owner": "0", "group": "0"}}, true},
	// Not entries: the "total" line, garbage, a missing name, bad dates.
	{"total 24", proto.Entry{}, false},
	{"hello world this is not a listing line at all", proto.Entry{}, false},
	{"-rw-r--r--    1 0        0               5 Mar 15  2019", proto.Entry{}, false},
	{"-rw-r--r--    1 0        0               5 Mar 15  2019 ", proto.Entry{}, false},
	{"-rw-r--r--    1 0        0               5 Mar 32  2019 x", proto.Entry{}, false},
	{"-rw-r--r--    1 0        0               5 Mar 15  25:00 x", proto.Entry{}, false},
	{"-rw-r--r--    1 0        0              -5 Mar 15  2019 x", proto.Entry{}, false},
	{"-rwxqwxrwx    1 0        0               5 Mar 15  2019 x", proto.Entry{}, false},
}

func TestParseUnixLine(t *testing.T) {
	for _, tt := range unixTests {
		got, ok := parseUnixLine(tt.line, now)
		if ok != tt.ok || ok && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseUnixLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

var dosTests = []struct {
	line string
	want proto.Entry
	ok   bool
}{
	// IIS: two-digit year, 12-hour clock.
	{"01-16-02  11:14AM       <DIR>          epsoft", proto.Entry{Name: "epsoft", Type: proto.EntryDir, Size: -1, ModTime: date(2002, 1, 16, 11, 14)}, true},
	{"12-05-96  05:03PM                 1234 file name.txt", proto.Entry{Name: "file name.txt", Type: proto.EntryFile, Size: 1234, ModTime: date(1996, 12, 5, 17, 3)}, true},
	// Four-digit year; 12 AM is midnight.
	{"07-04-2021  12:00AM                0 empty", proto.Entry{Name: "empty", Type: proto.EntryFile, Size: 0, ModTime: date(2021, 7, 4, 0, 0)}, true},
	// 24-hour clock.
	{"07-04-2021  23:59                 10 late", proto.Entry{Name: "late", Type: proto.EntryFile, Size: 10, ModTime: date(2021, 7, 4, 23, 59)}, true},
	{"13-04-2021  11:00AM    10 badmonth", proto.Entry{}, false},
	{"07-04-2021  13:00PM    10 badhour", proto.Entry{}, false},
	{"07-04-2021  11:00AM    <DIR>", proto.Entry{}, false},
}

func TestParseDOSLine(t *testing.T) {
	for _, tt := range dosTests {
		got, ok := parseDOSLine(tt.line)
		if ok != tt.ok || ok && !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseDOSLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseListing(t *testing.T) {
	raw := "total 8\r\n" +
		"drwxr-xr-x    2 0        0            4096 Mar 15  2019 .\r\n" +
		"drwxr-xr-x    2 0        0            4096 Mar 15  2019 ..\r\n" +
		"-rw-r--r--    1 0        0               3 Mar 15  2019 a\r\n" +
		"\r\n" +
		"01-16-02  11:14AM       <DIR>          dosdir\n" +
		"garbage\r\n"
	got, unparsed := parseListing([]byte(raw), formatLIST, "", now)
	if len(unparsed) != 1 || unparsed[0] != "garbage" {
		t.Errorf("parseListing unparsed = %q, want [garbage] (total line and blank line are not entries)", unparsed)
	}
	var names []string
	for _, e := range got {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "a,dosdir" {
		t.Errorf("parseListing names = %q, want a, dosdir (no . and ..)", names)
	}
	nl, _ := parseListing([]byte("one\r\ntwo\nthree"), formatNLST, "", now)
	if len(nl) != 3 || nl[2].Name != "three" || nl[0].Size != -1 {
		t.Errorf("parseListing(NLST) = %+v", nl)
	}
}

func TestGuessType(t *testing.T) {
	for name, want := range map[string]string{
		"README": "A", "readme": "A", "notes.txt": "A", "NOTES.TXT": "A", "key.asc": "A",
		"ls-lR": "A", "dir/sub/INDEX": "A", "READ.ME": "A",
		"README.gz": "I", "file.tar": "I", "motd": "I", "": "I", "txt": "I", "a.doc": "I",
	} {
		if got := guessType(name); got != want {
			t.Errorf("guessType(%q) = %s, want %s", name, got, want)
		}
	}
}

// writeMLSD writes e back as an MLSD line (RFC 3659 section 7.2), facts
// in a fixed order.
func writeMLSD(e proto.Entry) string {
	var b strings.Builder
	switch e.Type {
	case proto.EntryFile:
		b.WriteString("type=file;")
	case proto.EntryDir:
		b.WriteString("type=dir;")
	case proto.EntryLink:
		b.WriteString("type=OS.unix=slink:" + e.Target + ";")
	default:
		if t, ok := e.Extra["type"]; ok {
			b.WriteString("type=" + t + ";")
		}
	}
	if e.Size >= 0 {
		b.WriteString("size=" + strconv.FormatInt(e.Size, 10) + ";")
	}
	if !e.ModTime.IsZero() {
		b.WriteString("modify=" + e.ModTime.Format("20060102150405.000000000") + ";")
	}
	keys := make([]string, 0, len(e.Extra))
	for k := range e.Extra {
		if k != "type" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteString(k + "=" + e.Extra[k] + ";")
	}
	return b.String() + " " + e.Name
}

// writeUnix writes e back as an "ls -l" line: the time of day when the
// date is within the year before now (as ls does), else the year.
func writeUnix(e proto.Entry) string {
	size := strconv.FormatInt(e.Size, 10)
	if e.Type == proto.EntryOther {
		size = "1, 3"
	}
	when := e.ModTime.Format("Jan _2  2006")
	if e.ModTime.Hour() != 0 || e.ModTime.Minute() != 0 {
		when = e.ModTime.Format("Jan _2 15:04")
	}
	group := ""
	if g, ok := e.Extra["group"]; ok {
		group = " " + g
	}
	name := e.Name
	if e.Type == proto.EntryLink && e.Target != "" {
		name += " -> " + e.Target
	}
	return e.Extra["perm"] + " 1 " + e.Extra["owner"] + group + " " + size + " " + when + " " + name
}

// FuzzParseListing: no input makes a parser panic; every entry has a name
// without LF and a size of at least -1; and an entry written back in its
// format parses to the same entry (parse, format, parse).
func FuzzParseListing(f *testing.F) {
	for _, tt := range mlsdTests {
		f.Add(tt.line, true)
	}
	for _, tt := range unixTests {
		f.Add(tt.line, false)
	}
	for _, tt := range dosTests {
		f.Add(tt.line, false)
	}
	f.Add("type=file;size=1; a\r\nb\rc\n\n;;;", true)
	f.Add("-rw-r--r-- 1 a b 1 Jan  1 00:00 x\r\nlrwxrwxrwx 1 a 1 Jan  1  1999 l -> t -> u", false)
	f.Fuzz(func(t *testing.T, s string, mlsd bool) {
		format := formatLIST
		if mlsd {
			format = formatMLSD
		}
		for _, e := range first(parseListing([]byte(s), format, "", now)) {
			if e.Name == "" || strings.Contains(e.Name, "\n") {
				t.Errorf("entry with name %q from %q", e.Name, s)
			}
			if e.Size < -1 {
				t.Errorf("entry %q with size %d", e.Name, e.Size)
			}
		}
		for _, line := range splitLines([]byte(s)) {
			if mlsd {
				e, ok := parseMLSDLine(line)
				if !ok || strings.ContainsAny(e.Target, ";") {
					continue
				}
				again := writeMLSD(e)
				e2, ok := parseMLSDLine(again)
				if !ok || !reflect.DeepEqual(e, e2) {
					t.Errorf("parseMLSDLine(%q) = %+v; written back as %q it parses to %+v, %v", line, e, again, e2, ok)
				}
				continue
			}
			e, ok := parseUnixLine(line, now)
			if !ok || strings.Contains(e.Name, " -> ") || strings.HasPrefix(e.Name, " ") {
				// Link names holding " -> " are ambiguous in ls output.
				continue
			}
			again := writeUnix(e)
			e2, ok := parseUnixLine(again, now)
			if !ok || !reflect.DeepEqual(e, e2) {
				t.Errorf("parseUnixLine(%q) = %+v; written back as %q it parses to %+v, %v", line, e, again, e2, ok)
			}
		}
	})
}

// first returns the entries of a parseListing result.
func first(entries []proto.Entry, _ []string) []proto.Entry { return entries }
