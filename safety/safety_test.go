package safety_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	. "github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// wire is the built-in drivers' Wire, which fetch.Client gives the
// policy.
var wire = fetch.DefaultRegistry()

// checkTests: each row cites the RFC section, the DESIGN.md rule or the
// issue it comes from. want lists every finding as "level rule component",
// in the order Check returns them; has lists substrings that the messages,
// joined, must contain, and hide substrings that no message may contain.
var checkTests = []struct {
	in     string
	policy Policy
	want   []string
	has    []string
	hide   []string
}{
	// Issue 3 acceptance.
	{in: "gopher://127.0.0.1:25/1", // RFC 1738 section 6: gopher URL sent to SMTP
		want: []string{"error port-other-protocol port"}, has: []string{"port 25 is SMTP", "gopher's default port 70"}},
	{in: "ftp://127.0.0.1:6379/x", // DESIGN port-other-protocol: line services for line-protocol schemes
		want: []string{"error port-other-protocol port"}, has: []string{"port 6379 is Redis"}},
	{in: "ftp://h/a%0D%0ADELE%20x", // RFC 1738 section 6: encoded CR/LF unencoded before transmission
		want: []string{"error encoded-crlf ftp name"}, has: []string{"%0D%0A (CR LF) at offset 9 in the ftp name"}},
	{in: "nntp://127.0.0.1:11211/g/1", // DESIGN port-other-protocol
		want: []string{"error port-other-protocol port"}, has: []string{"port 11211 is memcached"}},
	{in: "gopher://127.0.0.1:70/1a%0d%0aQUIT", // RFC 1738 section 2.2: hex in either case
		want: []string{"error encoded-crlf gopher selector"}, has: []string{"%0d%0a (CR LF) at offset 24 in the gopher selector"}},
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aval%0D%0A.%0D%0A", // RFC 1738 section 3.4 (9): filled +ASK form
		want: nil},
	{in: "gopher://h/1sel%0D%0A", // RFC 1738 section 3.4: selectors hold no CR or LF
		want: []string{"error encoded-crlf gopher selector"}, has: []string{"offset 15"}},
	{in: "http://u:p@h/", // RFC 1738 section 3.3: no user name or password; RFC 2396 section 3.2.2
		want: []string{"warning userinfo-not-allowed userinfo", "warning password-in-url password"},
		hide: []string{"u:p", ":p@", "p@h"}},
	{in: "http://u:Sw0rdf1sh@h/", // DESIGN: the password is never printed back
		want: []string{"warning userinfo-not-allowed userinfo", "warning password-in-url password"},
		hide: []string{"Sw0rdf1sh"}},

	// Gopher+ +ASK form (RFC 1738 section 3.4 (9)): CR/LF only in that exact structure.
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0A.%0D%0A", want: nil},                       // a form without questions
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aa%09b%0D%0Ac%20d%0D%0A.%0D%0A", want: nil}, // TAB inside an answer is data
	{in: "gopher://h/1sel%09%09+%091%0d%0a+-1%0d%0aval%0d%0a.%0d%0a", want: nil},              // lower-case hex
	{in: "gopher://h/1sel%09q%09+%091%0D%0A+-1%0D%0Aval%0D%0A.%0D%0A", want: nil},             // with a search
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aval%0D%0A", // no closing "."
		want: []string{"error encoded-crlf gopher+ string", "error encoded-tab gopher+ string"}, has: []string{"not the exact structure of a filled +ASK form"}},
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0A.%0D%0AQUIT%0D%0A.%0D%0A", // "." ends the block early
		want: []string{"error encoded-crlf gopher+ string", "error encoded-tab gopher+ string"}},
	{in: "gopher://h/1sel%09%09+%091%0A+-1%0A.%0A", // bare LF is not the RFC's CRLF
		want: []string{"error encoded-crlf gopher+ string", "error encoded-tab gopher+ string"}},
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aa%0Db%0D%0A.%0D%0A", // CR inside an answer
		want: []string{"error encoded-crlf gopher+ string", "error encoded-tab gopher+ string"}},
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0A.%0D%0Ax", // text after the block
		want: []string{"error encoded-crlf gopher+ string", "error encoded-tab gopher+ string"}},
	{in: "gopher://h/1sel%09%09+%092%0D%0A+-1%0D%0A.%0D%0A", // data flag other than 1
		want: []string{"error encoded-crlf gopher+ string", "error encoded-tab gopher+ string"}},
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aa%00b%0D%0A.%0D%0A", // NUL is never accepted
		want: []string{"error encoded-nul gopher+ string"}},
	{in: "gopher://h/1sel%0D%0A%09%09+%091%0D%0A+-1%0D%0A.%0D%0A", // the form does not excuse the selector
		want: []string{"error encoded-crlf gopher selector"}},

	// Gopher (RFC 1738 section 3.4; RFC 1436).
	{in: "gopher://h/1a%09b%09c%09d", // a third %09 lands in the gopher+ string
		want: []string{"error encoded-tab gopher+ string"}, has: []string{"%09 (TAB) at offset 21 in the gopher+ string"}},
	{in: "gopher://h/1sel%09%09+%091", // "+" TAB "1" without a data block
		want: []string{"error encoded-tab gopher+ string"}},
	{in: "gopher://h/7sel%09foo%0D%0Abar", want: []string{"error encoded-crlf gopher search"}},
	{in: "gopher://h/0a%00b", want: []string{"error encoded-nul gopher selector"}, has: []string{"%00 (NUL) at offset 13"}},
	{in: "gopher://h/0a?b%0D%0A", // no characters are reserved: "?" is selector data
		want: []string{"error encoded-crlf gopher selector"}, has: []string{"offset 15"}},
	{in: "gopher://h/0a%0Db%0Ac%0D%0Ad", // runs are counted
		want: []string{"error encoded-crlf gopher selector"}, has: []string{"%0D (CR) at offset 13", "2 more occurrences"}},
	{in: "gopher://h/%0Dsel", want: nil},                                    // the item type is not sent
	{in: "gopher://h/0sel%09%09+application/postscript%20Es_ES", want: nil}, // alternate view
	{in: "gopher://h/0sel%09%09!+ABSTRACT%20+SMELL", want: nil},             // attributes
	{in: "gopher://h/", want: nil},
	{in: "gopher://h:70/1", want: nil}, // explicit default port
	{in: "gopher://h:6379/1", want: []string{"error port-other-protocol port"}},
	{in: "gopher://h:26379/1", want: []string{"error port-other-protocol port"}, has: []string{"Sentinel"}},
	{in: "gopher://h:7070/1", want: []string{"info port-non-default port"}},
	{in: "gopher://u@h/1", want: []string{"warning userinfo-not-allowed userinfo"}, has: []string{"section 3.4"}},

	// FTP (RFC 1738 section 3.2).
	{in: "ftp://a%0D%0AUSER%20x@h/", want: []string{"error encoded-crlf ftp user"}, has: []string{"offset 7"}},
	{in: "ftp://u:a%0Ab@h/", // CR/LF in a password: named by position only
		want: []string{"error encoded-crlf ftp password", "warning password-in-url password"}, hide: []string{"a%0Ab"}},
	{in: "ftp://h/a%0D/b", want: []string{"error encoded-crlf ftp cwd 1"}},
	{in: "ftp://h/a/b/c%0Ad/e", want: []string{"error encoded-crlf ftp cwd 3"}, has: []string{"offset 13"}},
	{in: "ftp://h/a%09b", want: []string{"error encoded-tab ftp name"}},
	{in: "ftp://u%09v@h/", want: []string{"error encoded-tab ftp user"}},
	{in: "ftp://h/a%00", want: []string{"error encoded-nul ftp name"}},
	{in: "ftp://h/a%0D%00%09", // one finding per rule
		want: []string{"error encoded-crlf ftp name", "error encoded-nul ftp name", "error encoded-tab ftp name"}},
	{in: "ftp://h/a?b%0D%0A", // "?" is data in an ftp path (seed 002 section 5)
		want: []string{"error encoded-crlf ftp name"}, has: []string{"offset 11"}},
	{in: "ftp://h/%2Fetc/motd", want: nil}, // %2F inside a segment
	{in: "ftp://h/x;type=d", want: nil},
	{in: "ftp://h/x;type=q", want: []string{"error malformed ftp typecode"}, has: []string{`typecode "q"`}},
	{in: "ftp://h:21/x", want: nil},
	{in: "ftp://h:2121/x", want: []string{"info port-non-default port"}, has: []string{"port 2121 is not ftp's default port 21"}},
	{in: "ftp://h:20/x", want: []string{"error port-other-protocol port"}, has: []string{"FTP data"}},
	{in: "ftp://h:3310/x", want: []string{"error port-other-protocol port"}, has: []string{"clamd"}},
	{in: "ftp://u:@h/", want: nil}, // an empty password is no secret
	{in: "ftp://u:pw@h/", want: []string{"warning password-in-url password"}},
	{in: "ftp://anonymous@h/", want: nil},

	// HTTP (RFC 1738 section 3.3): the path goes escaped on the request line.
	{in: "http://h/a%0D%0Ab", want: nil},
	{in: "http://h/a?b=%00%09", want: nil},
	{in: "http://h:80/", want: nil},
	{in: "http://h:0080/", want: nil},
	{in: "http://h:21/", want: []string{"error port-other-protocol port"}, has: []string{"port 21 is FTP, not http's default port 80"}},
	{in: "http://h:0/", want: []string{"error port-other-protocol port"}},
	{in: "http://h:6379/", want: []string{"info port-non-default port"}}, // only line-protocol schemes
	{in: "http://h:81/", want: []string{"warning port-reserved port"}, has: []string{"below 1024"}},
	{in: "http://h:8080/", want: []string{"info port-non-default port"}},
	{in: "https://h:443/", want: nil},
	{in: "https://h:80/", want: []string{"warning port-reserved port"}},
	{in: "https://h:25/", want: []string{"error port-other-protocol port"}},
	{in: "https://u@h/", want: []string{"warning userinfo-not-allowed userinfo"}},
	{in: "http://[::1]:8080/", want: []string{"info port-non-default port"}},

	// NNTP and news (RFC 1738 sections 3.6 and 3.7; RFC 5538 for news://server).
	{in: "nntp://h/a%0D%0Ab/1", want: []string{"error encoded-crlf nntp group"}},
	{in: "nntp://h/a%09b", want: []string{"error encoded-tab nntp group"}},
	{in: "nntp://h/g/x1", want: []string{"error malformed nntp article"}},
	{in: "nntp://h:119/g/1", want: nil},
	{in: "nntp://h:563/g", want: []string{"error port-other-protocol port"}, has: []string{"NNTP over TLS"}},
	{in: "nntp://u:pw@h/g", want: []string{"warning userinfo-not-allowed userinfo", "warning password-in-url password"}},
	{in: "news:comp.lang%0D%0AQUIT", want: []string{"error encoded-crlf news group"}, has: []string{"offset 14"}},
	{in: "news:a%00@b", want: []string{"error encoded-nul news article"}},
	{in: "news:a%09b", want: []string{"error encoded-tab news group"}},
	{in: "news:*", want: nil},
	{in: "news://h:25/g", want: []string{"error port-other-protocol port"}},
	{in: "news://h:119/g", want: nil},
	{in: "news://h/g%0A", want: []string{"error encoded-crlf news group"}, has: []string{"offset 10"}},
	{in: "news://u@h/g", want: []string{"warning userinfo-not-allowed userinfo"}},

	// Telnet (RFC 1738 section 3.8): user and password are advisory.
	{in: "telnet://h:23/", want: nil},
	{in: "telnet://h:25/", want: []string{"error port-other-protocol port"}},
	{in: "telnet://h:6379", want: []string{"error port-other-protocol port"}},
	{in: "telnet://a%0D%0Ab@h/", want: []string{"error encoded-crlf telnet user"}},
	{in: "telnet://u:p%00@h/", want: []string{"error encoded-nul telnet password", "warning password-in-url password"}},
	{in: "telnet://a%09b@h/", want: nil},
	{in: "telnet://h/x", want: []string{"error malformed telnet path"}},

	// WAIS and prospero (RFC 1738 sections 3.9 and 3.11).
	{in: "wais://h/db%0D%0A", want: []string{"error encoded-crlf wais database"}},
	{in: "wais://h/db?x%00", want: []string{"error encoded-nul wais search"}, has: []string{"offset 13"}},
	{in: "wais://h/db/t/p%0A", want: []string{"error encoded-crlf wais wpath"}},
	{in: "wais://h:210/db", want: nil},
	{in: "wais://h:11211/db", want: []string{"error port-other-protocol port"}},
	{in: "prospero://h/x%0D;f=v", want: []string{"error encoded-crlf prospero hsoname"}},
	{in: "prospero://h//pros/name;f=v%0A", want: []string{"error encoded-crlf prospero field"}},
	{in: "prospero://h:1525/x", want: nil},
	{in: "prospero://u@h/x", want: []string{"warning userinfo-not-allowed userinfo"}, has: []string{"section 3.11"}},

	// mailto (RFC 1738 section 3.5) and file (section 3.10).
	{in: "mailto:a@b%0D%0ABcc:c@d", want: []string{"error encoded-crlf mailto address"}},
	{in: "mailto:a@b", want: nil},
	{in: "file:///etc/passwd", want: nil},
	{in: "file:///a%00", want: []string{"error encoded-nul file path"}},
	{in: "file:///a%0Ab", want: nil}, // a local name may hold a newline
	{in: "file://h/a%0Ab", want: []string{"error encoded-crlf file path"}, has: []string{"--file-via-ftp"}},
	{in: "file://u@h/x", want: []string{"warning userinfo-not-allowed userinfo"}},
	{in: "file://h:25/x", want: []string{"error port-other-protocol port"}, has: []string{"file has no default port"}},
	{in: "file://h:6379/x", want: []string{"error port-other-protocol port"}},

	// Schemes this package knows nothing of: only the generic rules.
	{in: "x-foo://h:25/", want: []string{"error port-other-protocol port"}},
	{in: "x-foo://h:6379/a%0D%0A", want: []string{"info port-non-default port"}},

	// unsafe-character (RFC 1738 section 2.2).
	{in: "http://h/a b", want: []string{"warning unsafe-character path"}, has: []string{"' ' (space, %20) at offset 10"}},
	{in: "http://h/~u/", want: []string{"warning unsafe-character path"}, has: []string{"'~' (%7E)"}},
	{in: "http://h/a#b#c", want: []string{"warning unsafe-character fragment"}, has: []string{"'#' (%23) at offset 12"}},
	{in: "http://h:/a b", want: []string{"warning unsafe-character path"}, has: []string{"offset 11"}},     // an empty port as written
	{in: "http://[::1]:/a b", want: []string{"warning unsafe-character path"}, has: []string{"offset 15"}}, // seed 001 section 4.3.1: port = *digit
	{in: "ftp://u:pw@[::1]:/a%0A", want: []string{"error encoded-crlf ftp name", "warning password-in-url password"}, has: []string{"offset 19"}},
	{in: "http://h/x?a|b", want: []string{"warning unsafe-character query"}},
	{in: "http://h/{}|\\^[]`<>\"", want: []string{"warning unsafe-character path"}, has: []string{"6 more"}},
	{in: "http://h/a b c", want: []string{"warning unsafe-character path"}, has: []string{"(2 in all)"}},
	{in: "http://hé/", want: []string{"warning unsafe-character host"}, has: []string{"byte 0xC3 (non-ASCII"}},
	{in: "mailto:\"a b\"@c", want: []string{"warning unsafe-character opaque part"}},
	{in: "ftp://a b@h/", want: []string{"warning unsafe-character user"}, has: []string{"' ' (space, %20) at offset 7"}},
	{in: "ftp://u:p<w@h/", // characters of a password are not named
		want: []string{"warning password-in-url password", "warning unsafe-character password"}, hide: []string{"<", "p<w"}},

	// Policy.AllowPorts (--allow-port): reported, at most a warning.
	{in: "gopher://h:25/1", policy: Policy{AllowPorts: []int{25}},
		want: []string{"warning port-other-protocol port"}, has: []string{"allowed by --allow-port"}},
	{in: "gopher://h:25/1", policy: Policy{AllowPorts: []int{26}}, want: []string{"error port-other-protocol port"}},
	{in: "http://h:8080/", policy: Policy{AllowPorts: []int{8080}},
		want: []string{"info port-non-default port"}, has: []string{"allowed by --allow-port"}},
	{in: "http://h:81/", policy: Policy{AllowPorts: []int{81}}, want: []string{"warning port-reserved port"}},
	{in: "gopher://h:25/1a%0D%0A", policy: Policy{AllowPorts: []int{25}}, // nothing lifts encoded-crlf
		want: []string{"error encoded-crlf gopher selector", "warning port-other-protocol port"}},

	// Order: most severe first, then port, userinfo, components, unsafe characters.
	{in: "gopher://u:pw@h:25/1a%0D%0Ab c",
		want: []string{"error port-other-protocol port", "error encoded-crlf gopher selector",
			"warning userinfo-not-allowed userinfo", "warning password-in-url password", "warning unsafe-character path"}},

	// malformed: the *uri.Error's offset and reason, never password text.
	{in: "http://h:99999/", want: []string{"error malformed port"}, has: []string{"out of range", "offset 9"}},
	{in: "ftp://u:p%zz@h/", want: []string{"error malformed userinfo"}, hide: []string{"%zz", "zz"}},
	{in: "ftp://u:pa/ss@h/x", want: []string{"error malformed port"}, hide: []string{"'p'", `"p"`}},
	{in: "http://h/%zz", want: []string{"error malformed path"}, has: []string{`invalid escape "%zz" at offset 9`}},
	{in: "http://h/a\r\nb", want: []string{"error malformed path"}, has: []string{"control character"}},
	{in: "gopher://h/%09x", want: []string{"error malformed gopher type"}},
	{in: "ftp:x", want: []string{"error malformed server"}},
	{in: ":x", want: []string{"error malformed scheme"}},
}

