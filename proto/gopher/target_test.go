package gopher

import (
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/uri"
)

// RFC 4266 section 2 (and RFC 1738 section 3.4): gopher://<host>:<port>/
// <gopher-path>, the port 70 by default, the path "1" (a menu) when empty.
var targetTests = []struct {
	in         string
	host, addr string
	typ, sel   string
	ok         bool
}{
	{"gopher://host/", "host", "host:70", "1", "", true},
	{"gopher://host", "host", "host:70", "1", "", true},
	{"gopher://HOST:7070/0/a%20b", "host", "host:7070", "0", "/a b", true},
	{"gopher://[::1]:70/1sel", "::1", "[::1]:70", "1", "sel", true},
	{"gopher://user@host/", "host", "host:70", "1", "", true},
	{"gopher:///1sel", "", "", "", "", false},     // RFC 4266 2: a host is required
	{"gopher://host/%091", "", "", "", "", false}, // a search with no type
}

func TestParseTarget(t *testing.T) {
	for _, tt := range targetTests {
		u, err := uri.Parse(tt.in)
		if err != nil {
			t.Fatalf("uri.Parse(%q): %v", tt.in, err)
		}
		g, err := parseTarget(u)
		if ue := (*uri.Error)(nil); !tt.ok {
			if !errors.As(err, &ue) {
				t.Errorf("parseTarget(%q) = %+v, %v; want a *uri.Error", tt.in, g, err)
			}
			continue
		}
		if err != nil || g.host != tt.host || g.addr != tt.addr || g.Type != tt.typ || g.Selector != tt.sel {
			t.Errorf("parseTarget(%q) = %+v, %v", tt.in, g, err)
		}
	}
}

// FuzzParseTarget: parseTarget fails with a *uri.Error or gives a host, a
// port (70 when the URL has none) and the address to dial made of the
// two; written back as gopher://host:port/<type><selector> (RFC 4266
// section 2), the target parses to the same host, port, type and
// selector.
func FuzzParseTarget(f *testing.F) {
	for _, tt := range targetTests {
		f.Add(tt.in)
	}
	f.Add("gopher://h:/7s%09query%09+")
	f.Fuzz(func(t *testing.T, in string) {
		u, err := uri.Parse(in)
		if err != nil || u.Scheme != "gopher" {
			return
		}
		g, err := parseTarget(u)
		if err != nil {
			if ue := (*uri.Error)(nil); !errors.As(err, &ue) {
				t.Fatalf("parseTarget(%q): %v is not a *uri.Error", in, err)
			}
			return
		}
		host, port, err := net.SplitHostPort(g.addr)
		if g.host == "" || err != nil || host != g.host || port != strconv.Itoa(g.port) || u.Port == "" && g.port != 70 {
			t.Fatalf("parseTarget(%q) = %+v", in, g)
		}
		back := "gopher://" + net.JoinHostPort(strings.ReplaceAll(g.host, "%", "%25"), port) + "/" + uri.Escape(g.Type+g.Selector, "")
		u2, err := uri.Parse(back)
		if err != nil {
			t.Fatalf("%q written back as %q: %v", in, back, err)
		}
		g2, err := parseTarget(u2)
		if err != nil || g2.host != g.host || g2.port != g.port || g2.Type != g.Type || g2.Selector != g.Selector {
			t.Fatalf("%q gives %+v; written back as %q, %+v, %v", in, g, back, g2, err)
		}
	})
}
