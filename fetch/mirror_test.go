package fetch

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A mirror of an HTTP index tree keeps its connections alive: 40 files
// with two workers take a handful of connections, not one per file, and
// the copy is byte-exact. (fetch get keeps one connection per URL.)
func TestMirrorHTTPKeepAlive(t *testing.T) {
	src := t.TempDir()
	want := map[string][]byte{}
	for i := range 40 {
		name := fmt.Sprintf("f%02d.txt", i)
		want[name] = bytes.Repeat([]byte{byte('a' + i%26)}, 100+i)
		if err := os.WriteFile(filepath.Join(src, name), want[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.FileServer(http.Dir(src)))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	defer srv.Close()
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	sum, err := c.Mirror(ctx, srv.URL+"/", dir, MirrorOptions{Jobs: 2})
	if err != nil || sum.New != len(want) {
		t.Fatalf("Mirror = %v, %+v", err, sum)
	}
	for name, b := range want {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s differs (%v)", name, err)
		}
	}
	if n := conns.Load(); n > 10 {
		t.Errorf("%d connections for an index page and %d files, want them kept alive", n, len(want))
	}
	t.Logf("%d connections for %d files", conns.Load(), len(want))
}

// miniHTTPD serves the directory tree root the way mini_httpd 1.30 and
// micro_httpd 20140814 (Debian 12) do: an index page links each
// subdirectory without its final "/" (<a href="sub">sub   </a>), and a
// request for a directory without it is answered 302 Location: /path/.
// Files carry Last-Modified and honour If-Modified-Since.
type miniHTTPD struct{ root string }

func (m miniHTTPD) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := filepath.Join(m.root, filepath.FromSlash(path.Clean("/"+r.URL.Path)))
	st, err := os.Stat(p)
	switch {
	case err != nil:
		http.NotFound(w, r)
	case st.IsDir() && !strings.HasSuffix(r.URL.Path, "/"):
		w.Header().Set("Location", r.URL.Path+"/")
		w.WriteHeader(http.StatusFound)
		fmt.Fprintf(w, "<html><head><title>302 Found</title></head><body><h2>302 Found</h2></body></html>\n")
	case st.IsDir():
		des, _ := os.ReadDir(p)
		w.Header().Set("Content-Type", "text/html; charset=%s") // sic
		w.Header().Set("Last-Modified", st.ModTime().UTC().Format(http.TimeFormat))
		fmt.Fprintf(w, "<html>\n  <head>\n    <title>Index of .%s</title>\n  </head>\n  <body>\n    <h4>Index of .%s</h4>\n    <pre>\n", r.URL.Path, r.URL.Path)
		fmt.Fprintf(w, "<a href=\".\">%-32s</a>    03Feb2001 04:05           4096\n<a href=\"..\">%-32s</a>    03Feb2001 04:05           4096\n", ".", "..")
		for _, de := range des {
			fmt.Fprintf(w, "<a href=\"%s\">%-32s</a>    03Feb2001 04:05  %13d\n", url.PathEscape(de.Name()), html.EscapeString(de.Name()), 4096)
		}
		fmt.Fprintf(w, "    </pre>\n    <hr>\n    <address><a href=\"http://www.acme.com/software/mini_httpd/\">mini_httpd/1.30 26Oct2018</a></address>\n  </body>\n</html>\n")
	default:
		f, err := os.Open(p)
		if err != nil {
			http.Error(w, "403 Forbidden", http.StatusForbidden)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, st.Name(), st.ModTime(), f)
	}
}

// A server that links directories without their final "/" (mini_httpd,
// micro_httpd) is mirrored whole: a link that the server redirects to
// the same path with a "/" is a directory, walked like one. Until now its
// index page was stored as a file under the directory's name and nothing
// below it was fetched, exit 0 (against mini_httpd 1.30, 17 of 2,034
// files). A second run fetches nothing again and keeps the tree, --delete
// removes only what the server dropped, and a file that became a
// directory on the server (what an earlier release left in such a mirror:
// the index page as a file) is replaced by the directory.
func TestMirrorHTTPDirLinkWithoutSlash(t *testing.T) {
	src := t.TempDir()
	old := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	want := map[string]string{
		"pub/a.txt":                "a\n",
		"pub/sub/b.txt":            "b\n",
		"pub/sub/deeper/c.txt":     "c\n",
		"pub/dir with space/d.txt": "d\n",
		"pub/sub/deeper/empty.txt": "",
		"pub/sub/deeper/e.txt":     "e\n",
	}
	write := func(files map[string]string) {
		t.Helper()
		for p, b := range files {
			full := filepath.Join(src, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(b), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(full, old, old)
		}
	}
	write(want)
	srv := httptest.NewServer(miniHTTPD{root: src})
	defer srv.Close()
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	counts := func(s *MirrorSummary) string {
		return fmt.Sprintf("new %d, updated %d, unchanged %d, skipped %d, failed %d, deleted %d",
			s.New, s.Updated, s.Unchanged, s.Skipped, s.Failed, s.Deleted)
	}
	check := func(run string) {
		t.Helper()
		for p, b := range want {
			rel := strings.TrimPrefix(p, "pub/")
			if got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || string(got) != b {
				t.Errorf("%s: %s = %q (%v), want %q", run, rel, got, err, b)
			}
		}
	}

	sum, err := c.Mirror(ctx, srv.URL+"/pub/", dir, MirrorOptions{Jobs: 3})
	if err != nil || sum.New != len(want) || sum.Failed+sum.Skipped != 0 {
		t.Errorf("first run = %v; %s", err, counts(sum))
	}
	check("first run")

	sum, err = c.Mirror(ctx, srv.URL+"/pub/", dir, MirrorOptions{Jobs: 3})
	if err != nil || sum.Unchanged != len(want) || sum.New+sum.Updated+sum.Failed+sum.Skipped != 0 {
		t.Errorf("second run = %v; %s", err, counts(sum))
	}
	check("second run")

	os.Remove(filepath.Join(src, "pub", "sub", "deeper", "e.txt"))
	delete(want, "pub/sub/deeper/e.txt")
	sum, err = c.Mirror(ctx, srv.URL+"/pub/", dir, MirrorOptions{Jobs: 3, Delete: true})
	if err != nil || sum.Deleted != 1 || sum.Unchanged != len(want) {
		t.Errorf("--delete run = %v; %s", err, counts(sum))
	}
	check("--delete run")
	if _, err := os.Stat(filepath.Join(dir, "sub", "deeper", "e.txt")); err == nil {
		t.Error("--delete run: sub/deeper/e.txt is still there")
	}

	// The file x on the server becomes a directory.
	write(map[string]string{"pub/x": "a file\n"})
	if _, err := c.Mirror(ctx, srv.URL+"/pub/", dir, MirrorOptions{Jobs: 3}); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(src, "pub", "x"))
	want["pub/x/inside.txt"] = "inside\n"
	write(map[string]string{"pub/x/inside.txt": want["pub/x/inside.txt"]})
	sum, err = c.Mirror(ctx, srv.URL+"/pub/", dir, MirrorOptions{Jobs: 3, Delete: true})
	if err != nil || sum.New != 1 || sum.Failed != 0 {
		t.Errorf("after x became a directory = %v; %s", err, counts(sum))
	}
	check("after x became a directory")
}
