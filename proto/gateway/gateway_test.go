package gateway_test

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// newScheme returns a scheme with the placeholders of wais (RFC 1738
// section 3.9) and prospero (section 3.11), so that the cases read as they
// would in those drivers. Its View gives m's values, keyed "name" or
// "name:ARG", and m's entries as the parts, in key order. It reports a
// call of the values for a placeholder every scheme has, which the engine
// must fill itself.
func newScheme(t *testing.T, m map[string]string) *gateway.Scheme {
	return &gateway.Scheme{
		Name:         "test",
		Protocol:     "the test protocol",
		Placeholders: []string{"database", "search", "wtype", "wpath", "hsoname", "field:"},
		View: func(*uri.URL) ([]gateway.Part, gateway.Values, error) {
			var parts []gateway.Part
			for _, k := range slices.Sorted(maps.Keys(m)) {
				parts = append(parts, gateway.Part{Name: k, Value: m[k]})
			}
			return parts, func(name, arg string) string {
				switch name {
				case "host", "port", "url":
					t.Errorf("values called for {%s}", name)
				}
				if arg != "" {
					return m[name+":"+arg]
				}
				return m[name]
			}, nil
		},
	}
}

func request(tmpl string) *proto.Request {
	return &proto.Request{Options: proto.Options{Gateways: map[string]string{"test": tmpl}}}
}

// TestExpand: each value is escaped for its place (RFC 1738 section 2.2;
// section 4's gateway locators).
func TestExpand(t *testing.T) {
	tests := []struct {
		url, tmpl string
		values    map[string]string
		want      string
	}{
		// {port}: as given, or the scheme's default (3.9: 210).
		{"wais://host.example:2100/db", "http://gw.example/{port}", nil, "http://gw.example/2100"},
		{"wais://host.example/db", "http://gw.example/{port}", nil, "http://gw.example/210"},
		{"prospero://h:1526/n", "http://{host}:8080/{port}", nil, "http://h:8080/1526"},
		// In the query, reserved characters and "+" are encoded: a value
		// cannot add a parameter.
		{"wais://h/db?a+b%26c=d%20e%23f%3F", "http://gw.example/s?db={database}&q={search}",
			map[string]string{"database": "db", "search": "a+b&c=d e#f?"},
			"http://gw.example/s?db=db&q=a%2Bb%26c%3Dd%20e%23f%3F"},
		{"prospero://h//a+b/c%26d=e", "http://gw.example/?n={hsoname}",
			map[string]string{"hsoname": "/a+b/c&d=e"}, "http://gw.example/?n=%2Fa%2Bb%2Fc%26d%3De"},
		// After "#" too.
		{"wais://h/db", "http://gw.example/#{search}", map[string]string{"search": "a#b?c+d"}, "http://gw.example/#a%23b%3Fc%2Bd"},
		// In the path "/" stays; "?", ";", "#" and "%" are encoded, "+" is
		// not (it means nothing there).
		{"wais://h/db%3Bx/T/a%3Fb%23c", "http://gw.example/{database}/{wpath}",
			map[string]string{"database": "db;x", "wpath": "a?b#c"}, "http://gw.example/db%3Bx/a%3Fb%23c"},
		{"prospero://h//a%3Bb/c%3Fd%23e%25", "http://gw.example/p{hsoname}",
			map[string]string{"hsoname": "/a;b/c?d#e%"}, "http://gw.example/p/a%3Bb/c%3Fd%23e%25"},
		{"wais://h/a+b", "http://gw.example/{database}", map[string]string{"database": "a+b"}, "http://gw.example/a+b"},
		// Control characters and space are encoded everywhere.
		{"wais://h/db", "http://gw.example/{database}?q={search}",
			map[string]string{"database": "a\tb\x01 ", "search": "\x7f\t"}, "http://gw.example/a%09b%01%20?q=%7F%09"},
		// {url}: the whole URL, encoded as one value, without user
		// information or fragment.
		{"wais://h:2100/db?x%20y", "http://gw.example/?u={url}", nil, "http://gw.example/?u=wais%3A%2F%2Fh%3A2100%2Fdb%3Fx%2520y"},
		{"prospero://h//n;V=1", "http://gw.example/?u={url}", nil, "http://gw.example/?u=prospero%3A%2F%2Fh%2F%2Fn%3BV%3D1"},
		{"prospero://user:secret@h//n", "http://gw.example/?u={url}", nil, "http://gw.example/?u=prospero%3A%2F%2Fh%2F%2Fn"},
		{"wais://h/db#frag", "http://gw.example/{url}", nil, "http://gw.example/wais%3A//h/db"},
		// {host} in the server part: as written, IPv6 brackets kept;
		// elsewhere without brackets, encoded.
		{"wais://[::1]/db", "http://{host}:8080/{database}", map[string]string{"database": "db"}, "http://[::1]:8080/db"},
		{"wais://[::1]/db", "http://gw.example/{host}", nil, "http://gw.example/%3A%3A1"},
		// A gopher gateway (type 7 search); the template's own %09 stays.
		{"wais://h/db?two%20words", "gopher://gw.example/7/wais/{database}%09{search}",
			map[string]string{"database": "db", "search": "two words"}, "gopher://gw.example/7/wais/db%09two%20words"},
		{"prospero://h//pros/name", "gopher://gw.example/1/prospero{hsoname}",
			map[string]string{"hsoname": "/pros/name"}, "gopher://gw.example/1/prospero/pros/name"},
		// 8-bit octets are encoded.
		{"wais://h/d%C3%A9j%C3%A0", "http://gw.example/{database}", map[string]string{"database": "déjà"}, "http://gw.example/d%C3%A9j%C3%A0"},
		// A placeholder with an argument gets its own value; an absent
		// value expands to nothing.
		{"prospero://h/n", "http://gw.example/?v={field:V}&w={field:W}&s={search}",
			map[string]string{"field:V": "1"}, "http://gw.example/?v=1&w=&s="},
		// An opaque template: the value is in the path.
		{"wais://h/db", "x:{database}", map[string]string{"database": "a/b c"}, "x:a/b%20c"},
		// A template without placeholders is a fixed gateway.
		{"wais://h/db", "http://gw.example/all-wais", nil, "http://gw.example/all-wais"},
	}
	for _, tt := range tests {
		t.Run(tt.url+" "+tt.tmpl, func(t *testing.T) {
			s, u := newScheme(t, tt.values), uri.MustParse(tt.url)
			got, err := s.Expand(tt.tmpl, u)
			if err != nil || got != tt.want {
				t.Fatalf("Expand(%q, %q) = %q, %v, want %q", tt.tmpl, tt.url, got, err, tt.want)
			}
			if strings.Contains(got, "secret") {
				t.Errorf("the gateway URL carries the password")
			}
			resp, err := s.Fetch(t.Context(), u, request(tt.tmpl))
			var r *proto.Redirect
			if resp != nil || !errors.As(err, &r) || r.URL != tt.want || r.Reason != "gateway" {
				t.Errorf("Fetch = %v, %v, want a *proto.Redirect to %q (reason gateway)", resp, err, tt.want)
			}
		})
	}
}

