package main

import (
	"testing"

	"github.com/rfc1738/fetch/proto"
)

func TestLsMode(t *testing.T) {
	tests := []struct {
		name  string
		typ   proto.EntryType
		extra map[string]string
		want  string
	}{
		// A Unix LIST line's own mode column is shown as it is.
		{"unix", proto.EntryFile, map[string]string{"perm": "-rw-r--r--"}, "-rw-r--r--"},
		{"unix acl mark", proto.EntryDir, map[string]string{"perm": "drwxr-x---+"}, "drwxr-x---+"},
		// RFC 3659 section 7.5.5: MLSD's perm fact lists what the login may
		// do ("adfr"), not a mode; UNIX.mode (proftpd, pure-ftpd) gives one.
		{"mlsd perm with unix.mode", proto.EntryFile, map[string]string{"perm": "adfr", "unix.mode": "0644"}, "-rw-r--r--"},
		{"mlsd dir unix.mode", proto.EntryDir, map[string]string{"perm": "flcdmpe", "unix.mode": "0755"}, "drwxr-xr-x"},
		{"mlsd perm only", proto.EntryFile, map[string]string{"perm": "r"}, "-?????????"},
		{"bad unix.mode", proto.EntryFile, map[string]string{"unix.mode": "9x"}, "-?????????"},
		{"nothing", proto.EntryLink, nil, "l?????????"},
		{"setuid letters kept", proto.EntryFile, map[string]string{"perm": "-rwsr-xr-x"}, "-rwsr-xr-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := proto.Entry{Name: "x", Type: tt.typ, Size: 1, Extra: tt.extra}
			if got := lsMode(e); got != tt.want {
				t.Errorf("lsMode(%v) = %q, want %q", tt.extra, got, tt.want)
			}
		})
	}
}
