package gateway_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway"
	"github.com/rfc1738/fetch/proto/gateway/gatewaytest"
	"github.com/rfc1738/fetch/uri"
)

// FuzzExpand checks the template parser and the expansion on any template,
// any URL and any values, control bytes included (the scheme's View gives
// no parts to refuse, so every value reaches the engine): no panic; the
// only errors are a *TemplateError and, for a user name or password with
// CR, LF or NUL, proto.ErrUnsafeArgument; a result is a well-formed URL
// without control characters (gatewaytest.CheckExpansion). The fixed
// template below must always expand, and each value must come back
// exactly from its place (gatewaytest.CheckFixed).
func FuzzExpand(f *testing.F) {
	for _, s := range [][5]string{
		{"http://gw.example/{database}?q={search}", "wais://h/db?query", "db", "query", ""},
		{"http://{host}:{port}/{database}/{wtype}/{wpath}", "wais://[::1]:2100/db/TEXT/a%2Fb", "db", "", ""},
		{"gopher://gw.example/7{database}%09{search}", "wais://h/db?a%09b", "db", "a\tb", ""},
		{"x:{url}#{search}", "wais://h/db?%26%3D%2B%23", "db", "&=+#", ""},
		{"http://gw.example/p{hsoname}?v={field:OBJECT-VERSION}", "prospero://host.dom//pros/name;OBJECT-VERSION=3", "/pros/name", "", "3"},
		{"http://{host}:{port}/{hsoname}", "prospero://[::1]:1526/a%3Bb;x=%26", "a;b", "", "&"},
		{"x:{url}#{field:x}", "prospero://h/n;X=%23%3F", "n", "", "#?"},
		{"http://gw/{nosuch}", "wais://h/db", "", "", ""},
		{"http://gw/{field:}", "prospero://h/n", "", "", ""},
		{"{", "wais://h/d%0Ab", "d\nb", "", ""},
		{"http://gw/}{", "wais://h/", "", "", ""},
		{"http://gw.example/%zz{database}", "http://user:pw@h:1/p?q#f", "\x00\r\n", "\x7f \t", "%+/"},
		{"http://gw.example/", "ftp://u:%0D@h/", "", "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	const fixed = "http://gw.example/d/{database}/h/{host}/{port}?s={search}&f={field:X}#{url}"
	f.Fuzz(func(t *testing.T, tmpl, raw, database, search, field string) {
		u, err := uri.Parse(raw)
		if err != nil {
			return
		}
		s := &gateway.Scheme{
			Name:         "test",
			Placeholders: []string{"database", "search", "wtype", "wpath", "hsoname", "field:"},
			View: func(*uri.URL) ([]gateway.Part, gateway.Values, error) {
				return nil, func(name, _ string) string {
					switch name {
					case "search":
						return search
					case "field":
						return field
					}
					return database // {database}, {wtype}, {wpath}, {hsoname}
				}, nil
			},
		}
		out, err := s.Expand(tmpl, u)
		var te *gateway.TemplateError
		if err != nil && !errors.As(err, &te) && !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Fatalf("Expand(%q) = %v: unexpected error type", tmpl, err)
		}
		gatewaytest.CheckExpansion(t, tmpl, out, err)

		out, err = s.Expand(fixed, u)
		if errors.Is(err, proto.ErrUnsafeArgument) {
			return
		}
		if err != nil {
			t.Fatalf("Expand(%q, %q) = %v, want a URL", fixed, raw, err)
		}
		gatewaytest.CheckFixed(t, fixed, u, out, gatewaytest.Want{
			Path:  fmt.Sprintf("/d/%s/h/%s/%d", database, u.Hostname(), u.PortNumber()),
			Query: [][2]string{{"s", search}, {"f", field}},
		})
	})
}