// TestTemplateErrors: templates that cannot be used say where.
func TestTemplateErrors(t *testing.T) {
	tests := []struct {
		tmpl string
		off  int
	}{
		{"http://gw.example/{nosuch}?q={search}", 18}, // unknown
		{"http://gw.example/{}", 18},                  // empty
		{"http://gw.example/{database", 18},           // unclosed
		{"http://gw.example/{hsoname", 18},
		{"http://gw.example/}", 18}, // unopened
		{"http://gw.example/a}", 19},
		{"http://gw.example/{field}", 18},     // field needs a name
		{"http://gw.example/{field:}", 18},    // ... a non-empty one
		{"http://gw.example/{hsoname:x}", 18}, // only field takes an argument
		{"http://gw.example/{host:x}", 18},
		{"{url}", 0},                         // placeholder as scheme
		{"ht{host}tp://x/", 2},               // placeholder in the scheme
		{"http://{database}.gw.example/", 7}, // only host and port in the server part
		{"http://{hsoname}/", 7},
		{"http://gw.example:{search}/", 18},
		{"/relative/{database}", 0}, // not absolute
		{"/relative", 0},
		{"gw.example/{database}", 10},
		{"?q={search}", 0},
		{":x", 0},
		{"", 0}, // no template is no gateway for Redirect; as configuration it is refused
	}
	s, u := newScheme(t, nil), uri.MustParse("wais://h/db")
	for _, tt := range tests {
		_, expandErr := s.Expand(tt.tmpl, u)
		for name, err := range map[string]error{"CheckTemplate": s.CheckTemplate(tt.tmpl), "Expand": expandErr} {
			var te *gateway.TemplateError
			if !errors.As(err, &te) {
				t.Errorf("%s(%q) = %v, want a *TemplateError", name, tt.tmpl, err)
				continue
			}
			if te.Offset != tt.off || te.Template != tt.tmpl || te.Scheme != "test" {
				t.Errorf("%s(%q): error at offset %d in %q for %q, want offset %d for %q", name, tt.tmpl, te.Offset, te.Template, te.Scheme, tt.off, "test")
			}
		}
	}
	// A template whose expansion is no URL ("%" not followed by hex).
	const bad = "http://gw.example/%zz{database}"
	if err := s.CheckTemplate(bad); err != nil {
		t.Errorf("CheckTemplate(%q) = %v, want nil (only the expansion is malformed)", bad, err)
	}
	var te *gateway.TemplateError
	if _, err := s.Expand(bad, u); !errors.As(err, &te) || te.Offset != -1 {
		t.Errorf("Expand(%q) = %v, want a *TemplateError at offset -1", bad, err)
	}
	for _, ok := range []string{
		"http://gw.example/", "x:{url}",
		"http://{host}:{port}/{database}/{wtype}/{wpath}?s={search}#{url}",
		"http://{host}:{port}/p{hsoname}?v={field:OBJECT-VERSION}#{url}",
	} {
		if err := s.CheckTemplate(ok); err != nil {
			t.Errorf("CheckTemplate(%q) = %v, want nil", ok, err)
		}
	}
}

