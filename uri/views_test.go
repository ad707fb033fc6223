package uri

import (
	"errors"
	"reflect"
	"testing"
)

func strp(s string) *string { return &s }
func i64p(n int64) *int64   { return &n }

// viewError checks that err is an *Error at offset in component comp.
func viewError(t *testing.T, call, in string, err error, offset int, comp string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%s of %q = %v, want *Error", call, in, err)
	}
	if e.Offset != offset || e.Component != comp {
		t.Errorf("%s of %q: error at %d in %q, want %d in %q (%v)", call, in, e.Offset, e.Component, offset, comp, err)
	}
}

var ftpTests = []struct {
	in   string
	want *FTPPath
}{
	// RFC 1738 section 3.2.2 (seed 000): "CWD /etc" then "RETR motd".
	{"ftp://myname@host.dom/%2Fetc/motd", &FTPPath{CWD: []string{"/etc"}, Name: "motd"}},
	// RFC 1738 section 3.2.2: "CWD etc" and then "RETR motd".
	{"ftp://myname@host.dom/etc/motd", &FTPPath{CWD: []string{"etc"}, Name: "motd"}},
	// RFC 1738 section 3.2.2: "CWD " with a null argument, then "CWD etc".
	{"ftp://myname@host.dom//etc/motd", &FTPPath{CWD: []string{"", "etc"}, Name: "motd"}},
	// Seed 001 section 1.1.
	{"ftp://ds.internic.net/rfc/rfc1808.txt", &FTPPath{CWD: []string{"rfc"}, Name: "rfc1808.txt"}},
	// Seed 001 Appendix B: a typecode d (NLST).
	{"ftp://info.cern.ch/pub/www/doc;type=d", &FTPPath{CWD: []string{"pub", "www"}, Name: "doc", Type: "d"}},
	// Seed 002 section 5: ftptype = "A" | "I" | "D" | "a" | "i" | "d".
	{"ftp://h/f;type=A", &FTPPath{Name: "f", Type: "a"}},
	{"ftp://h/f;type=i", &FTPPath{Name: "f", Type: "i"}},
	{"ftp://h/f;TYPE=I", &FTPPath{Name: "f", Type: "i"}},
	// RFC 1738 section 3.2.2: the whole url-path may be omitted; <cwd> and <name> may be empty.
	{"ftp://h", &FTPPath{}},
	{"ftp://h/", &FTPPath{}},
	{"ftp://h/pub/", &FTPPath{CWD: []string{"pub"}}},
	{"ftp://h/;type=d", &FTPPath{Type: "d"}},
	{"ftp://h/pub/;type=d", &FTPPath{CWD: []string{"pub"}, Type: "d"}},
	// RFC 1738 section 3.2.2: "/" and ";" are reserved in a segment, so encoded they are data.
	{"ftp://h/a%3Bb/c%2Fd;type=a", &FTPPath{CWD: []string{"a;b"}, Name: "c/d", Type: "a"}},
	// Seed 002 section 5: fsegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ].
	{"ftp://h/a?b/c:d@e&f=g", &FTPPath{CWD: []string{"a?b"}, Name: "c:d@e&f=g"}},
	// RFC 1738 section 2.2: upper- and lower-case hex.
	{"ftp://h/%7euser/%7Efile", &FTPPath{CWD: []string{"~user"}, Name: "~file"}},
	// Seed 001 section 2.3.2: decoded once ("%2541" is "%41").
	{"ftp://h/%2541", &FTPPath{Name: "%41"}},
	// Decoded CR/LF are returned for package safety and the driver to refuse.
	{"ftp://h/a%0D%0ADELE%20x", &FTPPath{Name: "a\r\nDELE x"}},
}

func TestFTP(t *testing.T) {
	for _, tt := range ftpTests {
		got, err := MustParse(tt.in).FTP()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).FTP() = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
}

func TestFTPError(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		comp   string
	}{
		// Seed 002 section 5: ftptype is a, i or d.
		{"ftp://h/f;type=x", 15, "ftp typecode"},
		{"ftp://h/f;type=", 15, "ftp typecode"},
		// RFC 1738 section 3.2.2: only ";type=" follows the name.
		{"ftp://h/f;mode=x", 9, "ftp typecode"},
		{"ftp://h/f;", 9, "ftp typecode"},
		// RFC 1738 section 3.2.2: ";" is reserved in a cwd segment.
		{"ftp://h/a;b/c", 9, "ftp path"},
		// Offsets count the input as written (empty port, upper-case scheme).
		{"FTP://u@h:/d/a;b/c", 14, "ftp path"},
		{"ftp://h:/f;type=z", 16, "ftp typecode"},
		// RFC 1738 section 3.1: ftp URLs have a server part.
		{"ftp:foo", 4, "server"},
		{"http://h/", 0, "scheme"},
	}
	for _, tt := range tests {
		_, err := MustParse(tt.in).FTP()
		viewError(t, "FTP()", tt.in, err, tt.offset, tt.comp)
	}
}

