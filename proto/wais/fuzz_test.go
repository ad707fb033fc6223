package wais

import (
	"errors"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// FuzzExpand checks the template parser and the expansion on any template
// and any wais URL: no panic; an error is a *TemplateError, a *uri.Error or
// proto.ErrUnsafeArgument; a result is a well-formed URL without control
// characters. With the fixed template below, each value comes back exactly
// from its place: no value can add a query parameter or a fragment, and the
// path decodes to the template's path with the values in it ("/" in a value
// stays a "/" in the path, by design).
func FuzzExpand(f *testing.F) {
	for _, s := range [][2]string{
		{"http://gw.example/{database}?q={search}", "wais://h/db?query"},
		{"http://{host}:{port}/{database}/{wtype}/{wpath}", "wais://[::1]:2100/db/TEXT/a%2Fb"},
		{"gopher://gw.example/7{database}%09{search}", "wais://h/db?a%09b"},
		{"x:{url}#{search}", "wais://h/db?%26%3D%2B%23"},
		{"http://gw/{nosuch}", "wais://h/db"},
		{"{", "wais://h/d%0Ab"},
		{"http://gw/}{", "wais://h/"},
	} {
		f.Add(s[0], s[1])
	}
	const fixed = "http://gw.example/d/{database}/w/{wpath}?s={search}&t={wtype}#{url}"
	f.Fuzz(func(t *testing.T, tmpl, raw string) {
		u, err := uri.Parse(raw)
		if err != nil {
			return
		}
		out, err := Expand(tmpl, u)
		check(t, tmpl, out, err)

		out, err = Expand(fixed, u)
		check(t, fixed, out, err)
		if err != nil {
			return
		}
		v, _ := u.WAIS()
		g := uri.MustParse(out)
		if d, err := uri.Unescape(g.Path); err != nil || d != "/d/"+v.Database+"/w/"+deref(v.WPath) {
			t.Errorf("Expand(%q, %q) = %q: path decodes to %q", fixed, raw, out, d)
		}
		q := strings.Split(g.RawQuery, "&")
		if len(q) != 2 || !strings.HasPrefix(q[0], "s=") || !strings.HasPrefix(q[1], "t=") {
			t.Fatalf("Expand(%q, %q) = %q: query structure lost", fixed, raw, out)
		}
		want := []struct{ got, want string }{
			{q[0][2:], deref(v.Search)}, {q[1][2:], deref(v.WType)},
		}
		for _, w := range want {
			if d, err := uri.Unescape(w.got); err != nil || d != w.want {
				t.Errorf("Expand(%q, %q) = %q: %q decodes to %q, want %q", fixed, raw, out, w.got, d, w.want)
			}
		}
		if d, _ := uri.Unescape(g.Fragment); !strings.HasPrefix(d, "wais:") {
			t.Errorf("Expand(%q, %q) = %q: {url} decodes to %q", fixed, raw, out, d)
		}
	})
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func check(t *testing.T, tmpl, out string, err error) {
	t.Helper()
	if err != nil {
		var te *TemplateError
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
