package prospero

import (
	"errors"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// FuzzExpand checks the template parser and the expansion on any template
// and any prospero URL: no panic; an error is a *TemplateError, a
// *uri.Error or proto.ErrUnsafeArgument; a result is a well-formed URL
// without control characters. With the fixed template below the hsoname
// comes back exactly from the path and the field from its own query
// parameter: no value can add a query parameter or a fragment.
func FuzzExpand(f *testing.F) {
	for _, s := range [][2]string{
		{"http://gw.example/p{hsoname}?v={field:OBJECT-VERSION}", "prospero://host.dom//pros/name;OBJECT-VERSION=3"},
		{"http://{host}:{port}/{hsoname}", "prospero://[::1]:1526/a%3Bb;x=%26"},
		{"x:{url}#{field:x}", "prospero://h/n;X=%23%3F"},
		{"http://gw/{field:}", "prospero://h/n"},
		{"{", "prospero://h/n%0A"},
		{"http://gw/}{", "prospero://h/"},
	} {
		f.Add(s[0], s[1])
	}
	const fixed = "http://gw.example/p/{hsoname}?v={field:OBJECT-VERSION}&w=1#{url}"
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
		v, _ := u.Prospero()
		g := uri.MustParse(out)
		if d, err := uri.Unescape(g.Path); err != nil || d != "/p/"+v.HSOName {
			t.Errorf("Expand(%q, %q) = %q: path decodes to %q, want %q", fixed, raw, out, d, "/p/"+v.HSOName)
		}
		q := strings.Split(g.RawQuery, "&")
		if len(q) != 2 || !strings.HasPrefix(q[0], "v=") || q[1] != "w=1" {
			t.Fatalf("Expand(%q, %q) = %q: query structure lost", fixed, raw, out)
		}
		want := ""
		for _, f := range v.Fields {
			if strings.EqualFold(f.Name, "OBJECT-VERSION") {
				want = f.Value
				break
			}
		}
		if d, err := uri.Unescape(q[0][2:]); err != nil || d != want {
			t.Errorf("Expand(%q, %q) = %q: field decodes to %q, want %q", fixed, raw, out, d, want)
		}
		if d, _ := uri.Unescape(g.Fragment); !strings.HasPrefix(d, "prospero:") {
			t.Errorf("Expand(%q, %q) = %q: {url} decodes to %q", fixed, raw, out, d)
		}
	})
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
