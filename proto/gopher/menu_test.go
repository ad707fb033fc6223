package gopher

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// parseMenuTests: RFC 1436 section 3.8 menus and what servers really send.
var parseMenuTests = []struct {
	name     string
	in       string
	want     []Item
	unparsed []string // ParseMenuLines's lines that are no menu line
}{
	{
		// RFC 1436 section 3.8 and gopherplus.txt section 2.2.
		"CRLF with terminator",
		"0About\t/about\thost1\t70\r\n1Dir\t/dir\thost1\t7070\t+\r\n.\r\n",
		[]Item{
			{Type: "0", Display: "About", Selector: "/about", Host: "host1", Port: 70},
			{Type: "1", Display: "Dir", Selector: "/dir", Host: "host1", Port: 7070, Plus: "+"},
		},
		nil,
	},
	{
		// pygopherd: no "." line, the server closes.
		"no terminator",
		"0a\t/a\th\t70\t+\r\niinfo\tfake\t(NULL)\t0\r\n",
		[]Item{
			{Type: "0", Display: "a", Selector: "/a", Host: "h", Port: 70, Plus: "+"},
			{Type: "i", Display: "info", Selector: "fake", Host: "(NULL)"},
		},
		nil,
	},
	{
		"LF only",
		"0a\t/a\th\t70\n1b\t/b\th\t70\n",
		[]Item{
			{Type: "0", Display: "a", Selector: "/a", Host: "h", Port: 70},
			{Type: "1", Display: "b", Selector: "/b", Host: "h", Port: 70},
		},
		nil,
	},
	{
		"data after terminator ignored",
		"0a\t/a\th\t70\r\n.\r\n0evil\t/e\th\t70\r\n",
		[]Item{{Type: "0", Display: "a", Selector: "/a", Host: "h", Port: 70}},
		nil,
	},
	{
		// gopherplus.txt section 2.8: "?" marks an item with an +ASK form.
		"ask flag and extra fields",
		"0Form\tsel\th\t70\t?\textra\tmore\r\n",
		[]Item{{Type: "0", Display: "Form", Selector: "sel", Host: "h", Port: 70, Plus: "?"}},
		nil,
	},
	{
		"missing fields",
		"1Only display and selector\t/x\r\n0no port\t/y\th\r\n",
		[]Item{
			{Type: "1", Display: "Only display and selector", Selector: "/x"},
			{Type: "0", Display: "no port", Selector: "/y", Host: "h"},
		},
		nil,
	},
	{
		// RFC 1436, appendix: Port ::= DigitSeq. A port that is no
		// number from 1 to 65535 makes the line no menu line (it was
		// sent to port 70); spaces around it are forgiven.
		"bad ports",
		"0a\t/a\th\tseventy\r\n0b\t/b\th\t70000\r\n0c\t/c\th\t-1\r\n0d\t/d\th\t 71 \r\n" +
			"0e\t/e\th\tabc\r\n0f\t/f\th\t0\r\n0g\t/g\th\t+70\r\n0k\t/k\th\t\r\n",
		[]Item{
			{Type: "0", Display: "d", Selector: "/d", Host: "h", Port: 71},
			{Type: "0", Display: "k", Selector: "/k", Host: "h"},
		},
		[]string{"0a\t/a\th\tseventy", "0b\t/b\th\t70000", "0c\t/c\th\t-1", "0e\t/e\th\tabc", "0f\t/f\th\t0", "0g\t/g\th\t+70"},
	},
	{
		// RFC 1436 section 3.8: the display string ends at the first
		// TAB; one that holds a TAB shifts the fields after it, and the
		// port field is then the host. Gopher+ lines alike.
		"tab in the display string",
		"0Disp\tlay\t/sel\th\t70\r\n1Menu\tone\t/m\th\t70\t+\r\n0ok\t/ok\th\t70\r\n",
		[]Item{{Type: "0", Display: "ok", Selector: "/ok", Host: "h", Port: 70}},
		[]string{"0Disp\tlay\t/sel\th\t70", "1Menu\tone\t/m\th\t70\t+"},
	},
	{
		// Info and error lines: their port is never used (servers send
		// "0" or nothing); an "h" URL: item's neither.
		"ports not used",
		"iinfo\tfake\t(NULL)\tx\r\n3err\t\terror.host\t0\r\nhWeb\tURL:http://example.org/\th\t0\r\n",
		[]Item{
			{Type: "i", Display: "info", Selector: "fake", Host: "(NULL)"},
			{Type: "3", Display: "err", Host: "error.host"},
			{Type: "h", Display: "Web", Selector: "URL:http://example.org/", Host: "h"},
		},
		nil,
	},
	{
		// RFC 1436, appendix: UNASCII ::= ASCII - [Tab CR-LF NUL]; no
		// field holds a NUL.
		"NUL bytes",
		"\x00\x00\x00\r\n0a\t/a\x00\th\t70\r\n\x00\r\n0b\t/b\th\t70\r\n",
		[]Item{{Type: "0", Display: "b", Selector: "/b", Host: "h", Port: 70}},
		[]string{"\x00\x00\x00", "0a\t/a\x00\th\t70", "\x00"},
	},
	{
		// RFC 1436 section 3.8: the type is the first character; a TAB
		// is none.
		"line beginning with a tab",
		"\tno type\t/x\th\t70\r\n",
		nil,
		[]string{"\tno type\t/x\th\t70"},
	},
	{
		"empty lines skipped",
		"\r\n0a\t/a\th\t70\r\n\n\r\n",
		[]Item{{Type: "0", Display: "a", Selector: "/a", Host: "h", Port: 70}},
		nil,
	},
	{
		"lines without tabs",
		"Plain text line\r\niInfo without tabs\r\n3Error without tabs\r\n",
		[]Item{
			{Type: "i", Display: "Plain text line"},
			{Type: "i", Display: "Info without tabs"},
			{Type: "3", Display: "Error without tabs"},
		},
		nil,
	},
	{
		// RFC 1436: selectors may hold any byte but TAB, CR, LF.
		"odd bytes in selector",
		"9bin\t/a b?c#d%e\xff\th\t70\r\n",
		[]Item{{Type: "9", Display: "bin", Selector: "/a b?c#d%e\xff", Host: "h", Port: 70}},
		nil,
	},
	{"empty menu", "", nil, nil},
	{"only terminator", ".\r\n", nil, nil},
}

