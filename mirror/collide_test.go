package mirror

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	fetchhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/uri"
)

// collided returns the paths of the report's entries failed for a name
// collision, sorted.
func collided(s *Summary) []string {
	var out []string
	for _, e := range s.Entries {
		if e.Status == StatusFailed && strings.HasPrefix(e.Reason, "name collision") {
			out = append(out, e.Path)
		}
	}
	slices.Sort(out)
	return out
}

// wantDirKept checks that dir/name is a directory holding inner, with
// body data.
func wantDirKept(t *testing.T, dir, name, inner, data string) {
	t.Helper()
	if st, err := os.Lstat(filepath.Join(dir, name)); err != nil || !st.IsDir() {
		t.Fatalf("%s is not a directory: %v", name, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, name, inner)); err != nil || string(b) != data {
		t.Errorf("%s/%s = %q, %v; want %q", name, inner, b, err, data)
	}
}

// TestMirrorGopherNameCollision: a menu lists the document /a and the
// menu /a/, in either order. The menu is walked (its document x
// fetched), the document a is failed, named, and the run is partial.
// Across menus, the entry taken first is kept: the document /s/x, listed
// by the top menu, is kept, and the menu /s/x/ that s lists is failed.
func TestMirrorGopherNameCollision(t *testing.T) {
	for _, order := range []string{"file first", "menu first"} {
		t.Run(order, func(t *testing.T) {
			addr := scriptedGopher(t, func(line string, _ int) string {
				switch line {
				case "":
					file, menu := "0a\t/a\tHOST\tPORT\r\n", "1a\t/a/\tHOST\tPORT\r\n"
					if order == "menu first" {
						file, menu = menu, file
					}
					return file + menu + "1s\t/s\tHOST\tPORT\r\n0sx\t/s/x\tHOST\tPORT\r\n.\r\n"
				case "/a/":
					return "0x\t/a/x\tHOST\tPORT\r\n.\r\n"
				case "/s":
					return "1x\t/s/x/\tHOST\tPORT\r\n.\r\n"
				case "/a", "/s/x":
					return "file " + line + "\r\n.\r\n"
				case "/a/x":
					return "inner\r\n.\r\n"
				}
				return "3nothing\t\terror.host\t1\r\n.\r\n"
			})
			dir := t.TempDir()
			s, err := runGopher(t, addr, dir, Options{Jobs: 2})
			if got, want := collided(s), []string{"a", "s/x"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) {
				t.Fatalf("Run = %v, collisions %q; want ErrPartial, %q (%+v)", err, got, want, s.Entries)
			}
			wantDirKept(t, dir, "a", "x", "inner\r\n")
			if b, err := os.ReadFile(filepath.Join(dir, "s", "x")); err != nil || string(b) != "file /s/x\r\n" {
				t.Errorf("s/x = %q, %v; want the document", b, err)
			}
		})
	}
}

// TestMirrorHTTPNameCollision: an index page links "a" then "a/", and
// "b/" then "b". Each directory is walked and its file fetched; each
// file of a directory's name is failed and named.
func TestMirrorHTTPNameCollision(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; p {
		case "/":
			w.Write([]byte(`<a href="a">a</a> <a href="a/">a/</a> <a href="b/">b/</a> <a href="b">b</a>`))
		case "/a/", "/b/":
			w.Write([]byte(`<a href="in.txt">in.txt</a>`))
		case "/a", "/b", "/a/in.txt", "/b/in.txt":
			w.Write([]byte("at " + p))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, err := Run(ctx, drivers{"http": &fetchhttp.Driver{}}, uri.MustParse(srv.URL+"/"), dir, Options{Jobs: 2})
	if got, want := collided(s), []string{"a", "b"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) || s.New != 2 {
		t.Fatalf("Run = %v, collisions %q, %d new; want ErrPartial, %q, 2 new (%+v)", err, got, s.New, want, s.Entries)
	}
	wantDirKept(t, dir, "a", "in.txt", "at /a/in.txt")
	wantDirKept(t, dir, "b", "in.txt", "at /b/in.txt")
}

// TestMirrorFTPNameListedTwice: an FTP listing that names an entry twice
// with the same type and facts mirrors it once, silently; with other
// facts the first is kept and the other failed; a file and a directory
// of one name keep the directory and fail the file.
func TestMirrorFTPNameListedTwice(t *testing.T) {
	for _, tc := range []struct {
		name     string
		extra    []proto.Entry
		collided []string
	}{
		{"same facts", []proto.Entry{
			{Name: "same", Type: proto.EntryFile, Size: 3, ModTime: t0},
			{Name: "same", Type: proto.EntryFile, Size: 3, ModTime: t0},
			{Name: "ln", Type: proto.EntryLink, Target: "same"},
			{Name: "ln", Type: proto.EntryLink, Target: "same"},
		}, nil},
		{"other facts", []proto.Entry{
			{Name: "same", Type: proto.EntryFile, Size: 3, ModTime: t0},
			{Name: "same", Type: proto.EntryFile, Size: 4, ModTime: t0},
			{Name: "ln", Type: proto.EntryLink, Target: "same"},
			{Name: "ln", Type: proto.EntryLink, Target: "d"},
		}, []string{"ln", "same"}},
		{"file and directory", []proto.Entry{
			{Name: "same", Type: proto.EntryFile, Size: 3, ModTime: t0},
			{Name: "d", Type: proto.EntryFile, Size: 3, ModTime: t0},
			{Name: "d", Type: proto.EntryLink, Target: "same"},
		}, []string{"d", "d"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFTP()
			f.file("d/in.txt", "inner")
			f.extra[""] = tc.extra
			f.nodes["same"] = &fakeNode{data: []byte("abc"), mtime: t0}
			dir := t.TempDir()
			s, err := Run(context.Background(), f, uri.MustParse("ftp://h/"), dir, Options{})
			if got := collided(s); !slices.Equal(got, tc.collided) {
				t.Errorf("collisions %q, want %q (%+v)", got, tc.collided, s.Entries)
			}
			if (len(tc.collided) > 0) != errors.Is(err, ErrPartial) {
				t.Errorf("Run = %v with %d collisions", err, len(tc.collided))
			}
			wantDirKept(t, dir, "d", "in.txt", "inner")
			if b, err := os.ReadFile(filepath.Join(dir, "same")); err != nil || string(b) != "abc" {
				t.Errorf("same = %q, %v", b, err)
			}
		})
	}
}