func render(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Level.String()+" "+f.Rule+" "+f.Component)
	}
	return out
}

func messages(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Message)
		b.WriteString("\n")
	}
	return b.String()
}

func TestCheck(t *testing.T) {
	for _, tt := range checkTests {
		t.Run(tt.in, func(t *testing.T) {
			p := tt.policy
			p.Wire = wire
			u, fs := CheckString(tt.in, p)
			if got := render(fs); !slices.Equal(got, tt.want) {
				t.Fatalf("CheckString(%q) = %q, want %q\nmessages:\n%s", tt.in, got, tt.want, messages(fs))
			}
			msgs := messages(fs)
			for _, s := range tt.has {
				if !strings.Contains(msgs, s) {
					t.Errorf("CheckString(%q) messages lack %q:\n%s", tt.in, s, msgs)
				}
			}
			for _, s := range tt.hide {
				if strings.Contains(msgs, s) {
					t.Errorf("CheckString(%q) messages show %q:\n%s", tt.in, s, msgs)
				}
			}
			if u == nil {
				return
			}
			// Check on the parsed URL agrees, offsets included.
			if fs2 := Check(u, p); !slices.Equal(fs2, fs) {
				t.Errorf("Check(Parse(%q)) = %v, want %v", tt.in, fs2, fs)
			}
		})
	}
}

