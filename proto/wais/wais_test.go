package wais

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

func gateway(tmpl string) *proto.Request {
	return &proto.Request{Options: map[string]string{OptionGateway: tmpl}}
}

// redirect runs Fetch and returns the gateway URL it redirects to.
func redirect(t *testing.T, raw, tmpl string) (string, error) {
	t.Helper()
	resp, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(raw), gateway(tmpl))
	if resp != nil {
		t.Errorf("Fetch(%q) returned a response; a gateway gives a redirect", raw)
	}
	var r *proto.Redirect
	if errors.As(err, &r) {
		if r.Reason != "gateway" {
			t.Errorf("Fetch(%q) redirect reason = %q, want %q", raw, r.Reason, "gateway")
		}
		return r.URL, nil
	}
	return "", err
}

// TestGateway: RFC 1738 section 3.9's three forms, mapped through section
// 4's gateway locators.
func TestGateway(t *testing.T) {
	tests := []struct {
		url, tmpl, want string
	}{
		// 3.9 form 2, a search.
		{"wais://host.example/db?query", "http://gw.example/wais/{host}/{database}?q={search}",
			"http://gw.example/wais/host.example/db?q=query"},
		// 3.9 form 3, a document: wtype and wpath (encoded per 2.2).
		{"wais://host.example/db/TEXT/doc%2Fid%20x", "http://gw.example/{database}/{wtype}/{wpath}",
			"http://gw.example/db/TEXT/doc/id%20x"},
		// 3.9 form 1, a database: absent parts expand to nothing.
		{"wais://host.example/db", "http://gw.example/{database}?q={search}&t={wtype}&p={wpath}",
			"http://gw.example/db?q=&t=&p="},
		// 3.9: the port defaults to 210.
		{"wais://host.example/db", "http://gw.example/{host}/{port}/{database}", "http://gw.example/host.example/210/db"},
		{"wais://host.example:2100/db", "http://gw.example/{port}", "http://gw.example/2100"},
		// In the query, reserved characters and "+" are encoded: a value
		// cannot add a parameter.
		{"wais://h/db?a+b%26c=d%20e%23f%3F", "http://gw.example/s?db={database}&q={search}",
			"http://gw.example/s?db=db&q=a%2Bb%26c%3Dd%20e%23f%3F"},
		// In the path "/" stays, "?", ";" and "#" are encoded.
		{"wais://h/db%3Bx/T/a%3Fb%23c", "http://gw.example/{database}/{wpath}", "http://gw.example/db%3Bx/a%3Fb%23c"},
		// {url}: the whole URL, encoded as one value.
		{"wais://h:2100/db?x%20y", "http://gw.example/?u={url}", "http://gw.example/?u=wais%3A%2F%2Fh%3A2100%2Fdb%3Fx%2520y"},
		// {host} in the server part: as written, IPv6 brackets kept.
		{"wais://[::1]/db", "http://{host}:8080/{database}", "http://[::1]:8080/db"},
		{"wais://[::1]/db", "http://gw.example/{host}", "http://gw.example/%3A%3A1"},
		// A gopher gateway (type 7 search); the template's own %09 stays.
		{"wais://h/db?two%20words", "gopher://gw.example/7/wais/{database}%09{search}",
			"gopher://gw.example/7/wais/db%09two%20words"},
		// 8-bit octets are encoded.
		{"wais://h/d%C3%A9j%C3%A0", "http://gw.example/{database}", "http://gw.example/d%C3%A9j%C3%A0"},
		// A template without placeholders is a fixed gateway.
		{"wais://h/db", "http://gw.example/all-wais", "http://gw.example/all-wais"},
	}
	for _, tt := range tests {
		t.Run(tt.url+" "+tt.tmpl, func(t *testing.T) {
			got, err := redirect(t, tt.url, tt.tmpl)
			if err != nil {
				t.Fatalf("Fetch(%q) with gateway %q = %v", tt.url, tt.tmpl, err)
			}
			if got != tt.want {
				t.Errorf("Fetch(%q) with gateway %q redirects to %q, want %q", tt.url, tt.tmpl, got, tt.want)
			}
			if x, err := Expand(tt.tmpl, uri.MustParse(tt.url)); err != nil || x != got {
				t.Errorf("Expand = %q, %v, want %q", x, err, got)
			}
		})
	}
}

// TestNoGateway: without a template there is no access method (exit 7).
func TestNoGateway(t *testing.T) {
	for _, req := range []*proto.Request{nil, {}, gateway("")} {
		_, err := (&Driver{}).Fetch(t.Context(), uri.MustParse("wais://host/db?query"), req)
		if !errors.Is(err, proto.ErrNoAccessMethod) {
			t.Errorf("Fetch without a gateway = %v, want proto.ErrNoAccessMethod", err)
		}
	}
}

