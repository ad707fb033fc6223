package gopher_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// Integration tests against pygopherd 3.0 (scripts/servers.sh); the fixture
// tree is described in internal/testrig/servertest/doc.go.

func realRequest() *proto.Request {
	return &proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 10 * time.Second}
}

// get fetches u and reads the whole body.
func get(t *testing.T, raw string, req *proto.Request) (*proto.Response, []byte) {
	t.Helper()
	if req == nil {
		req = realRequest()
	}
	resp, err := (&gopher.Driver{}).Fetch(t.Context(), uri.MustParse(raw), req)
	if err != nil {
		t.Fatalf("Fetch(%q) = %v", raw, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %q: %v", raw, err)
	}
	return resp, b
}

// selectors returns the selectors of the entries of type typ.
func selectors(entries []proto.Entry, typ string) []string {
	var s []string
	for _, e := range entries {
		if e.ItemType == typ {
			s = append(s, e.Extra["selector"])
		}
	}
	return s
}

func TestPygopherdRootMenu(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	for _, raw := range []string{"gopher://" + s.Addr + "/", "gopher://" + s.Addr, "gopher://" + s.Addr + "/1"} {
		resp, body := get(t, raw, nil)
		if resp.Kind != proto.KindDirectory || len(body) == 0 {
			t.Fatalf("%s: kind %v, %d bytes", raw, resp.Kind, len(body))
		}
		want := map[string]string{ // selector -> URL
			"/about.txt":      "gopher://" + s.Addr + "/0/about.txt",
			"/big":            "gopher://" + s.Addr + "/1/big",
			"/bin5m.bin":      "gopher://" + s.Addr + "/9/bin5m.bin",
			"/dir":            "gopher://" + s.Addr + "/1/dir",
			"/empty.txt":      "gopher://" + s.Addr + "/0/empty.txt",
			"/lines.txt":      "gopher://" + s.Addr + "/0/lines.txt",
			"/map":            "gopher://" + s.Addr + "/1/map",
			"/search":         "gopher://" + s.Addr + "/7/search",
			"/small.bin":      "gopher://" + s.Addr + "/9/small.bin",
			"/text.txt":       "gopher://" + s.Addr + "/0/text.txt",
			"/with space.txt": "gopher://" + s.Addr + "/0/with%20space.txt",
			"/words":          "gopher://" + s.Addr + "/1/words",
		}
		got := map[string]string{}
		for _, e := range resp.Entries {
			if e.Type != proto.EntryInfo {
				got[e.Extra["selector"]] = e.URL
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: items\n%v\nwant\n%v", raw, got, want)
		}
		// pygopherd sends no "." line: its menus end at the close.
		if end := resp.Info[gopher.InfoMenuEnd]; end != gopher.MenuEndClose {
			t.Errorf("%s: Info[%q] = %v, want %q", raw, gopher.InfoMenuEnd, end, gopher.MenuEndClose)
		}
	}
}

// TestGophernicusMenuEnd: Gophernicus ends every menu it lists with a "."
// line (RFC 1436), the ones of its subdirectories too.
func TestGophernicusMenuEnd(t *testing.T) {
	s := servertest.Get(t, servertest.Gophernicus)
	for _, sel := range []string{"", "/dir/", "/dir/sub/", "/links/"} {
		resp, _ := get(t, "gopher://"+s.Addr+"/1"+sel, nil)
		if end := resp.Info[gopher.InfoMenuEnd]; resp.Kind != proto.KindDirectory || end != gopher.MenuEndDot {
			t.Errorf("%q: kind %v, Info[%q] = %v; want a menu, %q", sel, resp.Kind, gopher.InfoMenuEnd, end, gopher.MenuEndDot)
		}
	}
}

func TestPygopherdNestedMenus(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	d := &gopher.Driver{}
	// Walk from /dir following the menus' own URLs down to three.txt.
	next := "gopher://" + s.Addr + "/1/dir"
	var path []string
	for depth := 0; depth < 5 && next != ""; depth++ {
		entries, _, err := proto.ListAll(t.Context(), d, uri.MustParse(next), realRequest())
		if err != nil {
			t.Fatalf("List(%q) = %v", next, err)
		}
		next = ""
		for _, e := range entries {
			switch e.Type {
			case proto.EntryDir:
				if e.Name != "empty" {
					next = e.URL
				}
			case proto.EntryFile:
				path = append(path, e.Extra["selector"])
			}
		}
	}
	// caf\xe9.txt: a selector in Latin-1 bytes, asked for as %E9.
	want := []string{"/dir/caf\xe9.txt", "/dir/one.txt", "/dir/sub/two.txt", "/dir/sub/deeper/three.txt"}
	if fmt.Sprint(path) != fmt.Sprint(want) {
		t.Errorf("files along the walk = %q, want %q", path, want)
	}
	for _, sel := range want {
		_, body := get(t, "gopher://"+s.Addr+"/0"+uri.Escape(sel, "/"), nil)
		file, err := os.ReadFile(servertest.Fixture(t, "gopher"+sel))
		if err != nil || string(body) != string(file) {
			t.Errorf("%s: %q, want %q (%v)", sel, body, file, err)
		}
	}
}

func TestPygopherdBigMenu(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	for _, raw := range []string{"gopher://" + s.Addr + "/1/big", "gopher://" + s.Addr + "/1/big%09%09+"} {
		resp, _ := get(t, raw, nil)
		sels := selectors(resp.Entries, "0")
		if len(sels) != servertest.ManyFiles || len(resp.Entries) != servertest.ManyFiles {
			t.Fatalf("%s: %d text items of %d entries, want %d", raw, len(sels), len(resp.Entries), servertest.ManyFiles)
		}
		for i, sel := range sels {
			if want := fmt.Sprintf("/big/item%04d.txt", i); sel != want {
				t.Fatalf("%s: item %d selector %q, want %q", raw, i, sel, want)
			}
		}
		if e := resp.Entries[1999]; e.URL != "gopher://"+s.Addr+"/0/big/item1999.txt" || e.Extra["plus"] != "+" {
			t.Errorf("%s: last entry %+v", raw, e)
		}
	}
}

func TestPygopherdText(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	for _, name := range []string{"text.txt", "lines.txt", "about.txt", "empty.txt", "with space.txt"} {
		file, err := os.ReadFile(servertest.Fixture(t, "gopher/"+name))
		if err != nil {
			t.Fatal(err)
		}
		sel := uri.Escape("/"+name, "/")
		// pygopherd sends text raw without a "." line: the lone "." line of
		// text.txt is data and must not end the text.
		resp, body := get(t, "gopher://"+s.Addr+"/0"+sel, nil)
		if string(body) != string(file) {
			t.Errorf("%s: got %q, want %q", name, body, file)
		}
		if resp.MediaType != "text/plain" || resp.Name != name {
			t.Errorf("%s: media type %q name %q", name, resp.MediaType, resp.Name)
		}
		// Gopher+: "+SIZE" header, exact data.
		resp, body = get(t, "gopher://"+s.Addr+"/0"+sel+"%09%09+", nil)
		if string(body) != string(file) || resp.Size != int64(len(file)) {
			t.Errorf("%s with +: %d bytes (Size %d), want %d", name, len(body), resp.Size, len(file))
		}
	}
}

func TestPygopherdBinary(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	for _, tc := range []struct {
		url  string
		sum  string
		size int64
	}{
		{"/9/bin5m.bin", servertest.Bin5MSHA256, servertest.Bin5MSize},
		{"/9/bin5m.bin%09%09+", servertest.Bin5MSHA256, servertest.Bin5MSize},
		{"/9/small.bin", servertest.SmallBinSHA256, servertest.SmallBinSize},
	} {
		raw := "gopher://" + s.Addr + tc.url
		resp, err := (&gopher.Driver{}).Fetch(t.Context(), uri.MustParse(raw), realRequest())
		if err != nil {
			t.Fatalf("Fetch(%q) = %v", raw, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, resp.Body)
		resp.Body.Close()
		if err != nil || n != tc.size || hex.EncodeToString(h.Sum(nil)) != tc.sum {
			t.Errorf("%s: %d bytes sha256 %x (%v), want %d bytes %s", raw, n, h.Sum(nil), err, tc.size, tc.sum)
		}
		if strings.HasSuffix(tc.url, "+") && resp.Size != tc.size {
			t.Errorf("%s: Size %d, want %d", raw, resp.Size, tc.size)
		}
	}
	if got := servertest.SHA256File(t, servertest.Fixture(t, "gopher/bin5m.bin")); got != servertest.Bin5MSHA256 {
		t.Errorf("fixture bin5m.bin sha256 %s, want %s", got, servertest.Bin5MSHA256)
	}
}

func TestPygopherdSearch(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	req := realRequest()
	req.Search = "alp"
	for _, tc := range []struct {
		raw string
		req *proto.Request
	}{
		{"gopher://" + s.Addr + "/7/search%09alp", nil},
		{"gopher://" + s.Addr + "/7/search", req},
		{"gopher://" + s.Addr + "/7/search%09alp%09+", nil},
	} {
		resp, _ := get(t, tc.raw, tc.req)
		if got := selectors(resp.Entries, "0"); fmt.Sprint(got) != "[/words/alpha.txt /words/alphabet.txt /words/alpine.txt]" {
			t.Errorf("%s: results %q", tc.raw, got)
		}
		if n := len(resp.Entries); n != 4 || resp.Entries[3].Name != `3 matches for "alp"` {
			t.Errorf("%s: %d entries, last %+v", tc.raw, n, resp.Entries[n-1])
		}
	}
	resp, _ := get(t, "gopher://"+s.Addr+"/7/search%09zzz", nil)
	if len(resp.Entries) != 1 || resp.Entries[0].Type != proto.EntryInfo {
		t.Errorf("no matches: %+v", resp.Entries)
	}
	// No search string and no terminal: exit 2, nothing sent.
	_, err := (&gopher.Driver{}).Fetch(t.Context(), uri.MustParse("gopher://"+s.Addr+"/7/search"), realRequest())
	if !errors.Is(err, proto.ErrNeedInput) {
		t.Errorf("search without a string: %v, want ErrNeedInput", err)
	}
}

func TestPygopherdAttributes(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	abstract, err := os.ReadFile(servertest.Fixture(t, "gopher/about.txt.abstract"))
	if err != nil {
		t.Fatal(err)
	}
	wantAbstract := strings.TrimRight(string(abstract), "\n")

	resp, body := get(t, "gopher://"+s.Addr+"/0/about.txt%09%09!", nil)
	attrs, _ := resp.Info["attributes"].([]gopher.Attributes)
	if len(attrs) != 1 {
		t.Fatalf("! gave %d items", len(attrs))
	}
	a := attrs[0]
	if a.Abstract != wantAbstract {
		t.Errorf("ABSTRACT = %q, want %q", a.Abstract, wantAbstract)
	}
	if a.Info == nil || a.Info.Selector != "/about.txt" || a.Admin["Admin"] != "fetch tests <nobody@fetch.invalid>" {
		t.Errorf("INFO %+v ADMIN %v", a.Info, a.Admin)
	}
	if !a.ModTime.Equal(servertest.FixtureTime) {
		t.Errorf("ModTime = %v, want %v", a.ModTime, servertest.FixtureTime)
	}
	if len(a.Views) != 1 || a.Views[0].Type != "text/plain" {
		t.Errorf("VIEWS = %+v", a.Views)
	}
	if strings.HasPrefix(string(body), "+-2") || !strings.Contains(string(body), "+ABSTRACT:\n") {
		t.Errorf("Body = %q", body)
	}

	// "$" on the root menu: the attributes of every item.
	resp, _ = get(t, "gopher://"+s.Addr+"/1%09%09$", nil)
	attrs, _ = resp.Info["attributes"].([]gopher.Attributes)
	found := false
	for _, a := range attrs {
		if a.Info != nil && a.Info.Selector == "/about.txt" {
			found = a.Abstract == wantAbstract
		}
	}
	if len(attrs) < 12 || !found {
		t.Errorf("$ gave %d items; about.txt with its abstract found: %v", len(attrs), found)
	}

	// Named blocks: pygopherd answers "!+ABSTRACT" with the document; the
	// driver asks "!" and keeps +INFO and +ABSTRACT.
	resp, _ = get(t, "gopher://"+s.Addr+"/0/about.txt%09%09!+ABSTRACT", nil)
	attrs, _ = resp.Info["attributes"].([]gopher.Attributes)
	if len(attrs) != 1 || attrs[0].Abstract != wantAbstract || len(attrs[0].Blocks) != 2 {
		t.Errorf("!+ABSTRACT = %+v", attrs)
	}
}

func TestPygopherdErrors(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	for _, raw := range []string{
		"gopher://" + s.Addr + "/0/nonexistent",
		"gopher://" + s.Addr + "/1/nonexistent",
		"gopher://" + s.Addr + "/9/nonexistent",
		"gopher://" + s.Addr + "/0/nonexistent%09%09+", // "--2" then code 1
	} {
		_, err := (&gopher.Driver{}).Fetch(t.Context(), uri.MustParse(raw), realRequest())
		if !errors.Is(err, proto.ErrNotFound) {
			t.Errorf("Fetch(%q) = %v, want ErrNotFound", raw, err)
		}
	}
}

func TestPygopherdGophermap(t *testing.T) {
	s := servertest.Get(t, servertest.Gopher)
	resp, _ := get(t, "gopher://"+s.Addr+"/1/map", nil)
	byType := map[string]proto.Entry{}
	for _, e := range resp.Entries {
		if _, ok := byType[e.ItemType]; !ok && e.ItemType != "i" {
			byType[e.ItemType] = e
		}
	}
	checks := []struct {
		typ, url string
		kind     proto.EntryType
	}{
		{"0", "gopher://" + s.Addr + "/0/about.txt", proto.EntryFile},
		{"1", "gopher://" + s.Addr + "/1/dir", proto.EntryDir},
		{"7", "gopher://" + s.Addr + "/7/search", proto.EntryOther},
		{"h", "http://127.0.0.1/", proto.EntryLink},
		{"8", "telnet://%2Fmap%2Ffetchtest@127.0.0.1/", proto.EntryService},
		{"3", "", proto.EntryInfo},
		{"9", "gopher://" + s.Addr + "/9/bin5m.bin", proto.EntryFile},
	}
	for _, c := range checks {
		e, ok := byType[c.typ]
		if !ok || e.URL != c.url || e.Type != c.kind {
			t.Errorf("type %s: %+v, want URL %q kind %s", c.typ, e, c.url, c.kind)
		}
	}
	if e := resp.Entries[len(resp.Entries)-1]; e.Type != proto.EntryInfo || e.Name != "End of the map." {
		t.Errorf("last entry %+v", e)
	}
	var b strings.Builder
	if err := gopher.FormatMenu(&b, resp.Entries); err != nil || !strings.Contains(b.String(), "http://127.0.0.1/") {
		t.Errorf("FormatMenu = %q, %v", b.String(), err)
	}
}