// TestPartsAtOffsets checks that every component found for the table's URLs
// is at its offset in the input, and decodes to what the uri views decode:
// the package reads the same components the drivers will write.
func TestPartsAtOffsets(t *testing.T) {
	for _, tt := range checkTests {
		u, err := uri.Parse(tt.in)
		if err != nil {
			continue
		}
		checkParts(t, tt.in, u)
	}
}

func checkParts(t *testing.T, raw string, u *uri.URL) {
	t.Helper()
	ps, err := PartsAt(u, raw, wire)
	if err != nil {
		return
	}
	got := map[string]string{}
	for _, p := range ps {
		if p.Off < 0 || p.Off+len(p.Text) > len(raw) || raw[p.Off:p.Off+len(p.Text)] != p.Text {
			t.Errorf("%q: part %s = %q at offset %d, not in the input", raw, p.Name, p.Text, p.Off)
			continue
		}
		d, err := uri.Unescape(p.Text)
		if err != nil {
			t.Errorf("%q: part %s = %q does not decode: %v", raw, p.Name, p.Text, err)
		}
		if p.Name == "news article" {
			// The view drops the "<" and ">" of a message-id.
			d = strings.TrimSuffix(strings.TrimPrefix(d, "<"), ">")
		}
		got[p.Name] = d
	}
	want := viewParts(t, u)
	for name, w := range want {
		if g, ok := got[name]; !ok || g != w {
			t.Errorf("%q: part %s = %q (found %v), view says %q", raw, name, g, ok, w)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok && name != "prospero field" {
			t.Errorf("%q: part %s not in the view", raw, name)
		}
	}
}

// viewParts returns the decoded components of u according to its view.
func viewParts(t *testing.T, u *uri.URL) map[string]string {
	m := map[string]string{}
	user := func(scheme string) {
		if u.User != nil {
			m[scheme+" user"] = u.User.Username()
			if pw, ok := u.User.Password(); ok {
				m[scheme+" password"] = pw
			}
		}
	}
	switch u.Scheme {
	case "ftp":
		v, err := u.FTP()
		if err != nil {
			t.Fatal(err)
		}
		user("ftp")
		for i, c := range v.CWD {
			m["ftp cwd "+itoa(i+1)] = c
		}
		if len(v.CWD) > 0 || v.Name != "" {
			m["ftp name"] = v.Name
		}
	case "gopher":
		v, err := u.Gopher()
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimPrefix(u.Path, "/") != "" || u.RawQuery != "" || u.ForceQuery {
			m["gopher selector"] = v.Selector
		}
		if v.Search != nil {
			m["gopher search"] = *v.Search
		}
		if v.Plus != nil {
			m["gopher+ string"] = *v.Plus
		}
	case "nntp":
		v, err := u.NNTP()
		if err != nil {
			t.Fatal(err)
		}
		m["nntp group"] = v.Group
	case "news":
		v, err := u.News()
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case v.All:
			m["news"] = "*"
		case v.Article != "":
			m["news article"] = v.Article
		default:
			m["news group"] = v.Group
		}
	case "telnet":
		user("telnet")
	case "wais":
		v, err := u.WAIS()
		if err != nil {
			t.Fatal(err)
		}
		m["wais database"] = v.Database
		if v.Search != nil {
			m["wais search"] = *v.Search
		}
		if v.WType != nil {
			m["wais wtype"], m["wais wpath"] = *v.WType, *v.WPath
		}
	case "prospero":
		v, err := u.Prospero()
		if err != nil {
			t.Fatal(err)
		}
		m["prospero hsoname"] = v.HSOName
	case "mailto":
		v, err := u.Mailto()
		if err != nil {
			t.Fatal(err)
		}
		m["mailto address"] = v.Address
	case "file":
		v, err := u.File()
		if err != nil {
			t.Fatal(err)
		}
		p := v.Path
		if u.Path == "" || u.Path[0] != '/' {
			p = strings.TrimPrefix(p, "/")
		}
		m["file path"] = p
	}
	return m
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestCheckWithoutWire: a policy without a Wire takes every escaped
// component for an argument of a command line, and every scheme for a
// line protocol of uri's default port whose syntax is not known (no
// userinfo-not-allowed), whatever the scheme; with the drivers' Wire, an
// http path is sent escaped and holds no danger.
func TestCheckWithoutWire(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want []string
	}{
		{"http://h/a%0D%0Ab", []string{"error encoded-crlf http path"}},
		{"x-foo:a%00b", []string{"error encoded-nul x-foo opaque part"}},
		{"ftp://u%09:p@h/", []string{"error encoded-tab ftp user", "warning password-in-url password"}},
		{"http://h:6379/", []string{"error port-other-protocol port"}},
		{"news://h:119/g", []string{"error port-other-protocol port"}},
		{"http://u@h/", nil},
	} {
		if _, fs := CheckString(tt.in, Policy{}); !slices.Equal(render(fs), tt.want) {
			t.Errorf("CheckString(%q, no Wire) = %q, want %q", tt.in, render(fs), tt.want)
		}
	}
	if _, fs := CheckString("http://h/a%0D%0Ab", Policy{Wire: wire}); len(fs) != 0 {
		t.Errorf("CheckString(http CRLF, drivers' Wire) = %q, want none", render(fs))
	}
}

