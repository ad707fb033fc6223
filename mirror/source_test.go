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

// A gopher menu item is followed only when its URL has a gopher view (RFC
// 1738 section 3.4) and names the starting server: an item of another
// scheme is "not a gopher document", one on another server is skipped
// for that.
func TestGopherItemScheme(t *testing.T) {
	start := uri.MustParse("gopher://127.0.0.1:7070/1/hole")
	w, err := newGopherWalker(start)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		url    string
		reason string // "" for an entry that is kept
		other  bool   // skipped for errOtherServer
	}{
		{url: "gopher://127.0.0.1:7070/0/hole/a.txt"},
		{url: "http://127.0.0.1:7070/0/hole/a.txt", reason: "item type 0 is not a gopher document"},
		{url: "ftp://127.0.0.1:7070/hole/a.txt", reason: "item type 0 is not a gopher document"},
		{url: "gopher://[::1]:7070/0/hole/a.txt", other: true},
	}
	for _, tt := range tests {
		l := &listing{}
		l.addItem(w, proto.Entry{Name: "a.txt", ItemType: "0", URL: tt.url})
		switch {
		case tt.other:
			if len(l.skipped) != 1 || !errors.Is(l.skipped[0].err, errOtherServer) {
				t.Errorf("%s: skipped %+v, want one for errOtherServer", tt.url, l.skipped)
			}
		case tt.reason != "":
			if len(l.skipped) != 1 || l.skipped[0].Reason != tt.reason || len(l.files) != 0 {
				t.Errorf("%s: skipped %+v, files %d; want %q", tt.url, l.skipped, len(l.files), tt.reason)
			}
		default:
			if len(l.skipped) != 0 || len(l.files) != 1 {
				t.Errorf("%s: skipped %+v, files %d; want one file", tt.url, l.skipped, len(l.files))
			}
		}
	}
}
