package telnet

import (
	"context"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// noDial is a Request whose dialer fails the test: Fetch must not connect.
func noDial(t *testing.T) *proto.Request {
	return &proto.Request{Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		t.Errorf("Fetch dialled %s %s; a telnet URL is advisory only", network, addr)
		return nil, errors.New("no dialling in this test")
	}}
}

// TestFetchAdvisory: RFC 1738 section 3.8, "clients accessing a telnet URL
// merely advise the user of the suggested username and password".
func TestFetchAdvisory(t *testing.T) {
	tests := []struct {
		url  string
		info map[string]any
		body string
	}{
		// 3.8: the whole <user>:<password> part can be omitted; port 23.
		{"telnet://host.example/", map[string]any{"service": "telnet", "host": "host.example", "port": 23, "password_suggested": false},
			"telnet service at host.example:23\n"},
		// 3.8: the final "/" may be omitted.
		{"telnet://host.example:2323", map[string]any{"service": "telnet", "host": "host.example", "port": 2323, "password_suggested": false},
			"telnet service at host.example:2323\n"},
		// 3.8: the password can be omitted.
		{"telnet://guest@host.example/", map[string]any{"service": "telnet", "host": "host.example", "port": 23, "user": "guest", "password_suggested": false},
			"telnet service at host.example:23; suggested user: guest\n"},
		// 3.8: user and password are advice; the password is never shown.
		{"telnet://guest:s3cret@host.example:2323/", map[string]any{"service": "telnet", "host": "host.example", "port": 2323, "user": "guest", "password_suggested": true},
			"telnet service at host.example:2323; suggested user: guest; a password was suggested (not shown)\n"},
		// 3.1: user and password are decoded; an empty password is present.
		{"telnet://a%40b:@HOST.example/", map[string]any{"service": "telnet", "host": "host.example", "port": 23, "user": "a@b", "password_suggested": true},
			"telnet service at host.example:23; suggested user: a@b; a password was suggested (not shown)\n"},
		// 3.1: an IPv6 literal (RFC 2732 form) is shown bracketed with its port.
		{"telnet://[::1]:2323/", map[string]any{"service": "telnet", "host": "::1", "port": 2323, "password_suggested": false},
			"telnet service at [::1]:2323\n"},
		// A user name that would drive the terminal is shown quoted.
		{"telnet://%1B%5B2J@host/", map[string]any{"service": "telnet", "host": "host", "port": 23, "user": "\x1b[2J", "password_suggested": false},
			"telnet service at host:23; suggested user: \"\\x1b[2J\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u := uri.MustParse(tt.url)
			resp, err := (&Driver{}).Fetch(t.Context(), u, noDial(t))
			if err != nil {
				t.Fatalf("Fetch(%q) = %v", tt.url, err)
			}
			if resp.Kind != proto.KindAdvisory {
				t.Errorf("Fetch(%q).Kind = %v, want KindAdvisory", tt.url, resp.Kind)
			}
			if !reflect.DeepEqual(resp.Info, tt.info) {
				t.Errorf("Fetch(%q).Info = %v, want %v", tt.url, resp.Info, tt.info)
			}
			body, _ := io.ReadAll(resp.Body)
			if string(body) != tt.body {
				t.Errorf("Fetch(%q) body = %q, want %q", tt.url, body, tt.body)
			}
			if resp.Size != int64(len(body)) {
				t.Errorf("Fetch(%q).Size = %d, want %d", tt.url, resp.Size, len(body))
			}
			if err := errors.Join(resp.Body.Close(), resp.Body.Close()); err != nil {
				t.Errorf("closing the body twice: %v", err)
			}
			if strings.Contains(string(body), "s3cret") {
				t.Errorf("Fetch(%q) body shows the password", tt.url)
			}
		})
	}
}

// TestFetchMalformed: a telnet URL has no path (3.8) and needs a host.
func TestFetchMalformed(t *testing.T) {
	for _, raw := range []string{
		"telnet://host/path",
		"telnet://host/?q",
		"telnet:///",
		"telnet://user:pass@/",
	} {
		_, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(raw), noDial(t))
		var ue *uri.Error
		if !errors.As(err, &ue) {
			t.Errorf("Fetch(%q) = %v, want a *uri.Error", raw, err)
		}
	}
}

// TestFetchUnsafe: a user or password that decodes to CR, LF or NUL is
// refused (RFC 1738 section 6: "CR and LF characters for telnet
// protocols"), with prototest's payloads, built without uri.Parse as a
// careless caller would. Nothing is dialled; the password never shows.
func TestFetchUnsafe(t *testing.T) {
	for _, p := range prototest.Payloads {
		esc := uri.Escape(p, "")
		for _, u := range []*uri.URL{
			{Scheme: "telnet", HasAuthority: true, Host: "host", User: uri.User(esc)},
			{Scheme: "telnet", HasAuthority: true, Host: "host", User: uri.UserPassword("guest", esc)},
		} {
			_, err := (&Driver{}).Fetch(t.Context(), u, noDial(t))
			if !errors.Is(err, proto.ErrUnsafeArgument) {
				t.Errorf("Fetch(%q) = %v, want proto.ErrUnsafeArgument", u.Redacted(), err)
			} else if strings.Contains(err.Error(), prototest.Marker) {
				t.Errorf("Fetch(%q) error shows the argument: %v", u.Redacted(), err)
			}
		}
	}
}

// TestFetchCancelled: a cancelled context is honoured.
func TestFetchCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := (&Driver{}).Fetch(ctx, uri.MustParse("telnet://host/"), noDial(t))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context = %v, want context.Canceled", err)
	}
}