func TestParseMenu(t *testing.T) {
	for _, tt := range parseMenuTests {
		t.Run(tt.name, func(t *testing.T) {
			got, unparsed, err := ParseMenuLines([]byte(tt.in))
			if err != nil {
				t.Fatalf("ParseMenuLines(%q) = %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseMenuLines(%q) =\n%+v\nwant\n%+v", tt.in, got, tt.want)
			}
			if !reflect.DeepEqual(unparsed, tt.unparsed) {
				t.Errorf("ParseMenuLines(%q) unparsed %q, want %q", tt.in, unparsed, tt.unparsed)
			}
			if items, err := ParseMenu([]byte(tt.in)); err != nil || !reflect.DeepEqual(items, tt.want) {
				t.Errorf("ParseMenu(%q) = %+v, %v; want the items of ParseMenuLines", tt.in, items, err)
			}
		})
	}
}

func TestParseMenuLimits(t *testing.T) {
	var pe *proto.ProtocolError
	long := "0" + strings.Repeat("x", 200) + "\t/\th\t70\r\n"
	if _, _, err := parseMenu([]byte(long), limits{maxLine: 100}); !errors.As(err, &pe) {
		t.Errorf("over-long line: err = %v, want *proto.ProtocolError", err)
	}
	// The limit counts a line without its end, as NNTP's MaxLineLength
	// does: a line of exactly maxLine bytes and its CR LF passes, in a
	// menu read from the server and in the parser.
	exact := "0" + strings.Repeat("x", 12) + "\t/\th\t70\r\n" // 20 bytes and CR LF
	if items, _, err := parseMenu([]byte(exact), limits{maxLine: 20}); err != nil || len(items) != 1 {
		t.Errorf("line at the limit: %v, %v", items, err)
	}
	if _, _, err := readLines(strings.NewReader(exact+".\r\n"), limits{maxLine: 20}); err != nil {
		t.Errorf("readLines, line at the limit: %v", err)
	}
	if _, _, err := parseMenu([]byte("x"+exact), limits{maxLine: 20}); !errors.As(err, &pe) {
		t.Errorf("line over the limit: err = %v, want *proto.ProtocolError", err)
	}
	many := strings.Repeat("0a\t/a\th\t70\r\n", 11)
	if _, _, err := parseMenu([]byte(many), limits{maxItems: 10}); !errors.As(err, &pe) {
		t.Errorf("11 items with a limit of 10: err = %v, want *proto.ProtocolError", err)
	}
	if items, _, err := parseMenu([]byte(many), limits{maxItems: 11}); err != nil || len(items) != 11 {
		t.Errorf("11 items with a limit of 11: %d items, %v", len(items), err)
	}
}

