package uri

import (
	"reflect"
	"strings"
	"testing"
)

var extractTests = []struct {
	name string
	text string
	want []string
}{
	{
		// Seed 001 Appendix B, the example paragraph verbatim.
		"seed001-appendixB",
		"      Yes, Jim, I found it under <ftp://info.cern.ch/pub/www/doc;\n" +
			"      type=d> but you can probably pick it up from <ftp://ds.in\n" +
			"      ternic.net/rfc>.  Note the warning in <http://ds.internic.\n" +
			"      net/instructions/overview.html#WARNING>.\n",
		[]string{
			"ftp://info.cern.ch/pub/www/doc;type=d",
			"ftp://ds.internic.net/rfc",
			"http://ds.internic.net/instructions/overview.html#WARNING",
		},
	},
	{
		// Seed 003 (RFC 2396) Appendix E, the example text (its last line
		// and the list of URIs were lost in this copy of the seed; RFC
		// 2396 has them).
		"seed003-appendixE",
		"Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",\n" +
			"but you can probably pick it up from <ftp://ds.internic.\n" +
			"net/rfc/>.  Note the warning in <http://www.ics.uci.edu/pub/\n" +
			"ietf/uri/historical.html#WARNING>.\n",
		[]string{
			"http://www.w3.org/Addressing/",
			"ftp://ds.internic.net/rfc/",
			"http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING",
		},
	},
	// The example: printf 'see <URL:ftp://ds.in\n ternic.net/rfc>.'
	{"issue", "see <URL:ftp://ds.in\n ternic.net/rfc>.", []string{"ftp://ds.internic.net/rfc"}},
	// Seed 003 Appendix E: "URL:" "with or without a trailing space"; any case.
	{"url-prefix-space", "<URL: http://a/b>", []string{"http://a/b"}},
	{"url-prefix-case", "<url:gopher://h/1>", []string{"gopher://h/1"}},
	// Seed 003 Appendix E: double quotes, angle brackets, or whitespace.
	{"quotes", `see "http://test.com/" and <http://test.com/> or http://test.com/ too`,
		[]string{"http://test.com/", "http://test.com/", "http://test.com/"}},
	// Seed 001 Appendix B: the fragment inside the brackets.
	{"fragment", "<http://h/doc#sec2>", []string{"http://h/doc#sec2"}},
	// Seed 001 Appendix B: tabs, CR LF and spaces inside brackets are ignored.
	{"whitespace", "<gopher://h/0a%09b\r\n\t %09+>", []string{"gopher://h/0a%09b%09+"}},
	// Seed 001 Appendix B: trailing punctuation outside brackets is not part of the URL.
	{"punctuation", "Get ftp://h/pub/file.txt. Or http://h/x, mailto:joe@h.example; news:comp.lang.go! wais://h/db?", []string{
		"ftp://h/pub/file.txt", "http://h/x", "mailto:joe@h.example", "news:comp.lang.go", "wais://h/db",
	}},
	{"parens", "(see http://h/a_(b)) and (http://h/c)", []string{"http://h/a_(b)", "http://h/c"}},
	{"brackets", "[http://[::1]:8080/x]", []string{"http://[::1]:8080/x"}},
	{"quote-single", "'telnet://h:2323/'", []string{"telnet://h:2323/"}},
	// Outside brackets: the RFC 1738 schemes in any case, after a non-scheme character.
	{"case", "HTTP://H/ and Ftp://h/", []string{"HTTP://H/", "Ftp://h/"}},
	{"prefix-bare", "URL:prospero://host.dom//pros/name", []string{"prospero://host.dom//pros/name"}},
	{"glued", "xhttp://h/ myftp://h/", nil},
	{"unknown-bare", "Note: see foo:bar, and x-y:z", nil},
	{"empty-bare", "news: and mailto: and http:", nil},
	// Not URLs in brackets: no scheme right after "<", or an HTML tag.
	{"not-urls", "<joe@example.org> <b>bold</b> < http://h/> a < b > c", []string{"http://h/"}},
	// A "<" without ">" leaves the URL to the bare rules.
	{"unclosed", "<http://h/x and more", []string{"http://h/x"}},
	// Nested "<": the inner bracket wins.
	{"nested", "<<http://h/x>>", []string{"http://h/x"}},
	// Any scheme inside brackets.
	{"other-scheme", "<x-exp:thing> <urn:ietf:rfc:1738>", []string{"x-exp:thing", "urn:ietf:rfc:1738"}},
	// Candidates that do not parse are skipped.
	{"malformed", "<http://a%zz/> http://h:99999/ ok http://h/", []string{"http://h/"}},
	// Hyphen at a line break inside brackets: kept in the URL (see TestFindAllHyphen).
	{"hyphen", "<http://www.ics.uci.edu/pub/ietf/uri-\n   history.html>", []string{"http://www.ics.uci.edu/pub/ietf/uri-history.html"}},
	{"none", "no urls here: just text.", nil},
}

