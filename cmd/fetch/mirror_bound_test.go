package main

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// TestMirrorBoundFlags: --max-depth, --max-files and --quota end the run
// with exit 8 and the bound named, in the summary line, on stderr and as
// the "bound" key of --json; --max-listing fails a listing over it, the
// start's with exit 9 (the server broke the protocol).
func TestMirrorBoundFlags(t *testing.T) {
	fsys := fstest.MapFS{
		"a":         &fstest.MapFile{Data: []byte("aaaa")},
		"b":         &fstest.MapFile{Data: []byte("bbbb")},
		"d/e/f/g/h": &fstest.MapFile{Data: []byte("deep")},
	}
	srv, err := fetchtest.StartGopher(fsys)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	u := "gopher://" + srv.Addr() + "/1"
	for _, tc := range []struct {
		flags []string
		bound string
	}{
		{[]string{"--max-depth", "3"}, "max-depth 3"},
		{[]string{"--max-files", "1"}, "max-files 1"},
		{[]string{"--quota", "1", "-j", "1"}, "quota 1 bytes"},
	} {
		args := append(append([]string{"mirror", "-s"}, tc.flags...), u, t.TempDir())
		r := runArgs(t, nil, "", args...)
		if r.code != fetch.ExitPartial || !strings.Contains(r.out, "(stopped at the bound "+tc.bound+")") ||
			!strings.Contains(r.err, "stopped at the bound "+tc.bound) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 8, the bound %s named", tc.flags, r.code, r.out, r.err, tc.bound)
		}
		r = runArgs(t, nil, "", append([]string{"mirror", "--json"}, args[1:]...)...)
		var rep struct{ Bound string }
		if err := json.Unmarshal([]byte(r.out), &rep); err != nil || r.code != fetch.ExitPartial || rep.Bound != tc.bound {
			t.Errorf("%v --json: exit %d, bound %q (%v); want 8, %q", tc.flags, r.code, rep.Bound, err, tc.bound)
		}
	}
	if r := runArgs(t, nil, "", "mirror", "-s", "--max-depth", "0", u, t.TempDir()); r.code != 0 {
		t.Errorf("--max-depth 0 (no bound): exit %d, stderr %q", r.code, r.err)
	}
	if r := runArgs(t, nil, "", "mirror", "-s", "--max-listing", "10", u, t.TempDir()); r.code != fetch.ExitProtocol {
		t.Errorf("--max-listing 10: exit %d, stderr %q; want %d", r.code, r.err, fetch.ExitProtocol)
	}
	for _, bad := range [][]string{{"--max-depth", "-1"}, {"--max-files", "-1"}, {"--quota", "5x"}, {"--max-listing", "0"}} {
		if r := runArgs(t, nil, "", append(append([]string{"mirror"}, bad...), u, t.TempDir())...); r.code != fetch.ExitUsage {
			t.Errorf("%v: exit %d, want %d", bad, r.code, fetch.ExitUsage)
		}
	}
}
