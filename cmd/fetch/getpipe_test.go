package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
)

// Several ftp URLs without -Z: one login, the files one after another on
// that connection with the passive-mode commands pipelined (an EPSV goes
// out for the next file with the RETR of this one, so there are more EPSV
// than RETR), every file byte-exact (the bigger ones, over 64 KiB, go
// into their files by the splice path). One URL alone pipelines nothing.
func TestGetSerialPipelinedFTP(t *testing.T) {
	const n = 12
	srv := &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: parallelFiles(n)}
	startRaw(t, srv)
	dir := t.TempDir()
	args := []string{"get", "-s", "-O", "--output-dir", dir}
	var names []string
	for i := range n {
		name := fmt.Sprintf("f%02d.bin", i)
		names = append(names, name)
		args = append(args, "ftp://"+srv.Addr()+"/pub/"+name)
	}
	r := runArgs(t, nil, "", args...)
	if r.code != 0 || r.err != "" {
		t.Fatalf("get = %d, stderr %q", r.code, r.err)
	}
	for i, name := range names {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if want := srv.Files["/pub/"+name]; err != nil || !bytes.Equal(got, want) {
			t.Errorf("file %d: %d bytes (%v), want %d", i, len(got), err, len(want))
		}
	}
	assertOnly(t, dir, names...)
	// The last EPSV, sent ahead when the last file ended, goes out with
	// the QUIT: wait for the server to have read them.
	if !srv.WaitIdle(10 * time.Second) {
		t.Fatal("the session did not end within 10 s")
	}
	cmds := srv.Commands()
	logins, retrs, epsv := countVerb(cmds, "USER"), countVerb(cmds, "RETR"), countVerb(cmds, "EPSV")
	if logins != 1 || retrs != n {
		t.Errorf("%d logins and %d RETR for %d URLs, want 1 and %d", logins, retrs, n, n)
	}
	if epsv <= retrs {
		t.Errorf("%d EPSV for %d RETR: the passive-mode commands were not pipelined: %q", epsv, retrs, cmds)
	}

	one := &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: parallelFiles(2)}
	if err := localserver.StartRawFTP(one); err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if r := runArgs(t, nil, "", "get", "-s", "-O", "--output-dir", t.TempDir(), "ftp://"+one.Addr()+"/pub/f01.bin"); r.code != 0 {
		t.Fatalf("get of one URL = %d, stderr %q", r.code, r.err)
	}
	if c := one.Commands(); countVerb(c, "EPSV") != 1 || countVerb(c, "RETR") != 1 {
		t.Errorf("one URL: %d EPSV, %d RETR; want 1 and 1", countVerb(c, "EPSV"), countVerb(c, "RETR"))
	}
}
