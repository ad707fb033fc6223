package prospero

import (
	"context"
	"errors"
	"reflect"
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

// TestView: the parts the gateway placeholders come from (RFC 1738
// section 3.11), as the uri view decodes them.
func TestView(t *testing.T) {
	tests := []struct {
		url     string
		hsoname string
		fields  []uri.Field
	}{
		// 3.11: "many <hsoname>s begin with a slash, in which case the host
		// or port will be followed by a double slash".
		{"prospero://host.dom//pros/name", "/pros/name", nil},
		// 3.11: "the OBJECT-VERSION field can be specified".
		{"prospero://host.dom//pros/name;OBJECT-VERSION=3", "/pros/name", []uri.Field{{Name: "OBJECT-VERSION", Value: "3"}}},
		// 3.11: several pairs, each separated by ";"; values decoded; "?"
		// is data.
		{"prospero://h:1526/a%3Bb?c;X=1;Y=a%20b", "a;b?c", []uri.Field{{Name: "X", Value: "1"}, {Name: "Y", Value: "a b"}}},
	}
	for _, tt := range tests {
		v, err := uri.MustParse(tt.url).Prospero()
		if err != nil {
			t.Fatalf("Prospero(%q) = %v", tt.url, err)
		}
		if v.HSOName != tt.hsoname || !reflect.DeepEqual(v.Fields, tt.fields) {
			t.Errorf("Prospero(%q) = %q %v, want %q %v", tt.url, v.HSOName, v.Fields, tt.hsoname, tt.fields)
		}
	}
}

// TestGateway: section 3.11's URLs mapped through section 4's gateway
// locators.
func TestGateway(t *testing.T) {
	tests := []struct {
		url, tmpl, want string
	}{
		{"prospero://host.dom//pros/name;OBJECT-VERSION=3",
			"http://gw.example/prospero/{host}{hsoname}?version={field:OBJECT-VERSION}",
			"http://gw.example/prospero/host.dom/pros/name?version=3"},
		// Field names compare without regard to case; absent fields are empty.
		{"prospero://host.dom//pros/name;object-version=3", "http://gw.example/x?v={field:OBJECT-VERSION}&w={field:NONE}",
			"http://gw.example/x?v=3&w="},
		// The first of repeated fields.
		{"prospero://h/n;A=1;A=2", "http://gw.example/{field:a}", "http://gw.example/1"},
		// 3.11: the port defaults to 1525.
		{"prospero://h/n", "http://gw.example/{host}/{port}/{hsoname}", "http://gw.example/h/1525/n"},
		{"prospero://h:1526/n", "http://{host}:8080/{port}", "http://h:8080/1526"},
		// In the path "/" stays; ";", "?", "#" and "%" are encoded.
		{"prospero://h//a%3Bb/c%3Fd%23e%25", "http://gw.example/p{hsoname}", "http://gw.example/p/a%3Bb/c%3Fd%23e%25"},
		// In the query "/" and "+" are encoded too.
		{"prospero://h//a+b/c%26d=e", "http://gw.example/?n={hsoname}", "http://gw.example/?n=%2Fa%2Bb%2Fc%26d%3De"},
		// {url}: the URL as one value, without user information.
		{"prospero://h//n;V=1", "http://gw.example/?u={url}", "http://gw.example/?u=prospero%3A%2F%2Fh%2F%2Fn%3BV%3D1"},
		{"prospero://user:secret@h//n", "http://gw.example/?u={url}", "http://gw.example/?u=prospero%3A%2F%2Fh%2F%2Fn"},
		// A gopher gateway.
		{"prospero://h//pros/name", "gopher://gw.example/1/prospero{hsoname}", "gopher://gw.example/1/prospero/pros/name"},
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
			if strings.Contains(got, "secret") {
				t.Errorf("the gateway URL carries the password")
			}
		})
	}
}

// TestNoGateway: without a template there is no access method (exit 7).
func TestNoGateway(t *testing.T) {
	for _, req := range []*proto.Request{nil, {}, gateway("")} {
		_, err := (&Driver{}).Fetch(t.Context(), uri.MustParse("prospero://host//pros/name;OBJECT-VERSION=3"), req)
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
		{"http://gw.example/{database}", 18},  // wais's, not prospero's
		{"http://gw.example/{field}", 18},     // field needs a name
		{"http://gw.example/{field:}", 18},    // ... a non-empty one
		{"http://gw.example/{hsoname:x}", 18}, // only field takes an argument
		{"http://gw.example/{hsoname", 18},    // unclosed
		{"http://gw.example/a}", 19},          // unopened
		{"http://{hsoname}/", 7},              // only host and port in the server part
		{"{url}", 0},                          // placeholder as scheme
		{"/relative", 0},                      // not absolute
	}
	for _, tt := range tests {
		for name, err := range map[string]error{
			"CheckTemplate": CheckTemplate(tt.tmpl),
			"Fetch":         func() error { _, err := redirect(t, "prospero://h/n", tt.tmpl); return err }(),
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
	for _, ok := range []string{"http://gw.example/", "http://{host}:{port}/p{hsoname}?v={field:OBJECT-VERSION}#{url}"} {
		if err := CheckTemplate(ok); err != nil {
			t.Errorf("CheckTemplate(%q) = %v, want nil", ok, err)
		}
	}
}

// TestMalformed: a field must be name=value (3.11); such errors are
// *uri.Error.
func TestMalformed(t *testing.T) {
	for _, raw := range []string{"prospero://h/n;novalue", "prospero://h/n;=v", "wais://h/db"} {
		for _, req := range []*proto.Request{nil, gateway("http://gw.example/{hsoname}")} {
			_, err := (&Driver{}).Fetch(t.Context(), uri.MustParse(raw), req)
			var ue *uri.Error
			if !errors.As(err, &ue) {
				t.Errorf("Fetch(%q) = %v, want a *uri.Error", raw, err)
			}
		}
	}
}

// TestUnsafe: a part that decodes to CR, LF or NUL is refused (RFC 1738
// section 6), with or without a gateway; URLs built without uri.Parse, as
// a careless caller would.
func TestUnsafe(t *testing.T) {
	for _, p := range prototest.Payloads {
		e := uri.Escape(p, "")
		for _, u := range []*uri.URL{
			{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "//n" + e},
			{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n;" + e + "=1"},
			{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n;OBJECT-VERSION=" + e},
			{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n", RawQuery: e},
			{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n", User: uri.User(e)},
			{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n", User: uri.UserPassword("u", e)},
		} {
			for _, req := range []*proto.Request{nil, gateway("http://gw.example/{hsoname}?v={field:OBJECT-VERSION}")} {
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
	if _, err := (&Driver{}).Fetch(ctx, uri.MustParse("prospero://h/n"), gateway("http://gw.example/")); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context = %v, want context.Canceled", err)
	}
}
