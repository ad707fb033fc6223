package ftp

import (
	"reflect"
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
