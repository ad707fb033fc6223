package localserver

import (
	"strings"
	"testing"
	"time"
)

// The VMS fake's path syntax: full, relative and bare directory names, a
// file by its full name or, without a version, its highest version.
func TestVMSPaths(t *testing.T) {
	s, err := SystemFTP(SysVMS, Tree{
		Files: map[string][]byte{"A.TXT;1": nil, "A.TXT;10": nil, "A.TXT;9": nil, "SUB/DEEP/B.DAT;2": nil},
		Time:  time.Unix(1e9, 0).UTC(),
	})
	if err != nil {
		t.Fatal(err)
	}
	p := vmsPaths{}
	if got := p.PWD("/SUB/DEEP"); got != "DISK$USER:[ANONYMOUS.SUB.DEEP]" {
		t.Errorf("PWD = %q", got)
	}
	for _, tt := range []struct{ dir, arg, want string }{
		{"/", "DISK$USER:[ANONYMOUS]", "/"},
		{"/SUB/DEEP", "disk$user:[anonymous.sub]", "/SUB"},
		{"/", "[.SUB.DEEP]", "/SUB/DEEP"},
		{"/SUB", "deep", "/SUB/DEEP"},
		{"/SUB/DEEP", "[-]", "/SUB"},
		{"/", "NOPE", ""},
		{"/", "SUB/DEEP", ""},
		{"/", "DISK$USER:[OTHER]", ""},
	} {
		got, ok := p.CWD(s, tt.dir, tt.arg)
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("CWD %q in %s = %q, %v; want %q", tt.arg, tt.dir, got, ok, tt.want)
		}
	}
	for _, tt := range []struct{ dir, arg, want string }{
		{"/", "A.TXT", "/A.TXT;10"},
		{"/", "a.txt;9", "/A.TXT;9"},
		{"/SUB/DEEP", "B.DAT", "/SUB/DEEP/B.DAT;2"},
		{"/", "A.TXT;3", ""},
		{"/", "SUB/DEEP/B.DAT", ""},
	} {
		got, ok := p.File(s, tt.dir, tt.arg)
		if !ok {
			got = ""
		}
		if got != tt.want {
			t.Errorf("File %q in %s = %q, %v; want %q", tt.arg, tt.dir, got, ok, tt.want)
		}
	}
	if l := s.Listings["/"]; !strings.Contains(l, "SUB.DIR;1 ") || !strings.HasPrefix(l, "\r\nDirectory DISK$USER:[ANONYMOUS]\r\n") {
		t.Errorf("listing of / = %q", l)
	}
	if _, err := SystemFTP("plan9", Tree{}); err == nil {
		t.Errorf("an unknown system was accepted")
	}
}