// itemURLTests: RFC 1738 section 3.4 (gopher), 3.8 (telnet), and the
// "URL:" convention of "h" items.
var itemURLTests = []struct {
	it   Item
	want string
}{
	{Item{Type: "1", Selector: "", Host: "h", Port: 70}, "gopher://h/1"},
	{Item{Type: "0", Selector: "/about", Host: "h", Port: 70}, "gopher://h/0/about"},
	{Item{Type: "0", Selector: "0/x", Host: "h", Port: 7070}, "gopher://h:7070/00/x"},
	{Item{Type: "0", Selector: "a?b", Host: "h", Port: 70}, "gopher://h/0a%3Fb"},
	{Item{Type: "0", Selector: "a b%c#d\"e", Host: "h", Port: 70}, "gopher://h/0a%20b%25c%23d%22e"},
	{Item{Type: "9", Selector: "/f;type=i", Host: "h", Port: 70}, "gopher://h/9/f;type=i"},
	{Item{Type: "0", Selector: "/\xff", Host: "h", Port: 70}, "gopher://h/0/%FF"},
	{Item{Type: "0", Selector: "/x", Host: "::1", Port: 70}, "gopher://[::1]/0/x"},
	{Item{Type: "0", Selector: "/x", Host: "h", Port: 0}, "gopher://h/0/x"},
	{Item{Type: "0", Selector: "/form", Host: "h", Port: 70, Plus: "?"}, "gopher://h/0/form%09%09?"},
	{Item{Type: "1", Selector: "/p", Host: "h", Port: 70, Plus: "+"}, "gopher://h/1/p"},
	{Item{Type: "?", Selector: "/q", Host: "h", Port: 70}, "gopher://h/%3F/q"},
	{Item{Type: "i", Selector: "fake", Host: "h", Port: 70}, ""},
	{Item{Type: "3", Selector: "", Host: "error.host", Port: 1}, ""},
	{Item{Type: "0", Selector: "/x", Host: "bad host", Port: 70}, ""},
	{Item{Type: "0", Selector: "/x", Host: "(NULL)", Port: 0}, ""},
	{Item{Type: "0", Selector: "/x", Host: "", Port: 70}, ""},
	{Item{Type: "h", Selector: "URL:http://example.org/a?b", Host: "h", Port: 70}, "http://example.org/a?b"},
	{Item{Type: "h", Selector: "/URL:ftp://f/x", Host: "h", Port: 70}, "ftp://f/x"},
	{Item{Type: "h", Selector: "/page.html", Host: "h", Port: 70}, "gopher://h/h/page.html"},
	{Item{Type: "8", Selector: "guest", Host: "h", Port: 23}, "telnet://guest@h/"},
	{Item{Type: "8", Selector: "", Host: "h", Port: 2323}, "telnet://h:2323/"},
	{Item{Type: "8", Selector: "a@b:c", Host: "h", Port: 0}, "telnet://a%40b%3Ac@h/"},
	{Item{Type: "T", Selector: "ibm", Host: "h", Port: 23}, "tn3270://ibm@h/"},
}

