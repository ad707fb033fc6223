package fetch

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// A mirror lists FTP directories entry by entry through the client:
// after the policy check (a URL the policy refuses is a *Error of the
// check, and nothing is listed), on the starting server only (another
// is left to the mirror's fetch, errors.ErrUnsupported), and only when
// no WARC record or rate limit needs the listing's body.
func TestMirrorFetcherList(t *testing.T) {
	s := &localserver.RawFTP{Listings: map[string]string{
		"/": "-rw-r--r-- 1 0 0 5 Feb 03  2001 a\r\ndrwxr-xr-x 2 0 0 4096 Feb 03  2001 d\r\n",
	}}
	if err := localserver.StartRawFTP(s); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c := &Client{}
	start := uri.MustParse("ftp://" + s.Addr() + "/")
	own := ftp.New(ftp.Config{}).ForRun(2, 0)
	f := &mirrorFetcher{c: c, start: start, own: own}
	defer own.(proto.IdleCloser).CloseIdleConnections()
	var names []string
	fn := func(e proto.Entry) error { names = append(names, e.Name); return nil }
	notes, err := f.List(ctx, start, &proto.Request{}, fn)
	if err != nil || notes == nil || !slices.Equal(names, []string{"a", "d"}) {
		t.Fatalf("List = %q, %+v, %v", names, notes, err)
	}
	names = nil
	var fe *Error
	_, err = f.List(ctx, uri.MustParse("ftp://"+s.Addr()+"/x%0D%0ADELE%20a/"), &proto.Request{}, fn)
	if !errors.As(err, &fe) || fe.Op != "check" || names != nil {
		t.Errorf("List of a URL the policy refuses = %v, %q; want the check's *Error, nothing listed", err, names)
	}
	if _, err := f.List(ctx, uri.MustParse("ftp://[::1]:21/"), &proto.Request{}, fn); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("List of another server = %v, want errors.ErrUnsupported", err)
	}
	if !c.streams() {
		t.Error("a plain client does not stream its mirror's listings")
	}
	for _, c := range []*Client{{LimitRate: 1000}, {WARC: &warc.Writer{}}, {SpeedLimit: 10, SpeedTime: time.Second}} {
		if c.streams() {
			t.Errorf("%+v streams its mirror's listings", c)
		}
		f := &mirrorFetcher{c: c, start: start, own: own}
		if _, err := f.List(ctx, start, &proto.Request{}, fn); !errors.Is(err, errors.ErrUnsupported) {
			t.Errorf("List with %+v = %v, want errors.ErrUnsupported", c, err)
		}
	}
}
