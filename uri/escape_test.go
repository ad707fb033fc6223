package uri

import (
	"errors"
	"strings"
	"testing"
)

// RFC 1738 section 2.2 and seed 002 section 5: the character classes.
func TestCharacterClasses(t *testing.T) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		wantUnsafe := strings.IndexByte(" <>\"#%{}|\\^~[]`", b) >= 0
		if IsUnsafe(b) != wantUnsafe {
			t.Errorf("IsUnsafe(%q) = %v, want %v", b, !wantUnsafe, wantUnsafe)
		}
		wantReserved := strings.IndexByte(";/?:@=&", b) >= 0
		if IsReserved(b) != wantReserved {
			t.Errorf("IsReserved(%q) = %v, want %v", b, !wantReserved, wantReserved)
		}
		wantControl := c < 0x20 || c == 0x7f
		if IsControl(b) != wantControl {
			t.Errorf("IsControl(%q) = %v, want %v", b, !wantControl, wantControl)
		}
		// Seed 002 section 5: unreserved = alpha | digit | safe | extra.
		wantUnreserved := isAlnum(b) || strings.IndexByte("$-_.+!*'(),", b) >= 0
		if isUnreserved(b) != wantUnreserved {
			t.Errorf("isUnreserved(%q) = %v, want %v", b, !wantUnreserved, wantUnreserved)
		}
		// The classes do not overlap.
		if wantUnreserved && (wantUnsafe || wantReserved || wantControl) || wantUnsafe && wantReserved {
			t.Errorf("%q is in two classes", b)
		}
	}
}

func TestUnescape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"abc", "abc"},
		// RFC 1738 section 2.2: "The characters "abcdef" may also be used in hexadecimal encoding."
		{"%2F%2f%7E%7e", "//~~"},
		{"Los%20Angeles", "Los Angeles"},
		// Seed 001 section 2.3.2: never unescape twice.
		{"%2541", "%41"},
		{"%25%32%35", "%25"},
		{"%00%0D%0A%FF", "\x00\r\n\xff"},
	}
	for _, tt := range tests {
		if got, err := Unescape(tt.in); err != nil || got != tt.want {
			t.Errorf("Unescape(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
		}
	}
	for in, bad := range map[string]string{"%": "%", "%4": "%4", "a%zz": "%zz", "%41%g1": "%g1", "%%41": "%%4"} {
		_, err := Unescape(in)
		var e EscapeError
		if !errors.As(err, &e) || string(e) != bad {
			t.Errorf("Unescape(%q) = %v, want EscapeError(%q)", in, err, bad)
		}
	}
}

func TestEscape(t *testing.T) {
	tests := []struct{ in, safe, want string }{
		{"abc-_.+!*'(),$", "", "abc-_.+!*'(),$"},
		// Seed 001 section 2.3.2: a "%" in data is escaped as "%25", once.
		{"100%", "", "100%25"},
		{"%41", "", "%2541"},
		{"a b/c", "/", "a%20b/c"},
		{"~user", "", "%7Euser"},
		{"\r\n\x00\xff", "", "%0D%0A%00%FF"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in, tt.safe); got != tt.want {
			t.Errorf("Escape(%q, %q) = %q, want %q", tt.in, tt.safe, got, tt.want)
		}
	}
}

