package prospero

import (
	"reflect"
	"testing"

	"github.com/rfc1738/fetch/proto/gateway/gatewaytest"
	"github.com/rfc1738/fetch/uri"
)

// TestView: the parts the gateway placeholders come from (RFC 1738
// section 3.11), as the uri view decodes them.
func TestView(t *testing.T) {
	tests := []struct {
		url     string
		hsoname string
		fields  []uri.Field
	}{
		// 3.11: "many <hsoname>s begin with a slash, in which case the host
		// or port will be followed by a double slash".
		{"prospero://host.dom//pros/name", "/pros/name", nil},
		// 3.11: "the OBJECT-VERSION field can be specified".
		{"prospero://host.dom//pros/name;OBJECT-VERSION=3", "/pros/name", []uri.Field{{Name: "OBJECT-VERSION", Value: "3"}}},
		// 3.11: several pairs, each separated by ";"; values decoded; "?"
		// is data.
		{"prospero://h:1526/a%3Bb?c;X=1;Y=a%20b", "a;b?c", []uri.Field{{Name: "X", Value: "1"}, {Name: "Y", Value: "a b"}}},
	}
	for _, tt := range tests {
		v, err := uri.MustParse(tt.url).Prospero()
		if err != nil {
			t.Fatalf("Prospero(%q) = %v", tt.url, err)
		}
		if v.HSOName != tt.hsoname || !reflect.DeepEqual(v.Fields, tt.fields) {
			t.Errorf("Prospero(%q) = %q %v, want %q %v", tt.url, v.HSOName, v.Fields, tt.hsoname, tt.fields)
		}
	}
}

// TestDriver: section 3.11's URLs mapped through section 4's gateway
// locators; the escaping of values and the template syntax are tested in
// package gateway.
func TestDriver(t *testing.T) {
	gatewaytest.Run(t, &Driver{}, gatewaytest.Fixture{
		Scheme:        "prospero",
		Expand:        Expand,
		CheckTemplate: (&Driver{}).CheckTemplate,
		URL:           "prospero://host//pros/name;OBJECT-VERSION=3",
		Cases: []gatewaytest.Case{
			// 3.11: an hsoname that begins with a slash, and the
			// OBJECT-VERSION field.
			{URL: "prospero://host.dom//pros/name;OBJECT-VERSION=3",
				Template: "http://gw.example/prospero/{host}{hsoname}?version={field:OBJECT-VERSION}",
				Want:     "http://gw.example/prospero/host.dom/pros/name?version=3"},
			// Field names compare without regard to case; absent fields are empty.
			{URL: "prospero://host.dom//pros/name;object-version=3", Template: "http://gw.example/x?v={field:OBJECT-VERSION}&w={field:NONE}",
				Want: "http://gw.example/x?v=3&w="},
			// The first of repeated fields.
			{URL: "prospero://h/n;A=1;A=2", Template: "http://gw.example/{field:a}", Want: "http://gw.example/1"},
			// 3.11: the port defaults to 1525.
			{URL: "prospero://h/n", Template: "http://gw.example/{host}/{port}/{hsoname}", Want: "http://gw.example/h/1525/n"},
			// A password (which 3.11 does not allow) never reaches the gateway.
			{URL: "prospero://user:secret@h//n", Template: "http://gw.example/?u={url}", Want: "http://gw.example/?u=prospero%3A%2F%2Fh%2F%2Fn"},
		},
		BadTemplates: []gatewaytest.BadTemplate{
			{Template: "http://gw.example/{database}", Offset: 18},  // wais's, not prospero's
			{Template: "http://gw.example/{field}", Offset: 18},     // field needs a name
			{Template: "http://gw.example/{field:}", Offset: 18},    // ... a non-empty one
			{Template: "http://gw.example/{hsoname:x}", Offset: 18}, // only field takes an argument
			{Template: "http://{hsoname}/", Offset: 7},              // only host and port in the server part
		},
		GoodTemplates: []string{"http://{host}:{port}/p{hsoname}?v={field:OBJECT-VERSION}#{url}"},
		// 3.11: a field must be name=value.
		Malformed: []string{"prospero://h/n;novalue", "prospero://h/n;=v", "wais://h/db"},
		Unsafe: func(e string) []*uri.URL {
			return []*uri.URL{
				{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "//n" + e},
				{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n;" + e + "=1"},
				{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n;OBJECT-VERSION=" + e},
				{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n", RawQuery: e},
				{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n", User: uri.User(e)},
				{Scheme: "prospero", HasAuthority: true, Host: "h", Path: "/n", User: uri.UserPassword("u", e)},
			}
		},
		Gateways: []string{"http://gw.example/{hsoname}", "http://gw.example/{hsoname}?v={field:OBJECT-VERSION}"},
	})
}
