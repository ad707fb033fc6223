package main

import (
	"testing"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/internal/probe"
)

// Issue 31, part 4: one "fetch get URL" parses the URL once, evaluates
// the safety policy once (the command prints the findings the client
// returns) and computes the FTP view once in the command; the other FTP
// views are the policy's (its wire check) and the driver's.
func TestGetParsesAndChecksOnce(t *testing.T) {
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/pub/f.bin", []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	// A password in the URL: its password-in-url warning must still be
	// printed, from the client's findings.
	raw := "ftp://anonymous:guest-pw@" + srv.Addr() + "/pub/f.bin"
	e, out, errb := newEnv("", &netlog{})
	n := probe.Start()
	code := runIn(t, e, "get", raw)
	probe.Stop()
	if code != fetch.ExitOK || out.String() != "data\n" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out.String(), errb.String())
	}
	want := "fetch: warning: ftp://anonymous:xxxxx@" + srv.Addr() + "/pub/f.bin: password-in-url: "
	if got := errb.String(); len(got) < len(want) || got[:len(want)] != want {
		t.Errorf("stderr = %q, want the password-in-url warning", got)
	}
	// The policy's check parses u.String() once more, to prove that the
	// URL survives a round trip (safety.Check on a hand-built URL).
	if got := n.Parse.Load(); got != 2 {
		t.Errorf("%d parses, want 2 (the command's and the policy's round trip)", got)
	}
	if got := n.Check.Load(); got != 1 {
		t.Errorf("%d policy checks, want 1", got)
	}
	if got := n.FTPView.Load(); got != 2 {
		t.Errorf("%d FTP views, want 2 (the policy's and the driver's)", got)
	}
}
