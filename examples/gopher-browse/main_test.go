package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

func TestRun(t *testing.T) {
	fsys := fstest.MapFS{
		"readme.txt":         {Data: []byte("hello\n")},
		"docs/a.txt":         {Data: []byte("a\n")},
		"docs/deep/b.txt":    {Data: []byte("b\n")},
		"docs/deep/more/c.t": {Data: []byte("c\n")},
	}
	srv, err := fetchtest.StartGopher(fsys)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	root := "gopher://" + srv.Addr() + "/1"

	tests := []struct {
		depth   int
		want    []string
		notWant []string
	}{
		{0, []string{"DIR    docs  " + "gopher://" + srv.Addr() + "/1/docs", "readme.txt"}, []string{"a.txt"}},
		{1, []string{"    TXT    a.txt", "    DIR    deep"}, []string{"b.txt"}},
		{5, []string{"      TXT    b.txt", "        BIN    c.t"}, nil},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		o := options{depth: tt.depth, maxMenus: 10, timeout: 10 * time.Second}
		if err := run(context.Background(), &out, root, o); err != nil {
			t.Fatalf("depth %d: %v", tt.depth, err)
		}
		for _, w := range tt.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("depth %d: output lacks %q:\n%s", tt.depth, w, out.String())
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(out.String(), w) {
				t.Errorf("depth %d: output has %q:\n%s", tt.depth, w, out.String())
			}
		}
	}
}

func TestRunRejectsOtherScheme(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, "ftp://127.0.0.1/", options{timeout: time.Second}); err == nil {
		t.Error("run accepted an ftp URL")
	}
}

func TestFollow(t *testing.T) {
	w := &walker{
		o:     options{depth: 3, maxMenus: 10, allHosts: false},
		start: uri.MustParse("gopher://127.0.0.1:7070/1"),
		seen:  map[string]bool{"gopher://127.0.0.1:7070/1/seen": true},
	}
	tests := []struct {
		e    proto.Entry
		open bool
		why  string
	}{
		{proto.Entry{ItemType: "1", URL: "gopher://127.0.0.1:7070/1/docs"}, true, ""},
		{proto.Entry{ItemType: "0", URL: "gopher://127.0.0.1:7070/0/a"}, false, ""},
		{proto.Entry{ItemType: "1", URL: "gopher://127.0.0.1:7070/1/seen"}, false, "already shown"},
		{proto.Entry{ItemType: "1", URL: "gopher://other.example/1/x"}, false, "another server"},
		{proto.Entry{ItemType: "1", URL: "gopher://127.0.0.1:7071/1/x"}, false, "another server"},
	}
	for _, tt := range tests {
		u, why := w.follow(tt.e, 0)
		if (u != nil) != tt.open || why != tt.why {
			t.Errorf("follow(%s) = %v, %q; want open %v, %q", tt.e.URL, u, why, tt.open, tt.why)
		}
	}
	// With -all-hosts, a menu on an SMTP port is refused by package safety.
	w.o.allHosts = true
	u, why := w.follow(proto.Entry{ItemType: "1", URL: "gopher://127.0.0.1:25/1/x"}, 0)
	if u != nil || !strings.Contains(why, "port-other-protocol") {
		t.Errorf("follow(port 25) = %v, %q; want refused (port-other-protocol)", u, why)
	}
	w.o.ports = []int{25}
	w.policy.AllowPorts = []int{25}
	if u, why := w.follow(proto.Entry{ItemType: "1", URL: "gopher://127.0.0.1:25/1/x"}, 0); u == nil {
		t.Errorf("follow(port 25) with the port allowed: %q", why)
	}
	if u, _ := w.follow(proto.Entry{ItemType: "1", URL: "gopher://127.0.0.1:7070/1/docs"}, 3); u != nil {
		t.Error("follow below the depth limit opened the menu")
	}
}
