// Package gatewaytest holds the checks that every gateway driver (one whose
// Fetch maps its URL onto a template with package gateway) passes. A
// driver's test describes its scheme in a Fixture and calls Run:
//
//	func TestDriver(t *testing.T) {
//		gatewaytest.Run(t, &wais.Driver{}, gatewaytest.Fixture{
//			Scheme: "wais",
//			Expand: wais.Expand,
//			...
//		})
//	}
//
// Run checks, each in its own subtest:
//
//   - "Cases": each case's URL and template give the wanted gateway URL,
//     through Fetch (a *proto.Redirect with Reason "gateway" and no
//     response) and through the driver's Expand alike, and never carries
//     the URL's password.
//   - "TemplateErrors": each bad template is a *gateway.TemplateError at
//     its offset, from CheckTemplate and from Fetch; the empty template is
//     refused by CheckTemplate; each good template is accepted.
//   - "NoGateway": without a template (nil Request, no Gateways, "") Fetch
//     fails with proto.ErrNoAccessMethod (exit 7).
//   - "Malformed": each malformed URL is a *uri.Error, with or without a
//     gateway.
//   - "Unsafe": a part that decodes to CR, LF or NUL is refused with
//     proto.ErrUnsafeArgument (RFC 1738 section 6), with or without a
//     gateway, and the error does not repeat the value.
//   - "Cancelled": a cancelled context is honoured.
package gatewaytest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// Case is a URL of the scheme, a gateway template and the gateway URL they
// give.
type Case struct {
	URL, Template, Want string
}

// BadTemplate is a template that cannot be used and the offset its
// *gateway.TemplateError names. Offset -1 is a template that parses
// (CheckTemplate accepts it) but whose expansion for Fixture.URL is not a
// well-formed URL.
type BadTemplate struct {
	Template string
	Offset   int
}

// Fixture describes a gateway driver's scheme. Every field is required.
type Fixture struct {
	// Scheme is the scheme name, the key of the gateway template in
	// proto.Options.Gateways.
	Scheme string
	// Expand and CheckTemplate are the driver package's functions.
	Expand        func(tmpl string, u *uri.URL) (string, error)
	CheckTemplate func(tmpl string) error

	// URL is a well-formed URL of the scheme.
	URL string
	// Cases are expansions of the scheme's own placeholders.
	Cases []Case
	// BadTemplates are templates refused for this scheme (a placeholder
	// of another scheme, say); GoodTemplates use all of its placeholders.
	BadTemplates  []BadTemplate
	GoodTemplates []string

	// Malformed are URLs the scheme's view of package uri refuses.
	Malformed []string
	// Unsafe returns URLs of the scheme (built without uri.Parse, as a
	// careless caller would) with escaped in each decoded part in turn,
	// user name and password included.
	Unsafe func(escaped string) []*uri.URL
	// Gateways are templates the refusals (Malformed, Unsafe) are checked
	// with, besides no template.
	Gateways []string
}

// Request returns a Request whose Options hold tmpl as the gateway of
// scheme.
func Request(scheme, tmpl string) *proto.Request {
	return &proto.Request{Options: proto.Options{Gateways: map[string]string{scheme: tmpl}}}
}

