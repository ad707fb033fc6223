package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// fetch mirror of a newsgroup from an in-process server: the articles, the
// mbox export, the flags' errors, and no password in any output.
func TestMirrorNewsCommand(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER", User: "u", Pass: "pw-z8q"}
	for i := int64(1); i <= 5; i++ {
		srv.Post("From: a@x\nMessage-ID: <"+string(rune('a'+i))+"@x>\n\nFrom here\n.dot\n", []string{"g.x"}, []int64{i})
	}
	srv.Start(t)
	port := srv.Addr[strings.LastIndexByte(srv.Addr, ':')+1:]
	dir := t.TempDir()
	mbox := filepath.Join(t.TempDir(), "out.mbox")
	r := runArgs(t, nil, "", "mirror", "-v", "--allow-port", port, "--max-articles", "3", "--mbox", mbox,
		"nntp://u:pw-z8q@"+srv.Addr+"/g.*", dir)
	if r.code != 0 {
		t.Fatalf("mirror = %d: %s", r.code, r.err)
	}
	if strings.Contains(r.out+r.err, "pw-z8q") {
		t.Errorf("the password is in the output:\n%s\n%s", r.out, r.err)
	}
	if !strings.Contains(r.err, "AUTHINFO PASS ****") {
		t.Errorf("the -v trace lacks the redacted AUTHINFO PASS:\n%s", r.err)
	}
	for i, want := range []bool{false, false, true, true, true} {
		_, err := os.Stat(filepath.Join(dir, "g", "x", string(rune('1'+i))))
		if (err == nil) != want {
			t.Errorf("article %d present = %v, want %v (--max-articles 3)", i+1, err == nil, want)
		}
	}
	b, err := os.ReadFile(mbox)
	if err != nil || strings.Count("\n"+string(b), "\nFrom a@x ") != 3 || strings.Count(string(b), "\n>From here\n") != 3 {
		t.Errorf("mbox = %q, %v", b, err)
	}
	for _, args := range [][]string{
		{"mirror", "--max-articles", "-1", "news:g", dir},
		{"mirror", "news:g", dir}, // no server
	} {
		if r := runArgs(t, nil, "", args...); r.code != fetch.ExitUsage {
			t.Errorf("%q = %d, want %d (%s)", args, r.code, fetch.ExitUsage, r.err)
		}
	}
}