// RFC 1738 section 3.3.
func TestHTTP(t *testing.T) {
	tests := []struct {
		in   string
		want *HTTPPath
	}{
		{"http://www.ics.uci.edu/pub/ietf/uri/", &HTTPPath{Path: "/pub/ietf/uri/"}},
		// "If neither <path> nor <searchpart> is present, the "/" may also be omitted."
		{"http://h", &HTTPPath{Path: "/"}},
		{"http://h?q", &HTTPPath{Path: "/", Search: strp("q")}},
		{"http://h/p;x?a=b&c=%20", &HTTPPath{Path: "/p;x", Search: strp("a=b&c=%20")}},
		{"http://h/p?", &HTTPPath{Path: "/p", Search: strp("")}},
		// RFC 2818: https uses the same view.
		{"https://h:8443/%7Ex", &HTTPPath{Path: "/%7Ex"}},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).HTTP()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).HTTP() = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
	for in, off := range map[string]int{"http:g": 5, "https:": 6, "gopher://h/": 0} {
		_, err := MustParse(in).HTTP()
		comp := "server"
		if off == 0 {
			comp = "scheme"
		}
		viewError(t, "HTTP()", in, err, off, comp)
	}
}

var gopherTests = []struct {
	in   string
	want *GopherPath
}{
	// RFC 1738 section 3.4.1: an empty gopher-path is type 1, empty selector; the "/" is optional.
	{"gopher://host/", &GopherPath{Type: "1"}},
	{"gopher://host", &GopherPath{Type: "1"}},
	// Seed 001 section 1.1; RFC 1738 section 3.4.1: a selector starting with a copy of the type.
	{"gopher://spinaltap.micro.umn.edu/00/Weather/California/Los%20Angeles", &GopherPath{Type: "0", Selector: "0/Weather/California/Los Angeles"}},
	// RFC 1738 sections 3.4.2 and 3.4.3: search and gopher+_string (the example).
	{"gopher://h/0a%09b%09+", &GopherPath{Type: "0", Selector: "a", Search: strp("b"), Plus: strp("+")}},
	// RFC 1738 section 3.4.1: "Within the <gopher-path>, no characters are reserved."
	{"gopher://h/0a?b", &GopherPath{Type: "0", Selector: "a?b"}},
	{"gopher://h/1/x;y=z?", &GopherPath{Type: "1", Selector: "/x;y=z?"}},
	// RFC 1738 section 3.4.2: a search.
	{"gopher://h/7/lookup%09gopher%20protocol", &GopherPath{Type: "7", Selector: "/lookup", Search: strp("gopher protocol")}},
	// RFC 1738 section 3.4.3: "the %09<search> string must be supplied, although [it] may be the empty string".
	{"gopher://h/1/menu%09%09$", &GopherPath{Type: "1", Selector: "/menu", Search: strp(""), Plus: strp("$")}},
	{"gopher://h/7x%09", &GopherPath{Type: "7", Selector: "x", Search: strp("")}},
	// RFC 1738 section 3.4.4: "?" is an item with a +ASK form.
	{"gopher://h/0a%09%09?", &GopherPath{Type: "0", Selector: "a", Search: strp(""), Plus: strp("?")}},
	// RFC 1738 section 3.4.6: "!" and "$".
	{"gopher://h/0a%09%09!", &GopherPath{Type: "0", Selector: "a", Search: strp(""), Plus: strp("!")}},
	// RFC 1738 section 3.4.7: "!+ABSTRACT%20+SMELL".
	{"gopher://h/0a%09%09!+ABSTRACT%20+SMELL", &GopherPath{Type: "0", Selector: "a", Search: strp(""), Plus: strp("!+ABSTRACT +SMELL")}},
	// RFC 1738 section 3.4.8: "+application/postscript%20Es_ES".
	{"gopher://h/9a%09%09+application/postscript%20Es_ES", &GopherPath{Type: "9", Selector: "a", Search: strp(""), Plus: strp("+application/postscript Es_ES")}},
	// RFC 1738 section 3.4.9: a filled +ASK form, tabs and all.
	{"gopher://h/0a%09%09+%091%0D%0A+-1%0D%0Ax%0D%0Ay%0D%0A.%0D%0A", &GopherPath{Type: "0", Selector: "a", Search: strp(""), Plus: strp("+\t1\r\n+-1\r\nx\r\ny\r\n.\r\n")}},
	// Seed 002 section 5: gtype = xchar, so it may be escaped.
	{"gopher://h/%30x", &GopherPath{Type: "0", Selector: "x"}},
	{"gopher://h/%2b", &GopherPath{Type: "+"}},
}