// Seed 002 section 5 and seed 001 section 2: escaping per component.
func TestEscapePart(t *testing.T) {
	const all = "a/b;c?d:e@f&g=h+i#j%k l~m$n,o<p>q\"r{s}t|u\\v^w[x]y`z\tE\x00\xff"
	tests := []struct {
		p    Part
		want string
	}{
		// user = *[ uchar | ";" | "?" | "&" | "=" ] (seed 002); "?" escaped (RFC 2396 section G.2).
		{PartUser, "a%2Fb;c%3Fd%3Ae%40f&g=h+i%23j%25k%20l%7Em$n,o%3Cp%3Eq%22r%7Bs%7Dt%7Cu%5Cv%5Ew%5Bx%5Dy%60z%09E%00%FF"},
		// fsegment/hsegment/psegment: "/", ";" and "?" reserved (RFC 1738 sections 3.2.2, 3.3, 3.11).
		{PartSegment, "a%2Fb%3Bc%3Fd:e@f&g=h+i%23j%25k%20l%7Em$n,o%3Cp%3Eq%22r%7Bs%7Dt%7Cu%5Cv%5Ew%5Bx%5Dy%60z%09E%00%FF"},
		{PartPath, "a/b%3Bc%3Fd:e@f&g=h+i%23j%25k%20l%7Em$n,o%3Cp%3Eq%22r%7Bs%7Dt%7Cu%5Cv%5Ew%5Bx%5Dy%60z%09E%00%FF"},
		// search = *[ uchar | ";" | ":" | "@" | "&" | "=" ]; "+" reserved (seed 001 section 2.1).
		{PartQuery, "a%2Fb;c%3Fd:e@f&g=h%2Bi%23j%25k%20l%7Em$n,o%3Cp%3Eq%22r%7Bs%7Dt%7Cu%5Cv%5Ew%5Bx%5Dy%60z%09E%00%FF"},
		// fragment = *urlchar (seed 001 section 3).
		{PartFragment, "a/b;c?d:e@f&g=h+i%23j%25k%20l%7Em$n,o%3Cp%3Eq%22r%7Bs%7Dt%7Cu%5Cv%5Ew%5Bx%5Dy%60z%09E%00%FF"},
		// No characters are reserved in a gopher-path (RFC 1738 section 3.4); the tab is %09.
		{PartSelector, "a/b;c?d:e@f&g=h+i%23j%25k%20l%7Em$n,o%3Cp%3Eq%22r%7Bs%7Dt%7Cu%5Cv%5Ew%5Bx%5Dy%60z%09E%00%FF"},
		// mailto and news: no reserved characters (RFC 1738 sections 3.5, 3.6).
		{PartOpaque, "a%2Fb;c%3Fd:e@f&g=h+i%23j%25k%20l%7Em$n,o%3Cp%3Eq%22r%7Bs%7Dt%7Cu%5Cv%5Ew%5Bx%5Dy%60z%09E%00%FF"},
	}
	for _, tt := range tests {
		got := EscapePart(all, tt.p)
		if got != tt.want {
			t.Errorf("EscapePart(%q, %d) =\n %q, want\n %q", all, tt.p, got, tt.want)
		}
		// Never escape twice: the escaped form decodes back to the data.
		if d, err := Unescape(got); err != nil || d != all {
			t.Errorf("Unescape(EscapePart(%q, %d)) = %q, %v", all, tt.p, d, err)
		}
	}
}

// Each Part's output, put in its place, parses back to the data in the
// matching view.
func TestEscapePartViews(t *testing.T) {
	const data = "a/b;c?d#e%f g\tE"
	ftp := MustParse("ftp://" + EscapePart("us:er@x", PartUser) + ":" + EscapePart("p@ss:/?", PartUser) +
		"@h/" + EscapePart(data, PartSegment) + "/" + EscapePart(data, PartSegment) + ";type=i")
	v, err := ftp.FTP()
	if err != nil || len(v.CWD) != 1 || v.CWD[0] != data || v.Name != data || v.Type != "i" {
		t.Errorf("FTP() of %q = %#v, %v", ftp, v, err)
	}
	if ftp.User.Username() != "us:er@x" {
		t.Errorf("Username() of %q = %q", ftp, ftp.User.Username())
	}
	if p, _ := ftp.User.Password(); p != "p@ss:/?" {
		t.Errorf("Password() of %q is not the data", ftp.Redacted())
	}
	// RFC 1738 section 3.4: a selector holds no tab, so the tab of data would be a separator.
	const sel = "a/b;c?d#e%f g"
	g := MustParse("gopher://h/0" + EscapePart(sel, PartSelector) + "%09" + EscapePart(sel, PartSelector))
	gv, err := g.Gopher()
	if err != nil || gv.Selector != sel || gv.Search == nil || *gv.Search != sel || gv.Plus != nil {
		t.Errorf("Gopher() of %q = %#v, %v", g, gv, err)
	}
	m := MustParse("mailto:" + EscapePart("/x?y%z@h", PartOpaque))
	if mv, err := m.Mailto(); err != nil || mv.Address != "/x?y%z@h" {
		t.Errorf("Mailto() of %q = %#v, %v", m, mv, err)
	}
	w := MustParse("wais://h/" + EscapePart(data, PartSegment) + "?" + EscapePart("a+b c", PartQuery))
	if wv, err := w.WAIS(); err != nil || wv.Database != data || *wv.Search != "a+b c" {
		t.Errorf("WAIS() of %q = %#v, %v", w, wv, err)
	}
	f := MustParse("http://h/x#" + EscapePart(data, PartFragment))
	if d, _ := Unescape(f.Fragment); d != data {
		t.Errorf("fragment of %q = %q", f, d)
	}
}
