package ftp

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// Through the Driver: each whole listing served by LIST (the server lists
// no MLST) comes back as its entries, with URLs that name them, and no
// ftp_unparsed; a line of none of the layouts is reported there.
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
			if u, _ := resp.Info["ftp_unparsed"].([]string); !reflect.DeepEqual(u, []string{"not a listing line"}) {
				t.Errorf("ftp_unparsed = %#v, want the one garbage line", resp.Info["ftp_unparsed"])
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
// is asked for once.
func TestListingCutMidLine(t *testing.T) {
	const whole = "-rw-r--r--   1 ftp ftp   10 Feb 03  2001 f1.txt\r\n-rw-r--r--   1 ftp ftp   10 Feb 03  2001 f2.txt\r\n"
	cut := whole[:len(whole)-6] // "... f2." parses as a file named "f2."
	for _, tt := range []struct {
		name    string
		answers []string
		want    string // entry names; "" for an error
		lists   int
	}{
		{"whole", []string{whole}, "f1.txt f2.txt", 1},
		{"cut then whole", []string{cut, whole}, "f1.txt f2.txt", 2},
		{"no final line end", []string{strings.TrimSuffix(whole, "\r\n")}, "f1.txt f2.txt", 2},
		{"cut twice", []string{cut, whole[:len(whole)-20]}, "", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t)
			f.listSeq = map[string][][]byte{}
			for _, a := range tt.answers {
				f.listSeq["LIST"] = append(f.listSeq["LIST"], []byte(a))
			}
			f.start()
			d := &Driver{}
			defer d.CloseIdleConnections()
			resp, _, err := get(t, d, f.url("/"), quickReq())
			switch {
			case tt.want == "" && !errors.Is(err, io.ErrUnexpectedEOF):
				t.Errorf("Fetch = %v, want io.ErrUnexpectedEOF", err)
			case tt.want != "" && err != nil:
				t.Errorf("Fetch = %v", err)
			case tt.want != "":
				var names []string
				for _, e := range resp.Entries {
					names = append(names, e.Name)
				}
				if got := strings.Join(names, " "); got != tt.want {
					t.Errorf("entries %q, want %q", got, tt.want)
				}
				if u := resp.Info["ftp_unparsed"]; u != nil {
					t.Errorf("ftp_unparsed = %q", u)
				}
			}
			f.mu.Lock()
			n := strings.Count(f.wire.String(), "LIST")
			f.mu.Unlock()
			if n != tt.lists {
				t.Errorf("%d LIST commands, want %d", n, tt.lists)
			}
		})
	}
}