func TestGopher(t *testing.T) {
	for _, tt := range gopherTests {
		got, err := MustParse(tt.in).Gopher()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).Gopher() = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		in     string
		offset int
		comp   string
	}{
		// Seed 002 section 5: a search follows a gtype.
		{"gopher://h/%09x", 11, "gopher type"},
		{"gopher://h:/%09x", 12, "gopher type"},
		{"gopher:x", 7, "server"},
	} {
		_, err := MustParse(tt.in).Gopher()
		viewError(t, "Gopher()", tt.in, err, tt.offset, tt.comp)
	}
}

// RFC 1738 section 3.5.
func TestMailto(t *testing.T) {
	for in, want := range map[string]string{
		"mailto:masinter@parc.xerox.com": "masinter@parc.xerox.com",
		// "the percent sign ("%") is commonly used within RFC 822 addresses and must be encoded".
		"mailto:joe%25home@example.org": "joe%home@example.org",
		// "Within mailto URLs, there are no reserved characters."
		"mailto:a?b=c/d@example.org": "a?b=c/d@example.org",
		"MAILTO:Joe@Example.ORG":     "Joe@Example.ORG",
	} {
		got, err := MustParse(in).Mailto()
		if err != nil || got.Address != want {
			t.Errorf("Parse(%q).Mailto() = %#v, %v, want address %q", in, got, err, want)
		}
	}
	_, err := MustParse("mailto:").Mailto()
	viewError(t, "Mailto()", "mailto:", err, 7, "mailto address")
}

// RFC 1738 section 3.6.
func TestNews(t *testing.T) {
	tests := []struct {
		in   string
		want *NewsPath
	}{
		{"news:*", &NewsPath{All: true}},
		{"news:comp.infosystems.www.misc", &NewsPath{Group: "comp.infosystems.www.misc"}},
		// <message-id> is "<unique>@<full_domain_name>" without "<" and ">".
		{"news:12345.678@news.example.org", &NewsPath{Article: "12345.678@news.example.org"}},
		{"news:%3C12345@news.example.org%3E", &NewsPath{Article: "12345@news.example.org"}},
		{"news:a%2Fb%40c@d.example", &NewsPath{Article: "a/b@c@d.example"}},
		// RFC 5538 section 2.2 (a deviation): a server.
		{"news://news.example.org/comp.lang.go", &NewsPath{Group: "comp.lang.go", Server: "news.example.org"}},
		{"news://news.example.org:1119/*", &NewsPath{All: true, Server: "news.example.org:1119"}},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).News()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).News() = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
	for in, off := range map[string]int{"news:": 5, "news://s/": 9, "NEWS://s:/": 10} {
		_, err := MustParse(in).News()
		viewError(t, "News()", in, err, off, "news")
	}
}

// RFC 1738 section 3.7; seed 002 section 5: nntpurl = "nntp://" hostport "/" group [ "/" digits ].
func TestNNTP(t *testing.T) {
	tests := []struct {
		in   string
		want *NNTPPath
	}{
		{"nntp://news.example.org/comp.lang.go/12345", &NNTPPath{Group: "comp.lang.go", Article: i64p(12345)}},
		{"nntp://news.example.org:119/comp.lang.go", &NNTPPath{Group: "comp.lang.go"}},
		{"nntp://h/comp.lang.go/", &NNTPPath{Group: "comp.lang.go"}},
		{"nntp://h/alt.%66oo/0", &NNTPPath{Group: "alt.foo", Article: i64p(0)}},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).NNTP()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).NNTP() = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		in     string
		offset int
		comp   string
	}{
		{"nntp://h/", 9, "nntp group"},
		{"nntp://h", 8, "nntp group"},
		{"nntp://h/g/12a", 11, "nntp article"},
		{"nntp://h/g/+1", 11, "nntp article"},
		{"nntp://h/g/99999999999999999999", 11, "nntp article"},
		{"nntp://h/g/1/2", 12, "nntp path"},
		{"nntp:g", 5, "server"},
	} {
		_, err := MustParse(tt.in).NNTP()
		viewError(t, "NNTP()", tt.in, err, tt.offset, tt.comp)
	}
}

// RFC 1738 section 3.8.
func TestTelnet(t *testing.T) {
	for _, in := range []string{"telnet://melvyl.ucop.edu/", "telnet://user:pass@host:2323", "telnet://@h/"} {
		if _, err := MustParse(in).Telnet(); err != nil {
			t.Errorf("Parse(%q).Telnet() = %v", in, err)
		}
	}
	for in, off := range map[string]int{"telnet://h/x": 10, "telnet://h?x": 10, "telnet://h:/x": 11} {
		_, err := MustParse(in).Telnet()
		viewError(t, "Telnet()", in, err, off, "telnet path")
	}
}

