package ftp

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Through the Driver: each whole listing served by LIST (the server lists
// no MLST) comes back as its entries, with URLs that name them, and no
// Listing.Unparsed; a line of none of the layouts is reported there.
func TestDriverListLayouts(t *testing.T) {
	for _, tt := range wholeListings {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.lists["LIST"] = []byte(tt.raw + "not a listing line\r\n")
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			resp, _, err := get(t, d, f.url("/"), quickReq())
			if err != nil {
				t.Fatal(err)
			}
			if s := entryNames(resp.Entries); s != tt.want {
				t.Errorf("entries = %s, want %s", s, tt.want)
			}
			if u := resp.Listing.Unparsed; !reflect.DeepEqual(u, []string{"not a listing line"}) {
				t.Errorf("Listing.Unparsed = %#v, want the one garbage line", u)
			}
			for _, e := range resp.Entries {
				if want := entryURL("ftp://"+f.addr()+"/", e); e.URL != want {
					t.Errorf("%q: URL %q, want %q", e.Name, e.URL, want)
				}
			}
		})
	}
	// The URLs of a VMS file (";" escaped) and a VMS directory.
	got := map[string]string{}
	for _, tt := range wholeListings {
		if tt.name != "vms" {
			continue
		}
		for _, e := range first(parseListing([]byte(tt.raw), formatLIST, "", now)) {
			got[e.Name] = entryURL("ftp://h/", e)
		}
	}
	if got["README.TXT;3"] != "ftp://h/README.TXT%3B3" || got["SUBDIR"] != "ftp://h/SUBDIR/" {
		t.Errorf("VMS entry URLs = %q", got)
	}
}

// A listing whose data ends in the middle of a line is asked for again:
// its data connection may have been cut on the way, with the server's 226
// all the same, and its last line may even parse, as a shorter name. The
// same bytes twice are the listing (a server that ends its last line with
// nothing); a whole second answer replaces the first; two different cut
// answers are io.ErrUnexpectedEOF. A listing that ends with its line end
// is asked for once. List, which hands entries over as they come, reads
// of the second answer only what the first lacked, and fails when the
// second does not begin with the first's whole lines (it cannot take
// back what it handed over).
func TestListingCutMidLine(t *testing.T) {
	const whole = "-rw-r--r--   1 ftp ftp   10 Feb 03  2001 f1.txt\r\n-rw-r--r--   1 ftp ftp   10 Feb 03  2001 f2.txt\r\n"
	cut := whole[:len(whole)-6] // "... f2." parses as a file named "f2."
	other := strings.Replace(whole, "f1", "g1", 1)
	for _, tt := range []struct {
		name    string
		answers []string
		want    string // entry names; "" for an error
		stream  string // what List gives, when not want
		lists   int
	}{
		{"whole", []string{whole}, "f1.txt f2.txt", "", 1},
		{"cut then whole", []string{cut, whole}, "f1.txt f2.txt", "", 2},
		{"no final line end", []string{strings.TrimSuffix(whole, "\r\n")}, "f1.txt f2.txt", "", 2},
		{"cut twice", []string{cut, whole[:len(whole)-20]}, "", "", 2},
		{"cut, then other lines", []string{cut, other}, "g1.txt f2.txt", "-", 2},
	} {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", tt.name, stream), func(t *testing.T) {
				want := tt.want
				if stream && tt.stream != "" {
					want = strings.Trim(tt.stream, "-")
				}
				testCutMidLine(t, tt.answers, want, tt.lists, stream)
			})
		}
	}
}

func testCutMidLine(t *testing.T, answers []string, want string, lists int, stream bool) {
	f := newFake(t)
	f.listSeq = map[string][][]byte{}
	for _, a := range answers {
		f.listSeq["LIST"] = append(f.listSeq["LIST"], []byte(a))
	}
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	entries, notes, err := listVia(t, d, f.url("/"), quickReq(), stream)
	switch {
	case want == "" && !errors.Is(err, io.ErrUnexpectedEOF):
		t.Errorf("listing = %v, want io.ErrUnexpectedEOF", err)
	case want != "" && err != nil:
		t.Errorf("listing = %v", err)
	case want != "":
		var names []string
		for _, e := range entries {
			names = append(names, e.Name)
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("entries %q, want %q", got, want)
		}
		if notes.Unparsed != nil {
			t.Errorf("unparsed %q", notes.Unparsed)
		}
	}
	f.mu.Lock()
	n := strings.Count(f.wire.String(), "LIST")
	f.mu.Unlock()
	if n != lists {
		t.Errorf("%d LIST commands, want %d", n, lists)
	}
}

// listVia lists rawURL with d: with Fetch, which reads the listing whole,
// or with List (stream), which hands each entry over as it comes.
func listVia(t *testing.T, d *Driver, rawURL string, req *proto.Request, stream bool) ([]proto.Entry, *proto.Listing, error) {
	t.Helper()
	if stream {
		return proto.ListAll(t.Context(), d, uri.MustParse(rawURL), req)
	}
	resp, _, err := get(t, d, rawURL, req)
	if err != nil {
		return nil, nil, err
	}
	return resp.Entries, resp.Listing, nil
}