// Redirect runs d.Fetch for raw with tmpl as the gateway of scheme and
// returns the gateway URL it redirects to, or its error. It reports a
// response and a redirect whose Reason is not "gateway".
func Redirect(t testing.TB, d proto.Driver, scheme, raw, tmpl string) (string, error) {
	t.Helper()
	resp, err := d.Fetch(t.Context(), uri.MustParse(raw), Request(scheme, tmpl))
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

// CheckExpansion reports (fatally) an Expand result that breaks its
// contract: an error that is not a *gateway.TemplateError, a *uri.Error or
// one wrapping proto.ErrUnsafeArgument; or a result that is not a
// well-formed URL or holds a control byte.
func CheckExpansion(t testing.TB, tmpl, out string, err error) {
	t.Helper()
	if err != nil {
		var te *gateway.TemplateError
		var ue *uri.Error
		if !errors.As(err, &te) && !errors.As(err, &ue) && !errors.Is(err, proto.ErrUnsafeArgument) {
			t.Fatalf("Expand(%q) = %v: unexpected error type", tmpl, err)
		}
		return
	}
	if _, perr := uri.Parse(out); perr != nil {
		t.Fatalf("Expand(%q) = %q, which does not parse: %v", tmpl, out, perr)
	}
	for i := 0; i < len(out); i++ {
		if uri.IsControl(out[i]) {
			t.Fatalf("Expand(%q) = %q holds control byte %#x", tmpl, out, out[i])
		}
	}
}

// Run runs the checks listed in the package documentation on d.
func Run(t *testing.T, d proto.Driver, f Fixture) {
	t.Run("Cases", func(t *testing.T) { cases(t, d, f) })
	t.Run("TemplateErrors", func(t *testing.T) { templateErrors(t, d, f) })
	t.Run("NoGateway", func(t *testing.T) {
		for _, req := range []*proto.Request{nil, {}, Request(f.Scheme, "")} {
			_, err := d.Fetch(t.Context(), uri.MustParse(f.URL), req)
			if !errors.Is(err, proto.ErrNoAccessMethod) {
				t.Errorf("Fetch(%q) without a gateway = %v, want proto.ErrNoAccessMethod", f.URL, err)
			}
		}
	})
	t.Run("Malformed", func(t *testing.T) {
		for _, raw := range f.Malformed {
			for _, req := range requests(f) {
				_, err := d.Fetch(t.Context(), uri.MustParse(raw), req)
				var ue *uri.Error
				if !errors.As(err, &ue) {
					t.Errorf("Fetch(%q) = %v, want a *uri.Error", raw, err)
				}
			}
		}
	})
	t.Run("Unsafe", func(t *testing.T) { unsafe(t, d, f) })
	t.Run("Cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := d.Fetch(ctx, uri.MustParse(f.URL), Request(f.Scheme, "http://gw.example/")); !errors.Is(err, context.Canceled) {
			t.Errorf("Fetch with a cancelled context = %v, want context.Canceled", err)
		}
	})
}

// requests returns no gateway and each of f.Gateways.
func requests(f Fixture) []*proto.Request {
	reqs := []*proto.Request{nil}
	for _, g := range f.Gateways {
		reqs = append(reqs, Request(f.Scheme, g))
	}
	return reqs
}

func cases(t *testing.T, d proto.Driver, f Fixture) {
	for _, tt := range f.Cases {
		t.Run(tt.URL+" "+tt.Template, func(t *testing.T) {
			got, err := Redirect(t, d, f.Scheme, tt.URL, tt.Template)
			if err != nil {
				t.Fatalf("Fetch(%q) with gateway %q = %v", tt.URL, tt.Template, err)
			}
			if got != tt.Want {
				t.Errorf("Fetch(%q) with gateway %q redirects to %q, want %q", tt.URL, tt.Template, got, tt.Want)
			}
			u := uri.MustParse(tt.URL)
			if x, err := f.Expand(tt.Template, u); err != nil || x != got {
				t.Errorf("Expand = %q, %v, want %q", x, err, got)
			}
			if pw, ok := u.User.Password(); ok && pw != "" && strings.Contains(got, pw) {
				t.Errorf("the gateway URL carries the password")
			}
		})
	}
}

func templateErrors(t *testing.T, d proto.Driver, f Fixture) {
	// An empty template is no template for Fetch (no gateway); as a
	// configuration value it is refused.
	var te *gateway.TemplateError
	if err := f.CheckTemplate(""); !errors.As(err, &te) {
		t.Errorf("CheckTemplate(\"\") = %v, want a *TemplateError", err)
	}
	for _, tt := range f.BadTemplates {
		errs := map[string]error{
			"Fetch": func() error { _, err := Redirect(t, d, f.Scheme, f.URL, tt.Template); return err }(),
		}
		if err := f.CheckTemplate(tt.Template); tt.Offset >= 0 {
			errs["CheckTemplate"] = err
		} else if err != nil {
			t.Errorf("CheckTemplate(%q) = %v, want nil (only the expansion is malformed)", tt.Template, err)
		}
		for name, err := range errs {
			var te *gateway.TemplateError
			if !errors.As(err, &te) {
				t.Errorf("%s(%q) = %v, want a *TemplateError", name, tt.Template, err)
				continue
			}
			if te.Offset != tt.Offset || te.Template != tt.Template {
				t.Errorf("%s(%q): error at offset %d in %q, want offset %d", name, tt.Template, te.Offset, te.Template, tt.Offset)
			}
		}
	}
	for _, ok := range f.GoodTemplates {
		if err := f.CheckTemplate(ok); err != nil {
			t.Errorf("CheckTemplate(%q) = %v, want nil", ok, err)
		}
	}
}

