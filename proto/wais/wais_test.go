package wais

import (
	"testing"

	"github.com/rfc1738/fetch/proto/gateway/gatewaytest"
	"github.com/rfc1738/fetch/uri"
)

// TestDriver: RFC 1738 section 3.9's three forms, mapped through section
// 4's gateway locators; the escaping of values and the template syntax are
// tested in package gateway.
func TestDriver(t *testing.T) {
	gatewaytest.Run(t, &Driver{}, gatewaytest.Fixture{
		Scheme:        "wais",
		Expand:        Expand,
		CheckTemplate: (&Driver{}).CheckTemplate,
		URL:           "wais://host/db?query",
		Cases: []gatewaytest.Case{
			// 3.9 form 2, a search.
			{URL: "wais://host.example/db?query", Template: "http://gw.example/wais/{host}/{database}?q={search}",
				Want: "http://gw.example/wais/host.example/db?q=query"},
			// 3.9 form 3, a document: wtype and wpath (encoded per 2.2).
			{URL: "wais://host.example/db/TEXT/doc%2Fid%20x", Template: "http://gw.example/{database}/{wtype}/{wpath}",
				Want: "http://gw.example/db/TEXT/doc/id%20x"},
			// 3.9 form 1, a database: absent parts expand to nothing.
			{URL: "wais://host.example/db", Template: "http://gw.example/{database}?q={search}&t={wtype}&p={wpath}",
				Want: "http://gw.example/db?q=&t=&p="},
			// 3.9: the port defaults to 210.
			{URL: "wais://host.example/db", Template: "http://gw.example/{host}/{port}/{database}",
				Want: "http://gw.example/host.example/210/db"},
		},
		BadTemplates: []gatewaytest.BadTemplate{
			{Template: "http://gw.example/{hsoname}", Offset: 18},           // prospero's, not wais's
			{Template: "http://gw.example/{field:X}", Offset: 18},           // prospero's
			{Template: "http://gw.example/{nosuch}?q={search}", Offset: 18}, // unknown
			{Template: "http://{database}.gw.example/", Offset: 7},          // only host and port in the server part
			{Template: "http://gw.example:{search}/", Offset: 18},
			{Template: "http://gw.example/%zz{database}", Offset: -1}, // "%" not followed by hex
		},
		GoodTemplates: []string{"http://{host}:{port}/{database}/{wtype}/{wpath}?s={search}#{url}"},
		// 3.9: a wais URL needs a database and has one of three forms.
		Malformed: []string{"wais://host/", "wais://host", "wais://host/db/TEXT", "wais://host/db/T/p?q", "http://host/db"},
		Unsafe: func(e string) []*uri.URL {
			return []*uri.URL{
				{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db" + e},
				{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", RawQuery: e},
				{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db/" + e + "/p"},
				{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db/T/" + e},
				{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", User: uri.User(e)},
				{Scheme: "wais", HasAuthority: true, Host: "h", Path: "/db", User: uri.UserPassword("u", e)},
			}
		},
		Gateways: []string{"http://gw.example/{database}", "http://gw.example/{database}?q={search}"},
	})
}