// facter is a Wire that writes nothing and says the Facts of its schemes.
type facter map[string]Facts

func (f facter) WireParts(*uri.URL) ([]Part, error) { return nil, nil }
func (f facter) SchemeFacts(scheme string) Facts    { return f[scheme] }

// TestFacts: the port and user information rules take a scheme's default
// port, line protocol and syntax from what its driver says (Facter), not
// from its name.
func TestFacts(t *testing.T) {
	p := Policy{Wire: facter{"x-line": {Port: 7000, Line: true, NoUserinfo: true, Section: "9.9"}, "x-web": {}}}
	for _, tt := range []struct {
		in   string
		want []string
		has  string
	}{
		{"x-line://h:7000/", nil, ""},
		{"x-line://h:6379/", []string{"error port-other-protocol port"}, "not x-line's default port 7000"},
		{"x-line://u@h/", []string{"warning userinfo-not-allowed userinfo"}, "x-line URLs have no user name or password (RFC 1738 section 9.9)"},
		{"x-web://u@h:6379/", []string{"info port-non-default port"}, "x-web has no default port"},
		{"ftp://u@h:21/", nil, ""},
	} {
		_, fs := CheckString(tt.in, p)
		if !slices.Equal(render(fs), tt.want) || !strings.Contains(messages(fs), tt.has) {
			t.Errorf("CheckString(%q) = %q, want %q with %q\n%s", tt.in, render(fs), tt.want, tt.has, messages(fs))
		}
	}
}

