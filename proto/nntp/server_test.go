package nntp

import (
	"context"
	"errors"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// splitServerTests: the news server setting is a host as in a URL's
// authority (RFC 3986 section 3.2.2: an IPv6 address in brackets) with an
// optional port, 119 by default (RFC 3977 section 3); a bare IPv6 address
// is taken too, as NNTPSERVER often holds one.
var splitServerTests = []struct {
	in   string
	host string
	port int
	ok   bool
}{
	{"news.example.org", "news.example.org", 119, true},
	{"news.example.org:563", "news.example.org", 563, true},
	{"127.0.0.1:1190", "127.0.0.1", 1190, true},
	{"[::1]:1190", "::1", 1190, true},
	{"[::1]", "::1", 119, true},
	{"::1", "::1", 119, true},
	{"", "", 0, false},
	{":119", "", 0, false},         // no host
	{"host:0", "", 0, false},       // port 1..65535
	{"host:65536", "", 0, false},   // port 1..65535
	{"host:nntp", "", 0, false},    // a number, not a service name
	{"host:", "host", 119, true},   // RFC 3986 3.2.3: an empty port is the default
	{"host:+119", "", 0, false},    // digits only
	{"user@host", "", 0, false},    // no user information
	{"host/group", "", 0, false},   // no path
	{"ho st", "", 0, false},        // no white space
	{"host\r\nQUIT", "", 0, false}, // no line end
	{"[[::1]]", "", 0, false},      // one pair of brackets
}

func isDigits(s string) bool { return strings.Trim(s, "0123456789") == "" }

func TestSplitServer(t *testing.T) {
	for _, tt := range splitServerTests {
		host, port, err := splitServer(tt.in)
		if host != tt.host || port != tt.port || (err == nil) != tt.ok {
			t.Errorf("splitServer(%q) = %q, %d, %v; want %q, %d, ok %v", tt.in, host, port, err, tt.host, tt.port, tt.ok)
		}
		if err != nil && !errors.Is(err, proto.ErrNeedInput) {
			t.Errorf("splitServer(%q): %v does not wrap proto.ErrNeedInput", tt.in, err)
		}
	}
}

// FuzzSplitServer: an accepted setting gives a host without white space,
// line ends, NUL, "/", "@" or brackets and a port in 1..65535, and
// host:port written back with net.JoinHostPort gives the same; a refused
// one wraps proto.ErrNeedInput; a setting with a port agrees with
// net.SplitHostPort, the port's digits read as a decimal number.
func FuzzSplitServer(f *testing.F) {
	for _, tt := range splitServerTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		host, port, err := splitServer(in)
		if err != nil {
			if !errors.Is(err, proto.ErrNeedInput) || host != "" || port != 0 {
				t.Fatalf("splitServer(%q) = %q, %d, %v", in, host, port, err)
			}
			return
		}
		if host == "" || strings.ContainsAny(host, " \t\r\n\x00/@[]") || port < 1 || port > 65535 {
			t.Fatalf("splitServer(%q) = %q, %d", in, host, port)
		}
		back := net.JoinHostPort(host, strconv.Itoa(port))
		if h, p, err := splitServer(back); h != host || p != port || err != nil {
			t.Fatalf("splitServer(%q) = %q, %d; written back %q gives %q, %d, %v", in, host, port, back, h, p, err)
		}
		if h, p, err := net.SplitHostPort(in); err == nil && p != "" && (h != host || !isDigits(p) || strconv.Itoa(port) != strings.TrimLeft(p, "0")) {
			t.Fatalf("splitServer(%q) = %q, %d; net.SplitHostPort %q, %q", in, host, port, h, p)
		}
	})
}

// FuzzArticleNumbers: the numbers ArticleNumbers gives from a LISTGROUP
// reply (RFC 3977 section 6.1.2: 211, then one article number a line, then
// "." alone) are those of the list within the range asked for, each once,
// in order, whatever the order and repeats of the list; a line that is
// not a number, or more lines than the range holds, is a
// *proto.ProtocolError (RFC 3977 section 3.1.1: the list ends at its "."
// line, a line beginning with "." having lost one).
func FuzzArticleNumbers(f *testing.F) {
	f.Add("3\n1\n 2 \n3", uint8(0), uint8(5))
	f.Add("9\n..5\n.\n7", uint8(1), uint8(9))
	f.Add("x", uint8(1), uint8(1))
	f.Add("1\n2\n3", uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, list string, a, b uint8) {
		first := 1 + int64(a%20)
		last := first + int64(b%20)
		lines := strings.Split(list, "\n")
		var want []int64
		bad, n := false, 0
		for _, l := range append(lines, ".") {
			if l == "." {
				break
			}
			if len(l) > 100 {
				return
			}
			n++
			v, err := strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(l, ".")), 10, 64)
			if !isDigits(strings.TrimSpace(strings.TrimPrefix(l, "."))) || err != nil || v < 1 {
				bad = true
			} else if v >= first && v <= last && !slices.Contains(want, v) {
				want = append(want, v)
			}
		}
		slices.Sort(want)
		s, _ := scriptSession(t, &Driver{}, append(append([]string{"211 list follows"}, lines...), ".")...)
		got, err := s.ArticleNumbers(context.Background(), "g", first, last)
		if bad || int64(n) > last-first+1 {
			if pe := (*proto.ProtocolError)(nil); !errors.As(err, &pe) {
				t.Fatalf("ArticleNumbers(%d, %d) of %q = %v, %v; want a *proto.ProtocolError", first, last, lines, got, err)
			}
			return
		}
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("ArticleNumbers(%d, %d) of %q = %v, %v; want %v", first, last, lines, got, err, want)
		}
	})
}