func TestItemURL(t *testing.T) {
	for _, tt := range itemURLTests {
		got := tt.it.URL()
		if got != tt.want {
			t.Errorf("%+v.URL() = %q, want %q", tt.it, got, tt.want)
			continue
		}
		if !strings.HasPrefix(got, "gopher:") {
			continue
		}
		// The URL gives the item back (RFC 1738 section 3.4).
		u, err := uri.Parse(got)
		if err != nil {
			t.Errorf("uri.Parse(%q) = %v", got, err)
			continue
		}
		g, err := u.Gopher()
		if err != nil {
			t.Errorf("Gopher(%q) = %v", got, err)
			continue
		}
		if g.Type != tt.it.Type || g.Selector != tt.it.Selector {
			t.Errorf("Gopher(%q) = type %q selector %q, want %q %q", got, g.Type, g.Selector, tt.it.Type, tt.it.Selector)
		}
		if (tt.it.Plus == "?") != (g.Plus != nil && *g.Plus == "?") {
			t.Errorf("Gopher(%q).Plus = %v, want \"?\" iff the item is flagged \"?\"", got, g.Plus)
		}
	}
}

func TestItemEntry(t *testing.T) {
	tests := []struct {
		it   Item
		want proto.Entry
	}{
		{
			Item{Type: "1", Display: "Dir", Selector: "/d", Host: "h", Port: 70, Plus: "+"},
			proto.Entry{Name: "Dir", Type: proto.EntryDir, Size: -1, URL: "gopher://h/1/d", ItemType: "1",
				Extra: map[string]string{"selector": "/d", "host": "h", "port": "70", "plus": "+"}},
		},
		{
			Item{Type: "i", Display: "hello", Selector: "fake", Host: "(NULL)"},
			proto.Entry{Name: "hello", Type: proto.EntryInfo, Size: -1, ItemType: "i"},
		},
		{
			Item{Type: "h", Display: "Web", Selector: "URL:http://x/", Host: "h", Port: 70},
			proto.Entry{Name: "Web", Type: proto.EntryLink, Size: -1, URL: "http://x/", Target: "http://x/", ItemType: "h",
				Extra: map[string]string{"selector": "URL:http://x/", "host": "h", "port": "70"}},
		},
		{
			Item{Type: "8", Display: "BBS", Selector: "bbs", Host: "h", Port: 23},
			proto.Entry{Name: "BBS", Type: proto.EntryService, Size: -1, URL: "telnet://bbs@h/", ItemType: "8",
				Extra: map[string]string{"selector": "bbs", "host": "h", "port": "23"}},
		},
		{
			Item{Type: "7", Display: "Search", Selector: "/s", Host: "h", Port: 70},
			proto.Entry{Name: "Search", Type: proto.EntryOther, Size: -1, URL: "gopher://h/7/s", ItemType: "7",
				Extra: map[string]string{"selector": "/s", "host": "h", "port": "70"}},
		},
		{
			Item{Type: "9", Display: "Bin", Selector: "/b", Host: "h", Port: 70},
			proto.Entry{Name: "Bin", Type: proto.EntryFile, Size: -1, URL: "gopher://h/9/b", ItemType: "9",
				Extra: map[string]string{"selector": "/b", "host": "h", "port": "70"}},
		},
	}
	for _, tt := range tests {
		if got := tt.it.Entry(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%+v.Entry() =\n%+v\nwant\n%+v", tt.it, got, tt.want)
		}
	}
}

func TestFormatMenu(t *testing.T) {
	items := []Item{
		{Type: "i", Display: "Welcome"},
		{Type: "i", Display: ""},
		{Type: "1", Display: "Docs", Selector: "/docs", Host: "h", Port: 70},
		{Type: "0", Display: "A longer name", Selector: "/a", Host: "h", Port: 7070},
		{Type: "3", Display: "oops"},
		{Type: "0", Display: "evil\x1b[2Jname\u009b", Selector: "/e", Host: "h", Port: 70},
		{Type: "x", Display: "odd", Selector: "/o", Host: "h", Port: 70},
	}
	var entries []proto.Entry
	for _, it := range items {
		entries = append(entries, it.Entry())
	}
	var b bytes.Buffer
	if err := FormatMenu(&b, entries); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"       Welcome\n" +
		"\n" +
		"DIR    Docs           gopher://h/1/docs\n" +
		"TXT    A longer name  gopher://h:7070/0/a\n" +
		"ERR    oops\n" +
		"TXT    evil?[2Jname?  gopher://h/0/e\n" +
		"(x)    odd            gopher://h/x/o\n"
	if b.String() != want {
		t.Errorf("FormatMenu =\n%s\nwant\n%s", b.String(), want)
	}
}