func TestCheckNil(t *testing.T) {
	if got := render(Check(nil, Policy{Wire: wire})); !slices.Equal(got, []string{"error malformed url"}) {
		t.Errorf("Check(nil) = %q", got)
	}
}

// TestCheckHandBuilt: a URL built by hand with text the parser would
// refuse is malformed, not judged component by component.
func TestCheckHandBuilt(t *testing.T) {
	for _, u := range []*uri.URL{
		{Scheme: "ftp", HasAuthority: true, Host: "h", Path: "/a\r\nDELE x"},
		{Scheme: "gopher", HasAuthority: true, Host: "h", Path: "/1%zz"},
		{Scheme: "ftp", HasAuthority: true, Host: "h/x", Path: "/a"},
		{Scheme: "ftp", HasAuthority: true, Host: "h", Port: "x"},
		{Scheme: "FTP", HasAuthority: true, Host: "h", Path: "/a"},
		{Scheme: "ftp", HasAuthority: true, Host: "h", User: uri.UserPassword("u", "a@b")},
	} {
		fs := Check(u, Policy{Wire: wire})
		if len(fs) != 1 || fs[0].Rule != RuleMalformed || fs[0].Level != Error {
			t.Errorf("Check(%#v) = %v, want one malformed finding", u, fs)
		}
	}
	// A hand-built URL that is sound is judged like a parsed one.
	u := &uri.URL{Scheme: "gopher", HasAuthority: true, Host: "127.0.0.1", Port: "25", Path: "/1a%0D%0A"}
	if got, want := render(Check(u, Policy{Wire: wire})), []string{"error port-other-protocol port", "error encoded-crlf gopher selector"}; !slices.Equal(got, want) {
		t.Errorf("Check(%v) = %q, want %q", u, got, want)
	}
}

