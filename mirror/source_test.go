package mirror

import (
	"context"
	"errors"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// plainFetcher is a Fetcher without news sessions; it is never called.
type plainFetcher struct{}

func (plainFetcher) Fetch(context.Context, *uri.URL, *proto.Request) (*proto.Response, error) {
	return nil, errors.ErrUnsupported
}

// dialingFetcher is a Fetcher with news sessions; it is never called.
type dialingFetcher struct{ plainFetcher }

func (dialingFetcher) OpenNews(context.Context, *uri.URL, *proto.Request) (NewsSession, error) {
	return nil, errors.ErrUnsupported
}

// sourceOf picks the walker of the start URL's tree form by its scheme's
// syntax (RFC 1738 sections 3.2 to 3.7): FTP directories, gopher menus,
// HTTP index pages, news groups; every other scheme is ErrUnsupported, and
// a malformed URL of a walked scheme is its view's error.
func TestSourceOf(t *testing.T) {
	tests := []struct {
		raw    string
		f      Fetcher
		shards int
		want   string // the walker's type, "news", or "" for an error
		err    error
	}{
		{raw: "ftp://h/pub/", f: plainFetcher{}, want: "*mirror.ftpWalker"},
		{raw: "gopher://h/1/", f: plainFetcher{}, want: "*mirror.gopherWalker"},
		{raw: "http://h/pub/", f: plainFetcher{}, want: "*mirror.httpWalker"},
		{raw: "https://h/pub/", f: plainFetcher{}, want: "*mirror.httpWalker"},
		{raw: "nntp://h/comp.lang.go", f: dialingFetcher{}, want: "news"},
		{raw: "news:comp.lang.*", f: dialingFetcher{}, want: "news"},
		{raw: "nntp://h/comp.lang.go", f: plainFetcher{}, err: ErrUnsupported},
		{raw: "news:comp.lang.go", f: dialingFetcher{}, shards: 2, err: ErrShard},
		{raw: "nntp://h/comp.lang.go/12", f: dialingFetcher{}, want: "news"}, // refused later, by newsTargetOf
		{raw: "file:///tmp/", f: plainFetcher{}, err: ErrUnsupported},
		{raw: "telnet://h/", f: plainFetcher{}, err: ErrUnsupported},
		{raw: "mailto:a@b", f: plainFetcher{}, err: ErrUnsupported},
		{raw: "ftp://h/a;type=x", f: plainFetcher{}, err: &uri.Error{}}, // section 3.2.2
		{raw: "gopher://h/0/a", f: plainFetcher{}, want: ""},            // not a menu
	}
	for _, tt := range tests {
		u, err := uri.Parse(tt.raw)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.raw, err)
		}
		w, nd, err := sourceOf(tt.f, u, Options{Shards: tt.shards, Shard: min(tt.shards, 1)})
		got := ""
		switch {
		case err != nil:
		case nd != nil:
			got = "news"
		default:
			got = typeName(w)
		}
		if got != tt.want {
			t.Errorf("sourceOf(%q) = %s, %v; want %s", tt.raw, got, err, tt.want)
		}
		var ue *uri.Error
		switch e := tt.err.(type) {
		case nil:
			if tt.want != "" && err != nil {
				t.Errorf("sourceOf(%q): %v", tt.raw, err)
			}
		case *uri.Error:
			if !errors.As(err, &ue) || errors.Is(err, uri.ErrOtherScheme) || errors.Is(err, ErrUnsupported) {
				t.Errorf("sourceOf(%q): %v, want the view's *uri.Error", tt.raw, err)
			}
		default:
			if !errors.Is(err, e) {
				t.Errorf("sourceOf(%q): %v, want %v", tt.raw, err, e)
			}
		}
	}
}

func typeName(w walker) string {
	switch w.(type) {
	case *ftpWalker:
		return "*mirror.ftpWalker"
	case *gopherWalker:
		return "*mirror.gopherWalker"
	case *httpWalker:
		return "*mirror.httpWalker"
	}
	return "?"
}