func unsafe(t *testing.T, d proto.Driver, f Fixture) {
	for _, p := range prototest.Payloads {
		for _, u := range f.Unsafe(uri.Escape(p, "")) {
			for _, req := range requests(f) {
				_, err := d.Fetch(t.Context(), u, req)
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

// Want is what the expansion of a fixed template, one that ends in
// "#{url}", must give back: its decoded path, and its query parameters in
// order, each as name and decoded value.
type Want struct {
	Path  string
	Query [][2]string
}

// CheckFixed reports an expansion out of the fixed template tmpl for u
// that does not give back want: each value must come back exactly from its
// place, no value adding a query parameter, a raw "/" in the query or a
// fragment, and the fragment must decode to u without user information or
// fragment.
func CheckFixed(t testing.TB, tmpl string, u *uri.URL, out string, want Want) {
	t.Helper()
	g, err := uri.Parse(out)
	if err != nil {
		t.Fatalf("Expand(%q, %q) = %q, which does not parse: %v", tmpl, u.Redacted(), out, err)
	}
	if d, err := uri.Unescape(g.Path); err != nil || d != want.Path {
		t.Errorf("Expand(%q, %q) = %q: path decodes to %q, want %q", tmpl, u.Redacted(), out, d, want.Path)
	}
	q := strings.Split(g.RawQuery, "&")
	if len(q) != len(want.Query) {
		t.Fatalf("Expand(%q, %q) = %q: query structure lost", tmpl, u.Redacted(), out)
	}
	for i, w := range want.Query {
		v, ok := strings.CutPrefix(q[i], w[0]+"=")
		if !ok || strings.Contains(v, "/") {
			t.Fatalf("Expand(%q, %q) = %q: query structure lost at %q", tmpl, u.Redacted(), out, q[i])
		}
		if d, err := uri.Unescape(v); err != nil || d != w[1] {
			t.Errorf("Expand(%q, %q) = %q: %q decodes to %q, want %q", tmpl, u.Redacted(), out, v, d, w[1])
		}
	}
	d, err := uri.Unescape(g.Fragment)
	if err != nil || !g.HasFragment {
		t.Fatalf("Expand(%q, %q) = %q: {url} lost (%v)", tmpl, u.Redacted(), out, err)
	}
	if gu, err := uri.Parse(d); err != nil {
		t.Errorf("Expand(%q, %q) = %q: {url} decodes to %q, which does not parse: %v", tmpl, u.Redacted(), out, d, err)
	} else if gu.Scheme != u.Scheme || gu.User != nil || gu.HasFragment {
		t.Errorf("Expand(%q, %q) = %q: {url} decodes to %q, want the URL without user information or fragment", tmpl, u.Redacted(), out, d)
	}
}

// Fuzz is a gateway driver's fuzz test, seeded with seeds (template and
// URL pairs): for any template and any URL, expand's result passes
// CheckExpansion; for the fixed template (one that ends in "#{url}"), when
// it expands, it also passes CheckFixed with want(u).
func Fuzz(f *testing.F, expand func(tmpl string, u *uri.URL) (string, error), seeds [][2]string, fixed string, want func(u *uri.URL) Want) {
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, tmpl, raw string) {
		u, err := uri.Parse(raw)
		if err != nil {
			return
		}
		out, err := expand(tmpl, u)
		CheckExpansion(t, tmpl, out, err)

		out, err = expand(fixed, u)
		CheckExpansion(t, fixed, out, err)
		if err == nil {
			CheckFixed(t, fixed, u, out, want(u))
		}
	})
}
