package wais

import (
	"testing"

	"github.com/rfc1738/fetch/proto/gateway/gatewaytest"
	"github.com/rfc1738/fetch/uri"
)

// FuzzExpand checks Expand on any template and any wais URL (see
// gatewaytest.Fuzz). With the fixed template below, each part of the URL
// comes back exactly from its placeholder's place: the path decodes to the
// template's path with the database and wpath in it ("/" in a value stays
// a "/" in the path, by design), the search and wtype each from its own
// query parameter. Package gateway fuzzes the template engine itself.
func FuzzExpand(f *testing.F) {
	seeds := [][2]string{
		{"http://gw.example/{database}?q={search}", "wais://h/db?query"},
		{"http://{host}:{port}/{database}/{wtype}/{wpath}", "wais://[::1]:2100/db/TEXT/a%2Fb"},
		{"gopher://gw.example/7{database}%09{search}", "wais://h/db?a%09b"},
		{"x:{url}#{search}", "wais://h/db?%26%3D%2B%23"},
		{"http://gw/{nosuch}", "wais://h/db"},
		{"{", "wais://h/d%0Ab"},
		{"http://gw/}{", "wais://h/"},
	}
	const fixed = "http://gw.example/d/{database}/w/{wpath}?s={search}&t={wtype}#{url}"
	gatewaytest.Fuzz(f, Expand, seeds, fixed, func(u *uri.URL) gatewaytest.Want {
		v, _ := u.WAIS()
		return gatewaytest.Want{
			Path:  "/d/" + v.Database + "/w/" + deref(v.WPath),
			Query: [][2]string{{"s", deref(v.Search)}, {"t", deref(v.WType)}},
		}
	})
}
