package uri

import (
	"slices"
	"strings"
	"testing"
)

// RFC 1738 section 3.4: gopher-path = <gophertype><selector>%09<search>%09<gopher+_string>.
func TestGopherFields(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"", []string{""}},
		{"0about", []string{"0about"}},
		{"7find%09cats", []string{"7find", "cats"}},
		{"7find%09cats%09+", []string{"7find", "cats", "+"}},
		{"1dir%09%09+", []string{"1dir", "", "+"}},
		{"7s%09q%09+%09extra", []string{"7s", "q", "+%09extra"}}, // a third %09 stays in the gopher+ string
		{"%09x", []string{"", "x"}},
		{"0a%0", []string{"0a%0"}},
	} {
		if got := GopherFields(c.in); !slices.Equal(got, c.want) {
			t.Errorf("GopherFields(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzGopherFields(f *testing.F) {
	for _, s := range []string{"", "0a", "7s%09q", "7s%09q%09+%09x", "%09%09%09"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		fields := GopherFields(p)
		if len(fields) < 1 || len(fields) > 3 {
			t.Fatalf("GopherFields(%q) gave %d fields", p, len(fields))
		}
		if strings.Join(fields, "%09") != p {
			t.Fatalf("GopherFields(%q) = %q does not join back", p, fields)
		}
		for _, f := range fields[:len(fields)-1] {
			if strings.Contains(f, "%09") {
				t.Fatalf("GopherFields(%q): field %q before the last holds %%09", p, f)
			}
		}
	})
}
