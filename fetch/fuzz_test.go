package fetch

import (
	"context"
	"errors"
	"net"
	"sync/atomic"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// fake is a driver that counts calls and fails without any I/O.
type fake struct{ calls atomic.Int64 }

func (f *fake) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	f.calls.Add(1)
	return nil, proto.ErrNotFound
}

// FuzzDispatch throws arbitrary strings at the client's parse, safety and
// dispatch path. It must never panic, never reach a driver for a URL the
// policy refuses, never touch the network, and classify every failure.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{
		// Issue 3 acceptance URLs.
		"gopher://127.0.0.1:25/1",
		"ftp://127.0.0.1:6379/x",
		"ftp://h/a%0D%0ADELE%20x",
		"nntp://127.0.0.1:11211/g/1",
		"gopher://127.0.0.1:70/1a%0d%0aQUIT",
		"gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Aval%0D%0A.%0D%0A", // Gopher+ ASK form
		// One of every scheme (RFC 1738 section 3).
		"ftp://myname@host.dom/%2Fetc/motd;type=a",
		"http://u:p@h/a?b",
		"https://h:443/",
		"gopher://h/0a%09b%09+",
		"mailto:a@b",
		"news:*", "news:<id@h>", "nntp://h/g/1",
		"telnet://u:p@h:23/",
		"wais://h/db?q", "file:///etc/motd", "file://other/x",
		"prospero://h//pros/name;f=v",
		// Odd forms.
		"", ":", "//h", "h:", "%", "x://[::1]:0/", "ftp://h:65536/", "gopher://h/%00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := &fake{}
		reg := NewRegistry()
		for _, sc := range []string{"ftp", "http", "https", "gopher", "mailto", "news", "nntp", "telnet", "wais", "file", "prospero"} {
			reg.Register(sc, d)
		}
		var touched atomic.Int64
		c := &Client{
			Registry: reg,
			Resolver: resolverFunc(func() { touched.Add(1) }),
			Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
				touched.Add(1)
				return nil, errors.New("no network in fuzzing")
			},
		}
		_, err := c.Get(t.Context(), s)
		if err == nil {
			t.Fatalf("Get(%q) succeeded with a failing driver", s)
		}
		refused := false
		if u, perr := uri.Parse(s); perr != nil {
			refused = true
		} else if _, perr := c.policy().Evaluate(u); perr != nil {
			refused = true
			if !errors.Is(err, safety.ErrRefused) {
				t.Errorf("Get(%q) = %v, want a refusal", s, err)
			}
		}
		if refused && d.calls.Load() != 0 {
			t.Errorf("Get(%q) reached a driver although the policy refuses it", s)
		}
		if touched.Load() != 0 {
			t.Errorf("Get(%q) touched the network", s)
		}
		if code := ExitCode(err); code == ExitOK || code == ExitError {
			t.Errorf("ExitCode(Get(%q)) = %d (%v), want a classified failure", s, code, err)
		}
	})
}

type resolverFunc func()

func (r resolverFunc) LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error) {
	r()
	return nil, errors.New("no DNS in fuzzing")
}
