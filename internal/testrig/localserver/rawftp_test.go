package localserver

import (
	"slices"
	"testing"

	"github.com/rfc1738/fetch/proto/ftp"
)

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