// TestTemplateErrorMessage: the message has the scheme's prefix ("gateway"
// when there is none), and says where when it can.
func TestTemplateErrorMessage(t *testing.T) {
	tests := []struct {
		err  *gateway.TemplateError
		want string
	}{
		{&gateway.TemplateError{Scheme: "wais", Template: "{", Offset: 0, Reason: "r"}, `wais: gateway template "{": r at offset 0`},
		{&gateway.TemplateError{Scheme: "wais", Template: "x:%zz", Offset: -1, Reason: "r"}, `wais: gateway template "x:%zz": r`},
		{&gateway.TemplateError{Template: "{", Offset: 0, Reason: "r"}, `gateway: gateway template "{": r at offset 0`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

// TestNoGateway: without a template there is no access method (exit 7);
// the template is looked up under the scheme's own name only.
func TestNoGateway(t *testing.T) {
	s, u := newScheme(t, nil), uri.MustParse("wais://host/db?query")
	for _, req := range []*proto.Request{nil, {}, request(""), {Options: proto.Options{Gateways: map[string]string{"other": "http://gw.example/"}}}} {
		if resp, err := s.Fetch(t.Context(), u, req); resp != nil || !errors.Is(err, proto.ErrNoAccessMethod) {
			t.Errorf("Fetch without a gateway = %v, %v, want proto.ErrNoAccessMethod", resp, err)
		}
	}
	var te *gateway.TemplateError
	if _, err := s.Fetch(t.Context(), u, request("http://gw.example/{nosuch}")); !errors.As(err, &te) {
		t.Errorf("Fetch with a bad template = %v, want a *TemplateError", err)
	}
}

// TestUnsafe: a part, user name or password that holds CR, LF or NUL is
// refused (RFC 1738 section 6), with or without a gateway, without
// repeating the value.
func TestUnsafe(t *testing.T) {
	clean := newScheme(t, map[string]string{"database": "db\tx y", "search": ""})
	for _, raw := range []string{"wais://h/db", "wais://user:pass@h/db"} {
		if _, err := clean.Expand("http://gw.example/{database}", uri.MustParse(raw)); err != nil {
			t.Errorf("Expand(%q) with clean parts = %v, want nil", raw, err)
		}
	}
	for _, p := range prototest.Payloads {
		e := uri.Escape(p, "")
		h := &uri.URL{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db"}
		for _, tt := range []struct {
			what  string
			parts map[string]string
			u     *uri.URL
		}{
			{"the only part", map[string]string{"database": p}, h},
			{"the second part", map[string]string{"database": "db", "search": p}, h},
			{"the user name", nil, &uri.URL{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", User: uri.User(e)}},
			{"the password", nil, &uri.URL{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", User: uri.UserPassword("u", e)}},
		} {
			s := newScheme(t, tt.parts)
			_, expandErr := s.Expand("http://gw.example/{database}", tt.u)
			errs := map[string]error{"Expand": expandErr}
			for name, req := range map[string]*proto.Request{
				"Fetch without a gateway": nil,
				"Fetch with a gateway":    request("http://gw.example/{database}?q={search}"),
			} {
				_, errs[name] = s.Fetch(t.Context(), tt.u, req)
			}
			for name, err := range errs {
				if !errors.Is(err, proto.ErrUnsafeArgument) {
					t.Errorf("%s with %q in %s = %v, want proto.ErrUnsafeArgument", name, e, tt.what, err)
				}
				if err != nil && strings.Contains(err.Error(), prototest.Marker) {
					t.Errorf("%s with %q in %s: the error repeats the value: %v", name, e, tt.what, err)
				}
			}
		}
	}
}

// TestView: an error from View comes back as it is; a cancelled context
// is honoured before View is called.
func TestView(t *testing.T) {
	s := newScheme(t, nil)
	malformed := &uri.Error{Component: "path", Err: errors.New("test: malformed")}
	s.View = func(*uri.URL) ([]gateway.Part, gateway.Values, error) { return nil, nil, malformed }
	u := uri.MustParse("wais://h/db")
	_, fetchErr := s.Fetch(t.Context(), u, request("http://gw.example/"))
	_, expandErr := s.Expand("http://gw.example/", u)
	for name, err := range map[string]error{"Fetch": fetchErr, "Expand": expandErr} {
		if !errors.Is(err, malformed) {
			t.Errorf("%s with a failing View = %v, want its error", name, err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Fetch(ctx, u, request("http://gw.example/")); !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context = %v, want context.Canceled", err)
	}
}