// RFC 1738 section 3.9.
func TestWAIS(t *testing.T) {
	tests := []struct {
		in   string
		want *WAISPath
	}{
		{"wais://wais.example.org:210/directory-of-servers", &WAISPath{Database: "directory-of-servers"}},
		{"wais://h/db?gopher%20protocol", &WAISPath{Database: "db", Search: strp("gopher protocol")}},
		{"wais://h/db?", &WAISPath{Database: "db", Search: strp("")}},
		{"wais://h/db/TEXT/0%2017%2Fdoc", &WAISPath{Database: "db", WType: strp("TEXT"), WPath: strp("0 17/doc")}},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).WAIS()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).WAIS() = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		in     string
		offset int
		comp   string
	}{
		{"wais://h/", 9, "wais database"},
		{"wais://h", 8, "wais database"},
		{"wais://h/db/x", 11, "wais path"},
		{"wais://h/db/t/p/q", 11, "wais path"},
		{"wais://h/db/t/p?s", 15, "wais path"},
		{"wais:db", 5, "server"},
	} {
		_, err := MustParse(tt.in).WAIS()
		viewError(t, "WAIS()", tt.in, err, tt.offset, tt.comp)
	}
}

// RFC 1738 section 3.10.
func TestFile(t *testing.T) {
	tests := []struct {
		in    string
		want  *FilePath
		local bool
	}{
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", &FilePath{Host: "vms.host.edu", Path: "/disk$user/my/notes/note12345.txt"}, false},
		{"file:///etc/motd", &FilePath{Path: "/etc/motd"}, true},
		{"file://localhost/etc/motd", &FilePath{Host: "localhost", Path: "/etc/motd"}, true},
		{"file://LocalHost/etc/motd", &FilePath{Host: "LocalHost", Path: "/etc/motd"}, true},
		// Seed 001 section 1.1: file:/home/fred/bio.txt.
		{"file:/home/fred/bio.txt", &FilePath{Path: "/home/fred/bio.txt"}, true},
		{"file://h", &FilePath{Host: "h", Path: "/"}, false},
		// Seed 002 section 5: fsegment allows "?".
		{"file:///a%20b/c?d", &FilePath{Path: "/a b/c?d"}, true},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).File()
		if err != nil || !reflect.DeepEqual(got, tt.want) || got.IsLocal() != tt.local {
			t.Errorf("Parse(%q).File() = %#v, %v, want %#v (local %v)", tt.in, got, err, tt.want, tt.local)
		}
	}
	_, err := MustParse("file:foo").File()
	viewError(t, "File()", "file:foo", err, 5, "file path")
}

// RFC 1738 section 3.11.
func TestProspero(t *testing.T) {
	tests := []struct {
		in   string
		want *ProsperoPath
	}{
		// "<URL:prospero://host.dom//pros/name> designates a <hsoname> of "/pros/name"".
		{"prospero://host.dom//pros/name", &ProsperoPath{HSOName: "/pros/name"}},
		{"prospero://h/pros/name;OBJECT-VERSION=3", &ProsperoPath{HSOName: "pros/name", Fields: []Field{{"OBJECT-VERSION", "3"}}}},
		{"prospero://h:1525//x;a=b;c=d%3Be", &ProsperoPath{HSOName: "/x", Fields: []Field{{"a", "b"}, {"c", "d;e"}}}},
		// "The semicolon ";" is reserved and may not appear without quoting in the <hsoname>."
		{"prospero://h/x%3By", &ProsperoPath{HSOName: "x;y"}},
		// Seed 002 section 5: psegment allows "?".
		{"prospero://h/a?b;f=v?w", &ProsperoPath{HSOName: "a?b", Fields: []Field{{"f", "v?w"}}}},
		{"prospero://h/", &ProsperoPath{}},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).Prospero()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Parse(%q).Prospero() = %#v, %v, want %#v", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct {
		in     string
		offset int
		comp   string
	}{
		{"prospero://h/x;noeq", 15, "prospero field"},
		{"prospero://h/x;a=b;=v", 19, "prospero field"},
		{"prospero://h/x;", 15, "prospero field"},
		{"prospero:x", 9, "server"},
	} {
		_, err := MustParse(tt.in).Prospero()
		viewError(t, "Prospero()", tt.in, err, tt.offset, tt.comp)
	}
}

// Views of URLs built by hand report bad escapes at their offset in String().
func TestViewEscapeError(t *testing.T) {
	u := &URL{Scheme: "ftp", HasAuthority: true, Host: "h", Path: "/a/%41%zz"}
	_, err := u.FTP()
	viewError(t, "FTP()", u.String(), err, 13, "ftp path")
	var ee EscapeError
	if !errors.As(err, &ee) || ee != "%zz" {
		t.Errorf("FTP() error = %v, want EscapeError %%zz", err)
	}
}
