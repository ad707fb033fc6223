package localserver

import (
	"context"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// get fetches raw with d and returns the response and its whole body.
func get(t *testing.T, d proto.Driver, raw string, req *proto.Request) (*proto.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := d.Fetch(ctx, uri.MustParse(raw), req)
	if err != nil {
		t.Fatalf("Fetch(%s) = %v", raw, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", raw, err)
	}
	return resp, string(b)
}

func TestRawFTPServesListingsAndFiles(t *testing.T) {
	s := HostileFTP()
	if err := StartRawFTP(s); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := &ftp.Driver{}
	defer d.CloseIdleConnections()

	resp, _ := get(t, d, "ftp://"+s.Addr()+"/", nil)
	var names []string
	for _, e := range resp.Entries {
		names = append(names, e.Name)
	}
	// The listing arrives as sent: the hostile names intact, "lf\ninjected"
	// split at its LF, "." and ".." left out by the parser.
	for _, want := range []string{"ok.txt", "../escape", "/etc/passwd", "a/../../b", "cr\rinside", "trailing-cr\r", "lf", "nul\x00inside", "etc", "../updir", ".fetch", "sub"} {
		if !slices.Contains(names, want) {
			t.Errorf("listing lacks %q: %q", want, names)
		}
	}
	if _, body := get(t, d, "ftp://"+s.Addr()+"/sub/deep.txt", nil); body != "deep\n" {
		t.Errorf("sub/deep.txt = %q", body)
	}
	if _, body := get(t, d, "ftp://"+s.Addr()+"/ok.txt", nil); body != "fine!\n" {
		t.Errorf("ok.txt = %q", body)
	}
	cmds := s.Commands()
	if !slices.Contains(cmds, "RETR deep.txt") || !slices.Contains(cmds, "CWD sub") {
		t.Errorf("commands %q lack CWD sub, RETR deep.txt", cmds)
	}
}