// TestTemplateErrors: templates that cannot be used say where.
func TestTemplateErrors(t *testing.T) {
	tests := []struct {
		tmpl string
		off  int
	}{
		{"http://gw.example/{hsoname}", 18},           // prospero's, not wais's
		{"http://gw.example/{field:X}", 18},           // prospero's
		{"http://gw.example/{nosuch}?q={search}", 18}, // unknown
		{"http://gw.example/{}", 18},                  // empty
		{"http://gw.example/{database", 18},           // unclosed
		{"http://gw.example/}", 18},                   // unopened
		{"{url}", 0},                                  // placeholder as scheme
		{"ht{host}tp://x/", 2},                        // placeholder in the scheme
		{"http://{database}.gw.example/", 7},          // only host and port in the server part
		{"http://gw.example:{search}/", 18},
		{"/relative/{database}", 0}, // not absolute
		{"gw.example/{database}", 10},
		{":x", 0},
	}
	// An empty template is no template for Fetch (no gateway); as a
	// configuration value it is refused.
	if err := CheckTemplate(""); err == nil {
		t.Errorf("CheckTemplate(\"\") = nil, want a *TemplateError")
	}
	for _, tt := range tests {
		for name, err := range map[string]error{
			"CheckTemplate": CheckTemplate(tt.tmpl),
			"Fetch":         func() error { _, err := redirect(t, "wais://h/db", tt.tmpl); return err }(),
		} {
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Errorf("%s(%q) = %v, want a *TemplateError", name, tt.tmpl, err)
				continue
			}
			if te.Offset != tt.off || te.Template != tt.tmpl {
				t.Errorf("%s(%q): error at offset %d in %q, want offset %d", name, tt.tmpl, te.Offset, te.Template, tt.off)
			}
		}
	}
	// A template whose expansion is no URL ("%" not followed by hex).
	var te *TemplateError
	if _, err := redirect(t, "wais://h/db", "http://gw.example/%zz{database}"); !errors.As(err, &te) {
		t.Errorf("Fetch with a malformed template = %v, want a *TemplateError", err)
	}
	for _, ok := range []string{"http://gw.example/", "http://{host}:{port}/{database}/{wtype}/{wpath}?s={search}#{url}", "x:{url}"} {
		if err := CheckTemplate(ok); err != nil {
			t.Errorf("CheckTemplate(%q) = %v, want nil", ok, err)
		}
	}
}

// TestMalformed: a wais URL needs a database and has one of three forms
// (3.9); such errors are *uri.Error, with or without a gateway.
func TestMalformed(t *testing.T) {
	for _, raw := range []string{"wais://host/", "wais://host", "wais://host/db/TEXT", "wais://host/db/T/p?q", "http://host/db"} {
		for _, req := range []*proto.Request{nil, gateway("http://gw.example/{database}")} {
			_, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(raw), req)
			var ue *uri.Error
			if !errors.As(err, &ue) {
				t.Errorf("Fetch(%q) = %v, want a *uri.Error", raw, err)
			}
		}
	}
}

// TestUnsafe: a part that decodes to CR, LF or NUL is refused (RFC 1738
// section 6), with or without a gateway, before any expansion; URLs built
// without uri.Parse, as a careless caller would.
func TestUnsafe(t *testing.T) {
	for _, p := range prototest.Payloads {
		e := uri.Escape(p, "")
		for _, u := range []*uri.URL{
			{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db" + e},
			{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", RawQuery: e},
			{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db/" + e + "/p"},
			{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db/T/" + e},
			{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", User: uri.User(e)},
			{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", User: uri.UserPassword("u", e)},
		} {
			for _, req := range []*proto.Request{nil, gateway("http://gw.example/{database}?q={search}")} {
				_, err := (&Driver{}).Fetch(t.Context(), u, req)
				if !errors.Is(err, proto.ErrUnsafeArgument) {
					t.Errorf("Fetch(%q) = %v, want proto.ErrUnsafeArgument", u.Redacted(), err)
				}
				if err != nil && strings.Contains(err.Error(), prototest.Marker) {
					t.Errorf("Fetch(%q): the error repeats the value: %v", u.Redacted(), err)
				}
			}
		}
	}
}

// TestCancelled: a cancelled context is honoured.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := (&Driver{}).Fetch(ctx, uri.MustParse("wais://h/db"), gateway("http://gw.example/")); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context = %v, want context.Canceled", err)
	}
}
