package prospero

import (
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto/gateway/gatewaytest"
	"github.com/rfc1738/fetch/uri"
)

// FuzzExpand checks Expand on any template and any prospero URL (see
// gatewaytest.Fuzz). With the fixed template below the hsoname comes back
// exactly from the path and the first OBJECT-VERSION field (3.11, names
// compared without regard to case) from its own query parameter. Package
// gateway fuzzes the template engine itself.
func FuzzExpand(f *testing.F) {
	seeds := [][2]string{
		{"http://gw.example/p{hsoname}?v={field:OBJECT-VERSION}", "prospero://host.dom//pros/name;OBJECT-VERSION=3"},
		{"http://{host}:{port}/{hsoname}", "prospero://[::1]:1526/a%3Bb;x=%26"},
		{"x:{url}#{field:x}", "prospero://h/n;X=%23%3F"},
		{"http://gw/{field:}", "prospero://h/n"},
		{"{", "prospero://h/n%0A"},
		{"http://gw/}{", "prospero://h/"},
	}
	const fixed = "http://gw.example/p/{hsoname}?v={field:OBJECT-VERSION}&w=1#{url}"
	gatewaytest.Fuzz(f, Expand, seeds, fixed, func(u *uri.URL) gatewaytest.Want {
		v, _ := u.Prospero()
		version := ""
		for _, f := range v.Fields {
			if strings.EqualFold(f.Name, "OBJECT-VERSION") {
				version = f.Value
				break
			}
		}
		return gatewaytest.Want{Path: "/p/" + v.HSOName, Query: [][2]string{{"v", version}, {"w", "1"}}}
	})
}
