package ftp

import (
	"reflect"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// A LIST answer of which not one line fits a known layout: the names come
// from NLST, a CWD tells a directory (and the connection comes straight
// back with a CWD to the directory's PWD), SIZE and MDTM describe a file.
// The LIST lines are still reported as unparsed, and the connection is
// left in the directory, so that the next URL there needs no CWD.
func TestNLSTFallback(t *testing.T) {
	f := newFake(t)
	// Login, the listed directory, after CWD sub, after CWD up (a link
	// to the login directory).
	f.pwds = []string{`257 "/"`, `257 "/pub"`, `257 "/pub/sub"`, `257 "/"`}
	f.lists["LIST"] = []byte("%%% a listing nobody knows %%%\r\nQ a.txt 12\r\nQ sub -\r\n")
	f.lists["NLST"] = []byte("a.txt\r\nsub\r\nup\r\n")
	f.files["a.txt"] = []byte("hello world\n")
	f.replies["CWD a.txt"] = "550 a.txt: not a directory"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, _, err := get(t, d, f.url("/pub/"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 3 {
		t.Fatalf("entries %+v, want a.txt, sub and up", resp.Entries)
	}
	a, sub, up := resp.Entries[0], resp.Entries[1], resp.Entries[2]
	if up.Name != "up" || up.Type != proto.EntryOther || up.Extra["pwd"] != "/" {
		t.Errorf("up = %+v, want an entry of type other leading to /", up)
	}
	if a.Name != "a.txt" || a.Type != proto.EntryFile || a.Size != 12 || a.ModTime.Year() != 2024 {
		t.Errorf("a.txt = %+v, want a file of 12 bytes from 2024", a)
	}
	if sub.Name != "sub" || sub.Type != proto.EntryDir {
		t.Errorf("sub = %+v, want a directory", sub)
	}
	if a.URL != f.url("/pub/a.txt") || sub.URL != f.url("/pub/sub/") {
		t.Errorf("URLs %q, %q", a.URL, sub.URL)
	}
	if !resp.Listing.Fallback {
		t.Errorf("Listing.Fallback = %v, want true", resp.Listing.Fallback)
	}
	want := []string{"%%% a listing nobody knows %%%", "Q a.txt 12", "Q sub -"}
	if got := resp.Listing.Unparsed; !reflect.DeepEqual(got, want) {
		t.Errorf("Listing.Unparsed = %q, want %q", got, want)
	}
	if _, body, err := get(t, d, f.url("/pub/a.txt;type=i"), quickReq()); err != nil || string(body) != "hello world\n" {
		t.Fatalf("a.txt after the fallback: %q, %v", body, err)
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"CWD pub|SYST|EPSV|LIST|EPSV|NLST|PWD|"+
		"CWD a.txt|SIZE a.txt|MDTM a.txt|CWD sub|PWD|CWD /pub|CWD up|PWD|CWD /pub|"+
		"SIZE a.txt|MDTM a.txt|EPSV|RETR a.txt|QUIT"))
}

// Without any usable PWD (the server refuses it, so there is no login
// directory either) the connection comes back from each directory with
// CDUP.
func TestNLSTFallbackNoPWD(t *testing.T) {
	f := newFake(t)
	f.replies["PWD"] = "550 no"
	f.lists["LIST"] = []byte("???\r\n")
	f.lists["NLST"] = []byte("d1\r\nd2\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, _, err := get(t, d, f.url("/a/b/"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 2 || resp.Entries[0].Type != proto.EntryDir || resp.Entries[1].Type != proto.EntryDir {
		t.Fatalf("entries %+v, want two directories", resp.Entries)
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"CWD a|CWD b|SYST|EPSV|LIST|EPSV|NLST|PWD|CWD d1|CDUP|CWD d2|CDUP|QUIT"))
}

// A PWD in the directory that gives nothing usable, after a login PWD
// that did: the connection comes back through its login directory and the
// URL's CWD list.
func TestNLSTFallbackLongWayBack(t *testing.T) {
	f := newFake(t)
	f.pwds = []string{`257 "/home" is cwd`, "550 cannot tell"}
	f.lists["LIST"] = []byte("???\r\n")
	f.lists["NLST"] = []byte("d1\r\nf\r\n")
	f.replies["CWD f"] = "550 not a directory"
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, _, err := get(t, d, f.url("/a/b/"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 2 || resp.Entries[0].Type != proto.EntryDir || resp.Entries[1].Type != proto.EntryFile {
		t.Fatalf("entries %+v, want a directory and a file", resp.Entries)
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"CWD a|CWD b|SYST|EPSV|LIST|EPSV|NLST|PWD|CWD d1|CWD /home|CWD a|CWD b|"+
		"CWD f|SIZE f|MDTM f|QUIT"))
}

// NLST refused: no fallback; the LIST lines are reported, no entry made up.
func TestNLSTFallbackRefused(t *testing.T) {
	f := newFake(t)
	f.lists["LIST"] = []byte("???\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, _, err := get(t, d, f.url("/"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 0 || resp.Listing.Fallback {
		t.Errorf("entries %+v, info %v: want none and no fallback", resp.Entries, resp.Info)
	}
	if got := resp.Listing.Unparsed; !reflect.DeepEqual(got, []string{"???"}) {
		t.Errorf("Listing.Unparsed = %q", got)
	}
}

// One line that parses is enough: no fallback, and the other line is
// reported as unparsed.
func TestOneGoodOneGarbage(t *testing.T) {
	f := newFake(t)
	f.lists["LIST"] = []byte("-rw-r--r-- 1 u g 4 Jan 01 2020 good.txt\r\n\x1bgarbage\r\n")
	f.lists["NLST"] = []byte("good.txt\r\n")
	f.start()
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, _, err := get(t, d, f.url("/"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Entries) != 1 || resp.Entries[0].Name != "good.txt" || resp.Listing.Fallback {
		t.Errorf("entries %+v, info %v", resp.Entries, resp.Info)
	}
	if got := resp.Listing.Unparsed; !reflect.DeepEqual(got, []string{"\x1bgarbage"}) {
		t.Errorf("Listing.Unparsed = %q", got)
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"SYST|EPSV|LIST|QUIT"))
}

func TestBelow(t *testing.T) {
	for _, tt := range []struct {
		dir, parent string
		want        bool
	}{
		{"/pub/sub", "/pub", true},
		{"/pub/sub", "/pub/", true},
		{"/pub", "/", true},
		{"/pub", "/pub", false},
		{"/", "/pub", false},
		{"/public", "/pub", false},
		{"/other", "/pub", false},
		// VMS directory specifications.
		{"DISK$USER:[ANONYMOUS.SUB]", "DISK$USER:[ANONYMOUS]", true},
		{"DISK$USER:[ANONYMOUS.SUB.X]", "DISK$USER:[ANONYMOUS.SUB]", true},
		{"DISK$USER:[ANONYMOUS]", "DISK$USER:[ANONYMOUS.SUB]", false},
		{"DISK$USER:[ANONYMOUSX]", "DISK$USER:[ANONYMOUS]", false},
		{"DISK$USER:[ANONYMOUS]", "DISK$USER:[ANONYMOUS]", false},
	} {
		if got := below(tt.dir, tt.parent); got != tt.want {
			t.Errorf("below(%q, %q) = %v, want %v", tt.dir, tt.parent, got, tt.want)
		}
	}
}
