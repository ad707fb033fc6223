package ftp

import (
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// archiveTarget is the URI under which an archive records resp: the
// driver's Target, else u without user information.
func archiveTarget(u *uri.URL, resp *proto.Response) string {
	if t := (&Driver{}).ArchiveRecord(u, resp).Target; t != "" {
		return t
	}
	v := *u
	v.User = nil
	return v.String()
}

// The target URI of an FTP capture names the transfer made (RFC 1738
// section 3.2.2): no typecode for binary, ";type=a" for converted text;
// no user, no password.
func TestArchiveTarget(t *testing.T) {
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
	} {
		resp := &proto.Response{Kind: tc.kind, Info: map[string]any{}}
		if tc.typ != "" {
			resp.Info["ftp_type"] = tc.typ
		}
		u := uri.MustParse(tc.url)
		if got := archiveTarget(u, resp); got != tc.want {
			t.Errorf("ArchiveRecord(%s, %s) = %q, want %q", tc.url, tc.typ, got, tc.want)
		}
	}
}

// FuzzArchiveTarget: whatever the URL, the target URI parses again, holds no
// password, and an FTP file's (a URL with a server and a file name: the
// driver retrieves no other) has the path of the URL without its typecode, and ";type=a" after
// it for a text transfer.
func FuzzArchiveTarget(f *testing.F) {
	for _, s := range []string{"ftp://u:pw@h/pub/f;type=i", "ftp://h/a;type=a", "ftp://h/;type=d", "ftp://h/x;TYPE=I;type=i"} {
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
		resp := &proto.Response{Kind: proto.KindData, Info: map[string]any{"ftp_type": typ}}
		got := archiveTarget(u, resp)
		v, err := uri.Parse(got)
		if err != nil {
			t.Fatalf("ArchiveRecord(%q) = %q, which does not parse: %v", raw, got, err)
		}
		if v.User != nil {
			t.Fatalf("ArchiveRecord(%q) = %q keeps the user", raw, got)
		}
		if named := strings.HasPrefix(u.Path, "/") && !strings.HasSuffix(WithoutTypecode(u.Path), "/"); u.Scheme == "ftp" && u.HasAuthority && named {
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
				t.Fatalf("ArchiveRecord(%q, %s) = %q: path %q, want %q", raw, typ, got, v.Path, want)
			}
		}
	})
}