// FuzzParseMenu: no panic, bounded output, and every gopher URL an item
// gets parses back to the item's type and selector.
func FuzzParseMenu(f *testing.F) {
	for _, tt := range parseMenuTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte("1\t\t\t\t\t\t\r\n"))
	f.Add([]byte("0a\t\x00\xff\th\t70\t?\r\n"))
	f.Add([]byte("h\tURL:\th\t70\r\n"))
	f.Add([]byte("8\t@\t::1\t23\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		items, unparsed, err := parseMenu(in, limits{maxLine: 1 << 10, maxItems: 1 << 10})
		if err != nil {
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *proto.ProtocolError", err)
			}
			return
		}
		if n := len(items) + len(unparsed); n > 1<<10 || n > bytes.Count(in, []byte("\n"))+1 {
			t.Fatalf("%d items and %d unparsed lines from %d bytes", len(items), len(unparsed), len(in))
		}
		// None lost: every line before a "." line (RFC 1436 section 3)
		// is an item or unparsed, blank lines aside.
		lines := 0
		for _, l := range bytes.Split(in, []byte("\n")) {
			if l = bytes.TrimSuffix(l, []byte("\r")); string(l) == "." {
				break
			} else if len(l) > 0 {
				lines++
			}
		}
		if len(items)+len(unparsed) != lines {
			t.Fatalf("%d items and %d unparsed lines from %d lines of %q", len(items), len(unparsed), lines, in)
		}
		for _, line := range unparsed {
			if line == "" || strings.Contains(line, "\n") || !bytes.Contains(in, []byte(line)) {
				t.Fatalf("unparsed line %q is not a line of the input", line)
			}
		}
		for _, it := range items {
			if len(it.Type) != 1 && !(it.Type == "i" && it.Display == "") {
				t.Fatalf("item type %q", it.Type)
			}
			e := it.Entry()
			var b bytes.Buffer
			FormatMenu(&b, []proto.Entry{e})
			if bytes.ContainsAny(b.Bytes(), "\x00\x1b\r\t") {
				t.Fatalf("FormatMenu wrote control bytes: %q", b.Bytes())
			}
			u := it.URL()
			if !strings.HasPrefix(u, "gopher://") {
				continue
			}
			pu, err := uri.Parse(u)
			if err != nil {
				t.Fatalf("item URL %q does not parse: %v", u, err)
			}
			g, err := pu.Gopher()
			if err != nil {
				t.Fatalf("item URL %q: Gopher() = %v", u, err)
			}
			if g.Type != it.Type || g.Selector != it.Selector {
				t.Fatalf("item URL %q gives type %q selector %q, want %q %q", u, g.Type, g.Selector, it.Type, it.Selector)
			}
		}
	})
}

// bigMenu is a 2,000-item Gopher+ menu like pygopherd's /big.
func bigMenu() []byte {
	var b bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&b, "0item%04d\t/big/item%04d.txt\t127.0.0.1\t7070\t+\r\n", i, i)
	}
	return b.Bytes()
}

func BenchmarkParseMenu(b *testing.B) {
	menu := bigMenu()
	b.SetBytes(int64(len(menu)))
	b.ReportAllocs()
	for b.Loop() {
		items, err := ParseMenu(menu)
		if err != nil || len(items) != 2000 {
			b.Fatalf("%d items, %v", len(items), err)
		}
	}
}

// BenchmarkMenuEntries is parsing plus what the driver adds: each item's
// URL and proto.Entry.
func BenchmarkMenuEntries(b *testing.B) {
	menu := bigMenu()
	b.SetBytes(int64(len(menu)))
	b.ReportAllocs()
	for b.Loop() {
		items, _ := ParseMenu(menu)
		for _, it := range items {
			_ = it.Entry()
		}
	}
}

func BenchmarkFormatMenu(b *testing.B) {
	items, _ := ParseMenu(bigMenu())
	entries := make([]proto.Entry, len(items))
	for i, it := range items {
		entries[i] = it.Entry()
	}
	b.ReportAllocs()
	for b.Loop() {
		FormatMenu(io.Discard, entries)
	}
}
