package gatewaytest_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway"
	"github.com/rfc1738/fetch/proto/gateway/gatewaytest"
	"github.com/rfc1738/fetch/uri"
)

// toy is the smallest gateway scheme: toy://host/NAME, with {name}; an
// empty name is malformed.
var toy = &gateway.Scheme{
	Name:         "toy",
	Protocol:     "the toy protocol",
	Placeholders: []string{"name"},
	View: func(u *uri.URL) ([]gateway.Part, gateway.Values, error) {
		name, err := uri.Unescape(strings.TrimPrefix(u.Path, "/"))
		if err == nil && (u.Scheme != "toy" || name == "") {
			err = &uri.Error{Component: "path", Err: errors.New("toy: no name")}
		}
		if err != nil {
			return nil, nil, err
		}
		return []gateway.Part{{Name: "name", Value: name}}, func(string, string) string { return name }, nil
	},
}

type toyDriver struct{}

func (toyDriver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return toy.Fetch(ctx, u, req)
}

// TestRun: a well-behaved gateway driver passes.
func TestRun(t *testing.T) {
	gatewaytest.Run(t, toyDriver{}, gatewaytest.Fixture{
		Scheme:        toy.Name,
		Expand:        toy.Expand,
		CheckTemplate: toy.CheckTemplate,
		URL:           "toy://h/n",
		Cases: []gatewaytest.Case{
			{URL: "toy://h/a%20b", Template: "http://gw.example/{name}?h={host}", Want: "http://gw.example/a%20b?h=h"},
			{URL: "toy://u:secret@h/n", Template: "http://gw.example/?u={url}", Want: "http://gw.example/?u=toy%3A%2F%2Fh%2Fn"},
		},
		BadTemplates:  []gatewaytest.BadTemplate{{Template: "http://gw.example/{database}", Offset: 18}, {Template: "http://gw.example/%zz{name}", Offset: -1}},
		GoodTemplates: []string{"http://{host}:{port}/{name}#{url}"},
		Malformed:     []string{"toy://h/", "http://h/n"},
		Unsafe: func(e string) []*uri.URL {
			return []*uri.URL{
				{Scheme: "toy", HasAuthority: true, Host: "h", Path: "/" + e},
				{Scheme: "toy", HasAuthority: true, Host: "h", Path: "/n", User: uri.User(e)},
				{Scheme: "toy", HasAuthority: true, Host: "h", Path: "/n", User: uri.UserPassword("u", e)},
			}
		},
		Gateways: []string{"http://gw.example/{name}"},
	})
}

// recorder is a testing.TB that records a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; runtime.Goexit() }

// fails reports whether check fails on a recorder.
func fails(check func(t testing.TB)) bool {
	r := &recorder{}
	var wg sync.WaitGroup
	wg.Go(func() { check(r) })
	wg.Wait()
	return r.failed
}

// TestCheckExpansion: the checks fail on results that break Expand's
// contract, and only on those.
func TestCheckExpansion(t *testing.T) {
	tests := []struct {
		out  string
		err  error
		fail bool
	}{
		{"http://gw.example/a", nil, false},
		{"", &gateway.TemplateError{}, false},
		{"", &uri.Error{}, false},
		{"", proto.CheckArg("\r"), false},
		{"", errors.New("other"), true},
		{"", proto.ErrNoAccessMethod, true},
		{"http://gw.example/%zz", nil, true},
		{"http://gw.example/a%2", nil, true},
		{"http://gw.example/a\tb", nil, true},
	}
	for _, tt := range tests {
		if got := fails(func(t testing.TB) { gatewaytest.CheckExpansion(t, "tmpl", tt.out, tt.err) }); got != tt.fail {
			t.Errorf("CheckExpansion(%q, %v) failed = %v, want %v", tt.out, tt.err, got, tt.fail)
		}
	}
}

// TestCheckFixed: the checks fail when a value does not come back from its
// place, and only then.
func TestCheckFixed(t *testing.T) {
	u := uri.MustParse("toy://u:pw@h/n#f")
	want := gatewaytest.Want{Path: "/p/a/b", Query: [][2]string{{"s", "x&y"}, {"t", "/"}}}
	tests := []struct {
		out  string
		fail bool
	}{
		{"http://gw.example/p/a/b?s=x%26y&t=%2F#toy%3A%2F%2Fh%2Fn", false},
		{"http://gw.example/p/a%2Fb?s=x%26y&t=%2F#toy%3A%2F%2Fh%2Fn", false},       // "/" decodes alike in the path
		{"http://gw.example/p/a/c?s=x%26y&t=%2F#toy%3A%2F%2Fh%2Fn", true},          // wrong path
		{"http://gw.example/p/a/b?s=x&y&t=%2F#toy%3A%2F%2Fh%2Fn", true},            // a value added a parameter
		{"http://gw.example/p/a/b?s=x%26y&t=/#toy%3A%2F%2Fh%2Fn", true},            // a raw "/" in the query
		{"http://gw.example/p/a/b?t=%2F&s=x%26y#toy%3A%2F%2Fh%2Fn", true},          // parameters out of order
		{"http://gw.example/p/a/b?s=x%26z&t=%2F#toy%3A%2F%2Fh%2Fn", true},          // wrong value
		{"http://gw.example/p/a/b?s=x%26y&t=%2F", true},                            // no {url}
		{"http://gw.example/p/a/b?s=x%26y&t=%2F#toy%3A%2F%2Fu%3Apw%40h%2Fn", true}, // user information kept
		{"http://gw.example/p/a/b?s=x%26y&t=%2F#toy%3A%2F%2Fh%2Fn%23f", true},      // fragment kept
		{"http://gw.example/p/a/b?s=x%26y&t=%2F#http%3A%2F%2Fh%2Fn", true},         // another scheme
		{"http://gw.example/%zz", true},
	}
	for _, tt := range tests {
		if got := fails(func(t testing.TB) { gatewaytest.CheckFixed(t, "fixed", u, tt.out, want) }); got != tt.fail {
			t.Errorf("CheckFixed(%q) failed = %v, want %v", tt.out, got, tt.fail)
		}
	}
}