func TestExtract(t *testing.T) {
	for _, tt := range extractTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Extract(tt.text); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Extract(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

// Seed 001 Appendix B and seed 003 Appendix E: "the interpreter of a URL
// containing a line break immediately after a hyphen should ignore all
// unencoded whitespace around the line break, and should be aware that the
// hyphen may or may not actually be part of the URL".
func TestFindAllHyphen(t *testing.T) {
	tests := []struct {
		text, url, noHyphen string
	}{
		{"<http://h/uri-\n  history.html>", "http://h/uri-history.html", "http://h/urihistory.html"},
		{"<http://h/uri-  \r\n\thistory.html>", "http://h/uri-history.html", "http://h/urihistory.html"},
		{"<URL:ftp://my-\nhost.example/pub/a-\n b>", "ftp://my-host.example/pub/a-b", "ftp://myhost.example/pub/ab"},
		// A hyphen not at a line break is simply part of the URL.
		{"<http://h/a- b>", "http://h/a-b", ""},
		{"<http://h/a-b\n/c>", "http://h/a-b/c", ""},
	}
	for _, tt := range tests {
		ms := FindAll(tt.text)
		if len(ms) != 1 || ms[0].URL != tt.url || ms[0].NoHyphen != tt.noHyphen || !ms[0].Wrapped {
			t.Errorf("FindAll(%q) = %+v, want URL %q NoHyphen %q", tt.text, ms, tt.url, tt.noHyphen)
		}
	}
}

func TestFindAllOffsets(t *testing.T) {
	text := "a <URL:http://h/x> b http://h/y. c"
	ms := FindAll(text)
	want := []Match{
		{URL: "http://h/x", Start: 2, End: 18, Wrapped: true},
		{URL: "http://h/y", Start: 21, End: 31},
	}
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("FindAll(%q) = %+v, want %+v", text, ms, want)
	}
	for _, m := range ms {
		if m.Start < 0 || m.End > len(text) || m.Start >= m.End {
			t.Errorf("match %+v out of range", m)
		}
	}
	if got := text[21:31]; got != "http://h/y" {
		t.Errorf("text[21:31] = %q", got)
	}
}

// FindAll scans hostile text in linear time: every candidate here fails to
// parse or ends in a run of punctuation.
func TestFindAllLinear(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("http://[x/", 100000),
		"http://h/" + strings.Repeat(")", 500000),
		strings.Repeat("<http://a%zz/", 50000),
		"<http://h/" + strings.Repeat("-\n ", 200000) + ">",
	} {
		FindAll(text)
	}
}

// TestLinkScheme: the schemes of RFC 1738 (section 3), https, and those a
// web page links to (the WHATWG URL Standard's special schemes,
// javascript:, data:, about:, blob:, tel:) are links, in any case; any
// other scheme may be a file's name ("a:b.txt").
func TestLinkScheme(t *testing.T) {
	for _, s := range []string{"ftp", "HTTP", "https", "gopher", "mailto", "news", "nntp", "telnet", "wais", "file", "prospero", "ws", "wss", "javascript", "data", "about", "blob", "tel"} {
		if !LinkScheme(s) {
			t.Errorf("LinkScheme(%q) = false", s)
		}
	}
	for _, s := range []string{"a", "x-foo", "c", "httpx", ""} {
		if LinkScheme(s) {
			t.Errorf("LinkScheme(%q) = true", s)
		}
	}
}