func TestEvaluate(t *testing.T) {
	u := uri.MustParse("gopher://joe:Sw0rdf1sh@127.0.0.1:25/1a%0D%0AQUIT")
	fs, err := Policy{Wire: wire}.Evaluate(u)
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("Evaluate(%s) error = %v, want ErrRefused", u.Redacted(), err)
	}
	var re *RefusedError
	if !errors.As(err, &re) {
		t.Fatalf("Evaluate error %T is not a *RefusedError", err)
	}
	if re.URL != u.Redacted() {
		t.Errorf("RefusedError.URL = %q, want %q", re.URL, u.Redacted())
	}
	if strings.Contains(err.Error(), "Sw0rdf1sh") {
		t.Errorf("error text shows the password: %q", err)
	}
	if !slices.Equal(re.Findings, fs) {
		t.Errorf("RefusedError.Findings = %v, want %v", re.Findings, fs)
	}
	if got, want := re.Rules(), []string{RulePortOtherProtocol, RuleEncodedCRLF}; !slices.Equal(got, want) {
		t.Errorf("Rules() = %q, want %q", got, want)
	}
	// Rules() is checked above; the printed refusal must name the rule too.
	if !strings.Contains(err.Error(), RulePortOtherProtocol) {
		t.Errorf("error %q does not name the rule", err)
	}

	// A URL nested in the path keeps no password either.
	_, err = Policy{Wire: wire}.Evaluate(uri.MustParse("ftp://h:25/a?next=ftp://joe:Sw0rdf1sh@h2/"))
	if !errors.As(err, &re) || re.URL != "ftp://h:25/a?next=ftp://joe:xxxxx@h2/" {
		t.Errorf("Evaluate(nested) = %v", err)
	}

	// Warnings and infos do not refuse.
	for _, s := range []string{"http://u:p@h:8080/~x", "ftp://h/pub/", "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aval%0D%0A.%0D%0A"} {
		fs, err := Policy{Wire: wire}.Evaluate(uri.MustParse(s))
		if err != nil {
			t.Errorf("Evaluate(%q) = %v, %v; want no error", s, fs, err)
		}
	}
	// --allow-port lifts the port rule, not the others.
	if _, err := (Policy{Wire: wire, AllowPorts: []int{25}}).Evaluate(uri.MustParse("gopher://h:25/1")); err != nil {
		t.Errorf("Evaluate with AllowPorts 25: %v", err)
	}
	if _, err := (Policy{Wire: wire, AllowPorts: []int{25}}).Evaluate(uri.MustParse("gopher://h:25/1%0A")); !errors.Is(err, ErrRefused) {
		t.Errorf("Evaluate with AllowPorts 25 and %%0A: %v, want ErrRefused", err)
	}
	if _, err := (Policy{Wire: wire}).Evaluate(nil); !errors.Is(err, ErrRefused) {
		t.Errorf("Evaluate(nil) = %v, want ErrRefused", err)
	}
}

