package fetch

import (
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
