package fetchtest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

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

func TestFTPServesFiles(t *testing.T) {
	mem := afero.NewMemMapFs()
	afero.WriteFile(mem, "/pub/hello.txt", []byte("hello\n"), 0o644)
	afero.WriteFile(mem, "/pub/sub/x.bin", []byte{0, 1, 2}, 0o644)
	for _, mlsd := range []bool{true, false} {
		srv, err := StartFTP(mem, FTPOptions{User: "u", Password: "p", DisableMLSD: !mlsd})
		if err != nil {
			t.Fatal(err)
		}
		d := &ftp.Driver{}
		if _, body := get(t, d, "ftp://"+srv.Addr()+"/pub/hello.txt;type=i", nil); body != "hello\n" {
			t.Errorf("RETR body = %q", body)
		}
		if _, body := get(t, d, "ftp://u:p@"+srv.Addr()+"/pub/sub/x.bin", nil); body != "\x00\x01\x02" {
			t.Errorf("RETR as user body = %q", body)
		}
		resp, _ := get(t, d, "ftp://"+srv.Addr()+"/pub/", nil)
		if resp.Kind != proto.KindDirectory || len(resp.Entries) != 2 {
			t.Errorf("listing (MLSD %v) = %+v", mlsd, resp.Entries)
		}
		d.CloseIdleConnections()
		if err := srv.Close(); err != nil {
			t.Logf("close: %v", err)
		}
	}
}

func TestGopherServesMenusAndFiles(t *testing.T) {
	fsys := fstest.MapFS{
		"docs/readme.txt": {Data: []byte("line one\r\n.\r\n..two\r\n")},
		"bin/data.bin":    {Data: []byte{0, 1, 2, 3}},
	}
	srv, err := StartGopher(fsys)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := &gopher.Driver{}
	resp, _ := get(t, d, "gopher://"+srv.Addr()+"/1", nil)
	if resp.Kind != proto.KindDirectory {
		t.Fatalf("root kind = %v", resp.Kind)
	}
	var dirs int
	for _, e := range resp.Entries {
		if e.ItemType == "1" {
			dirs++
		}
	}
	if dirs != 2 {
		t.Errorf("root menu has %d menus, want 2: %+v", dirs, resp.Entries)
	}
	// The Gopher+ "+" view carries a length header: exact bytes, "." lines
	// included.
	if _, body := get(t, d, "gopher://"+srv.Addr()+"/0/docs/readme.txt%09%09+", nil); body != "line one\r\n.\r\n..two\r\n" {
		t.Errorf("gopher+ text = %q", body)
	}
	if _, body := get(t, d, "gopher://"+srv.Addr()+"/9/bin/data.bin", nil); body != "\x00\x01\x02\x03" {
		t.Errorf("binary = %q", body)
	}
	_, err = d.Fetch(context.Background(), uri.MustParse("gopher://"+srv.Addr()+"/0/nope"), nil)
	if err == nil {
		t.Errorf("missing selector: no error")
	}
}

