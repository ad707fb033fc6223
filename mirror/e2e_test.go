package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/uri"
)

// drivers dispatches by scheme to real drivers, as fetch.Client does (the
// safety layer is tested there).
type drivers map[string]proto.Driver

func (d drivers) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return d[u.Scheme].Fetch(ctx, u, req)
}

// List lists entry by entry with a driver that can (Lister), as
// fetch.Client's mirror fetcher does.
func (d drivers) List(ctx context.Context, u *uri.URL, req *proto.Request, fn func(proto.Entry) error) (*proto.Listing, error) {
	l, ok := d[u.Scheme].(proto.Lister)
	if !ok {
		return nil, fmt.Errorf("no lister for %s", u.Scheme)
	}
	return l.List(ctx, u, req, fn)
}

// ModTimes asks the FTP driver for many times at once (ModTimer), as
// fetch.Client's mirror fetcher does.
func (d drivers) ModTimes(ctx context.Context, dir *uri.URL, req *proto.Request, names []string) ([]time.Time, error) {
	mt, ok := d[dir.Scheme].(ModTimer)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	return mt.ModTimes(ctx, dir, req, names)
}

// trace counts the commands a driver sent.
type trace struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *trace) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.Write(p)
}

func (t *trace) commands(prefix string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, l := range strings.Split(t.buf.String(), "\n") {
		if strings.HasPrefix(l, "> "+prefix) {
			n++
		}
	}
	return n
}

func (t *trace) reset() { t.mu.Lock(); t.buf.Reset(); t.mu.Unlock() }

func TestMirrorFTPEndToEnd(t *testing.T) {
	mem := afero.NewMemMapFs()
	want := map[string][]byte{}
	add := func(p string, b []byte) {
		afero.WriteFile(mem, "/arch/"+p, b, 0o644)
		want[p] = b
	}
	for i := 0; i < 150; i++ {
		add(fmt.Sprintf("many/f%04d.txt", i), []byte(fmt.Sprintf("file %d\n", i)))
	}
	add("with space.txt", []byte("spaced\n"))
	add("empty.txt", nil)
	add("a/b/c/deep.bin", bytes.Repeat([]byte{0, 0xff, '\r', '\n'}, 100000))
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	drv := &ftp.Driver{}
	defer drv.CloseIdleConnections()
	tr := &trace{}
	opts := Options{Jobs: 4, Request: proto.Request{Trace: tr, IdleTimeout: 10 * time.Second}}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	start := uri.MustParse("ftp://" + srv.Addr() + "/arch/")

	s, err := Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	if err != nil || s.New != len(want) {
		t.Fatalf("first run: %v, %+v", err, s)
	}
	for p, b := range want {
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s differs from the source (%v)", p, err)
		}
	}
	if n := tr.commands("RETR"); n != len(want) {
		t.Errorf("first run sent %d RETR, want %d", n, len(want))
	}

	tr.reset()
	s, err = Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	if err != nil || s.Unchanged != len(want) {
		t.Fatalf("second run: %v, %+v", err, s)
	}
	if n := tr.commands("RETR"); n != 0 {
		t.Errorf("second run sent %d RETR, want 0", n)
	}

	// The change gets a modification time a minute later than the
	// file's, as the server's clock would give it (instead of waiting for
	// the clock to pass the next second).
	fi, err := mem.Stat("/arch/many/f0042.txt")
	if err != nil {
		t.Fatal(err)
	}
	afero.WriteFile(mem, "/arch/many/f0042.txt", []byte("changed!\n"), 0o644)
	later := fi.ModTime().Add(time.Minute)
	if err := mem.Chtimes("/arch/many/f0042.txt", later, later); err != nil {
		t.Fatal(err)
	}
	tr.reset()
	s, err = Run(ctx, drivers{"ftp": drv}, start, dir, opts)
	if err != nil || s.Updated != 1 {
		t.Fatalf("after a change: %v, %+v", err, s)
	}
	if n := tr.commands("RETR"); n != 1 {
		t.Errorf("after one change sent %d RETR, want 1", n)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "many/f0042.txt")); string(got) != "changed!\n" {
		t.Errorf("changed file = %q", got)
	}
}