func TestLevel(t *testing.T) {
	for _, tt := range []struct {
		l    Level
		want string
	}{{Info, "info"}, {Warning, "warning"}, {Error, "error"}} {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("Level(%d).String() = %q, want %q", int(tt.l), got, tt.want)
		}
		b, err := tt.l.MarshalText()
		if err != nil || string(b) != tt.want {
			t.Errorf("Level(%d).MarshalText() = %q, %v", int(tt.l), b, err)
		}
		var l Level
		if err := l.UnmarshalText(b); err != nil || l != tt.l {
			t.Errorf("UnmarshalText(%q) = %v, %v", b, l, err)
		}
	}
	if _, err := Level(7).MarshalText(); err == nil {
		t.Error("Level(7).MarshalText() succeeded")
	}
	if got := Level(7).String(); got != "Level(7)" {
		t.Errorf("Level(7).String() = %q", got)
	}
	var l Level
	if err := l.UnmarshalText([]byte("fatal")); err == nil {
		t.Error(`UnmarshalText("fatal") succeeded`)
	}
	f := Finding{Rule: RuleEncodedCRLF, Level: Error, Component: "ftp name", Message: "m"}
	if got, want := f.String(), "error encoded-crlf (ftp name): m"; got != want {
		t.Errorf("Finding.String() = %q, want %q", got, want)
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"rule":"encoded-crlf","level":"error","component":"ftp name","message":"m"}`; string(b) != want {
		t.Errorf("json.Marshal(Finding) = %s, want %s", b, want)
	}
}

// TestPortLists checks the tables against the lists of the issue.
func TestPortLists(t *testing.T) {
	browsers := []int{0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87,
		95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
		512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719,
		1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080}
	if len(BadPorts) != len(browsers) {
		t.Errorf("BadPorts has %d ports, the list %d", len(BadPorts), len(browsers))
	}
	for _, n := range browsers {
		if BadPorts[n] == "" {
			t.Errorf("port %d missing from BadPorts", n)
		}
		for _, scheme := range []string{"http", "https", "ftp", "gopher", "nntp", "news", "telnet", "wais", "prospero", "file", "x-foo"} {
			got := OtherProtocol(Policy{Wire: wire}, scheme, n)
			if (got == "") != (n == DefaultPort(Policy{Wire: wire}, scheme)) {
				t.Errorf("OtherProtocol(%q, %d) = %q", scheme, n, got)
			}
		}
	}
	for _, n := range []int{6379, 11211} {
		for _, scheme := range []string{"ftp", "gopher", "nntp", "news", "telnet", "wais", "prospero"} {
			if OtherProtocol(Policy{Wire: wire}, scheme, n) == "" {
				t.Errorf("OtherProtocol(%q, %d) is empty", scheme, n)
			}
		}
		for _, scheme := range []string{"http", "https"} {
			if got := OtherProtocol(Policy{Wire: wire}, scheme, n); got != "" {
				t.Errorf("OtherProtocol(%q, %d) = %q, want none", scheme, n, got)
			}
		}
	}
	for n := range LinePorts {
		if _, ok := BadPorts[n]; ok {
			t.Errorf("port %d is in both tables", n)
		}
	}
}
