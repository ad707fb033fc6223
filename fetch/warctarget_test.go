package fetch

import (
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// The target URI of an FTP capture names the transfer made (RFC 1738
// section 3.2.2): no typecode for binary, ";type=a" for converted text;
// no user, no password.
func TestWARCTarget(t *testing.T) {
	for _, tc := range []struct {
		url, typ string
		kind     proto.Kind
		want     string
	}{
		{"ftp://h/pub/f.bin;type=i", "I", proto.KindData, "ftp://h/pub/f.bin"},
		{"ftp://u:pw@h/pub/f.bin;TYPE=I", "I", proto.KindData, "ftp://h/pub/f.bin"},
		{"ftp://h/pub/README", "A", proto.KindData, "ftp://h/pub/README;type=a"},
		{"ftp://h/pub/f.txt;type=a", "A", proto.KindData, "ftp://h/pub/f.txt;type=a"},
		{"ftp://h/pub/f.txt;type=a", "I", proto.KindData, "ftp://h/pub/f.txt"},
		{"ftp://h/pub/f;v=1", "I", proto.KindData, "ftp://h/pub/f;v=1"},
		{"ftp://h/pub/", "", proto.KindDirectory, "ftp://h/pub/"},
		{"ftp://h/pub/;type=d", "", proto.KindDirectory, "ftp://h/pub/;type=d"},
		{"gopher://h/0/x;type=i", "", proto.KindData, "gopher://h/0/x;type=i"},
	} {
		resp := &Response{Response: proto.Response{Kind: tc.kind, Info: map[string]any{}}}
		if tc.typ != "" {
			resp.Info["ftp_type"] = tc.typ
		}
		u := uri.MustParse(tc.url)
		if got := warcTarget(*u, resp); got != tc.want {
			t.Errorf("warcTarget(%s, %s) = %q, want %q", tc.url, tc.typ, got, tc.want)
		}
	}
}

// FuzzWARCTarget: whatever the URL, the target URI parses again, holds no
// password, and an FTP file's (a URL with a server and a file name: the
// driver retrieves no other) has the path of the URL without its typecode, and ";type=a" after
// it for a text transfer.
func FuzzWARCTarget(f *testing.F) {
	for _, s := range []string{"ftp://u:pw@h/pub/f;type=i", "ftp://h/a;type=a", "ftp://h/;type=d", "ftp://h/x;TYPE=I;type=i", "gopher://h/0/x;type=i"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, raw string, ascii bool) {
		u, err := uri.Parse(raw)
		if err != nil {
			return
		}
		typ := "I"
		if ascii {
			typ = "A"
		}
		resp := &Response{Response: proto.Response{Kind: proto.KindData, Info: map[string]any{"ftp_type": typ}}}
		got := warcTarget(*u, resp)
		v, err := uri.Parse(got)
		if err != nil {
			t.Fatalf("warcTarget(%q) = %q, which does not parse: %v", raw, got, err)
		}
		if v.User != nil {
			t.Fatalf("warcTarget(%q) = %q keeps the user", raw, got)
		}
		if named := strings.HasPrefix(u.Path, "/") && !strings.HasSuffix(withoutTypecode(u.Path), "/"); u.Scheme == "ftp" && u.HasAuthority && named {
			want := u.Path
			// A typecode is ";type=" and one character, not ";" (the
			// last ";" of the path begins it).
			if n := len(want); n >= 7 && strings.EqualFold(want[n-7:n-1], ";type=") && want[n-1] != ';' {
				want = want[:len(want)-7]
			}
			if ascii {
				want += ";type=a"
			}
			if v.Path != want {
				t.Fatalf("warcTarget(%q, %s) = %q: path %q, want %q", raw, typ, got, v.Path, want)
			}
		}
	})
}