func TestMirrorGopherEndToEnd(t *testing.T) {
	fsys := fstest.MapFS{
		"hole/readme.txt":       {Data: []byte("top\r\n.\r\n..dots\r\n")},
		"hole/sub/notes.txt":    {Data: []byte("notes\n")},
		"hole/sub/deeper/x.bin": {Data: bytes.Repeat([]byte{1, 2, 3}, 50000)},
		"other/outside.txt":     {Data: []byte("not below the start")},
	}
	srv, err := fetchtest.StartGopher(fsys)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := Run(ctx, drivers{"gopher": &gopher.Driver{}}, uri.MustParse("gopher://"+srv.Addr()+"/1/hole"), dir, Options{Jobs: 2})
	if err != nil || s.New != 3 {
		t.Fatalf("gopher mirror: %v, %+v", err, s)
	}
	fs.WalkDir(fsys, "hole", func(p string, d fs.DirEntry, walkErr error) error {
		if walkErr != nil || d.IsDir() {
			return walkErr
		}
		got, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(p, "hole/")))
		if err != nil || !bytes.Equal(got, fsys[p].Data) {
			t.Errorf("%s differs (%v)", p, err)
		}
		return nil
	})
	for _, m := range []string{"gophermap", "sub/gophermap", "sub/deeper/gophermap"} {
		if _, err := os.Stat(filepath.Join(dir, m)); err != nil {
			t.Errorf("menu %s not kept: %v", m, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "outside.txt")); err == nil {
		t.Errorf("an item outside the starting selector was mirrored")
	}
}

// TestMirrorGopherRFC1436: from a server that sends texts as RFC 1436
// section 3.8 has them (every line that begins with "." doubled, a "."
// line at the end: UMN gopherd and many of today's servers), the mirror
// stores each text as it is on the server's disk: without the terminator
// and with the dots the server doubled taken off, lines of one dot, of
// dots only and an empty text included; a binary is the bytes as sent.
// It stored the terminator and the doubled dots, exit 0.
func TestMirrorGopherRFC1436(t *testing.T) {
	fsys := fstest.MapFS{
		"hole/dots.txt":     {Data: []byte("top\r\n.\r\n..two\r\n...three\r\n.hidden\r\nend\r\n")},
		"hole/ellipsis.txt": {Data: []byte("...and then\n../up\nlast\n")},
		"hole/enddot.txt":   {Data: []byte("the last line is a dot\n.\n")},
		"hole/onlydots.txt": {Data: []byte("..\n.\n...\n")},
		"hole/plain.txt":    {Data: []byte("no dots at all\r\n")},
		"hole/empty.txt":    {Data: []byte{}},
		"hole/sub/x.bin":    {Data: []byte("binary\r\n.\r\n..\r\n")},
	}
	srv, err := fetchtest.StartGopherWith(fsys, fetchtest.GopherOptions{RFC1436: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	s, err := Run(ctx, drivers{"gopher": &gopher.Driver{}}, uri.MustParse("gopher://"+srv.Addr()+"/1/hole"), dir, Options{Jobs: 2})
	if err != nil || s.New != len(fsys) || s.Failed+s.Skipped != 0 {
		t.Fatalf("gopher mirror: %v, %+v", err, s)
	}
	for p, f := range fsys {
		got, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(p, "hole/")))
		if err != nil || !bytes.Equal(got, f.Data) {
			t.Errorf("%s = %q, %v; want %q", p, got, err, f.Data)
		}
		// fetch get reads it the same.
		typ := "0"
		if strings.HasSuffix(p, ".bin") {
			typ = "9"
		}
		resp, err := (&gopher.Driver{}).Fetch(ctx, uri.MustParse("gopher://"+srv.Addr()+"/"+typ+"/"+p), &proto.Request{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(b, f.Data) {
			t.Errorf("get %s = %q, %v; want %q", p, b, err, f.Data)
		}
	}
}