// TestGopherPlusItems checks the Items of GopherOptions against the gopher
// driver: a "!" request gets +INFO and the item's blocks (gopherplus.txt
// section 2.5), a "?" item is listed as such and its +ASK form is answered
// (section 2.8, RFC 1738 section 3.4.9), and a type 7 search gets its
// string (RFC 1436 section 3.7).
func TestGopherPlusItems(t *testing.T) {
	fsys := fstest.MapFS{"about.txt": {Data: []byte("about\n")}}
	srv, err := StartGopherWith(fsys, GopherOptions{Items: map[string]GopherItem{
		"/about.txt": {Attributes: "+ADMIN:\n Admin: Demo <demo@example.org>\n+VIEWS:\n text/plain: <1k>\n"},
		"/form": {Type: "0", Ask: []string{"Select: Subscribe?:0"},
			Serve: func(_ string, answers []string) []byte { return []byte(strings.Join(answers, ",") + "\n") }},
		"/search": {Type: "7", Title: "Search",
			Serve: func(q string, _ []string) []byte { return []byte("i" + q + "\t\terror.host\t1\r\n.\r\n") }},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := &gopher.Driver{}
	base := "gopher://" + srv.Addr()

	resp, _ := get(t, d, base+"/1", nil)
	var kinds []string
	for _, e := range resp.Entries[1:] { // after the "Index of /" line
		kinds = append(kinds, e.ItemType+e.Name+e.Extra["plus"])
	}
	if want := "0about.txt+ 0form? 7Search+"; strings.Join(kinds, " ") != want {
		t.Errorf("menu items = %q, want %q", kinds, want)
	}
	resp, _ = get(t, d, base+"/0/about.txt%09%09!", nil)
	attrs, _ := resp.Info["attributes"].([]gopher.Attributes)
	if len(attrs) != 1 || attrs[0].Admin["Admin"] != "Demo <demo@example.org>" || len(attrs[0].Views) != 1 || attrs[0].Info == nil {
		t.Errorf("attributes = %+v", attrs)
	}
	if _, body := get(t, d, base+"/0/form%09%09?", &proto.Request{Form: map[string]string{"1": "1"}}); body != "1\n" {
		t.Errorf("form answer = %q, want the answer line back", body)
	}
	resp, _ = get(t, d, base+"/7/search", &proto.Request{Search: "two words"})
	if len(resp.Entries) != 1 || resp.Entries[0].Name != "two words" {
		t.Errorf("search result = %+v", resp.Entries)
	}
}

// TestNNTPHeadBodyOver checks the reader commands on one article: HEAD and
// BODY send its parts (RFC 3977 sections 6.2.2, 6.2.3), OVER its headers'
// values (section 8.3.2), a dot-started line is doubled (section 3.1.1).
func TestNNTPHeadBodyOver(t *testing.T) {
	s := &NNTP{Over: "OVER"}
	s.Post("From: a@example.org\nSubject: Hi\tthere\nDate: Tue, 20 Dec 1994 12:00:00 +0000\nMessage-ID: <1@x>\n\nbody\n.dot\n", []string{"g"}, []int64{1})
	s.Start(t)
	c, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, "GROUP g\r\nHEAD 1\r\nBODY 1\r\nOVER 1-1\r\nQUIT\r\n")
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	want := "200 fetchtest news server ready\r\n" +
		"211 1 1 1 g\r\n" +
		"221 1 <1@x>\r\nFrom: a@example.org\r\nSubject: Hi\tthere\r\nDate: Tue, 20 Dec 1994 12:00:00 +0000\r\nMessage-ID: <1@x>\r\n.\r\n" +
		"222 1 <1@x>\r\nbody\r\n..dot\r\n.\r\n" +
		"224 overview follows\r\n1\tHi there\ta@example.org\tTue, 20 Dec 1994 12:00:00 +0000\t<1@x>\t\t105\t2\r\n.\r\n" +
		"205 bye\r\n"
	if string(got) != want {
		t.Errorf("replies:\n%q\nwant\n%q", got, want)
	}
}

// TestFTPPassivePorts: with PassivePorts set, the port EPSV names (RFC
// 2428 section 3: "229 ... (|||port|)") is in the range. The range lies
// above Linux's default ephemeral ports (32768-60999), where a bind to
// port 0 would not land.
func TestFTPPassivePorts(t *testing.T) {
	first, last := 61000, 65535
	srv, err := StartFTP(afero.NewMemMapFs(), FTPOptions{PassivePorts: [2]int{first, last}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	nc, err := net.DialTimeout("tcp", srv.Addr(), 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	c := textproto.NewConn(nc)
	steps := []struct {
		cmd  string
		code int
	}{{"", 220}, {"USER anonymous", 331}, {"PASS x", 230}, {"EPSV", 229}}
	var msg string
	for _, s := range steps {
		if s.cmd != "" {
			if err := c.PrintfLine("%s", s.cmd); err != nil {
				t.Fatal(err)
			}
		}
		if _, msg, err = c.ReadResponse(s.code); err != nil {
			t.Fatalf("%q: %v", s.cmd, err)
		}
	}
	var port int
	_, tail, _ := strings.Cut(msg, "(|||")
	if _, err := fmt.Sscanf(tail, "%d|)", &port); err != nil || port < first || port > last {
		t.Errorf("EPSV reply %q: port %d (%v), want one in %d-%d", msg, port, err, first, last)
	}
}
