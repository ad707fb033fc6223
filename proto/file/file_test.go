package file

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

func fileURL(p string) string { return "file://" + uri.Escape(p, "/") }

func TestConformance(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.txt")
	want := []byte("hello, file\n")
	if err := os.WriteFile(small, want, 0o644); err != nil {
		t.Fatal(err)
	}
	prototest.Run(t, &Driver{}, prototest.Fixture{
		Small:   fileURL(small),
		Want:    want,
		Endless: "file:///dev/zero",
		Unsafe: func(payload string) *uri.URL {
			return uri.MustParse(fileURL(dir) + "/" + uri.Escape(payload, ""))
		},
	})
}

func fetch(t *testing.T, raw string, req *proto.Request) (*proto.Response, error) {
	t.Helper()
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatalf("uri.Parse(%q) = %v", raw, err)
	}
	return (&Driver{}).Fetch(t.Context(), u, req)
}

func readAll(t *testing.T, r *proto.Response) []byte {
	t.Helper()
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return b
}

// RFC 1738 section 3.10: "localhost" and the empty host both name this machine.
func TestLocalHosts(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "with space.txt")
	os.WriteFile(name, []byte("x y"), 0o644)
	mt := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	os.Chtimes(name, mt, mt)
	for _, raw := range []string{
		fileURL(name),
		"file://localhost" + uri.Escape(name, "/"),
		"file://LOCALHOST" + uri.Escape(name, "/"),
	} {
		resp, err := fetch(t, raw, nil)
		if err != nil {
			t.Fatalf("Fetch(%q) = %v", raw, err)
		}
		if got := readAll(t, resp); string(got) != "x y" {
			t.Errorf("Fetch(%q) body = %q, want %q", raw, got, "x y")
		}
		if resp.Size != 3 || !resp.ModTime.Equal(mt) || resp.Name != "with space.txt" || resp.Kind != proto.KindData {
			t.Errorf("Fetch(%q) = size %d time %v name %q kind %v", raw, resp.Size, resp.ModTime, resp.Name, resp.Kind)
		}
	}
}

func TestOffset(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	os.WriteFile(name, []byte("0123456789"), 0o644)
	resp, err := fetch(t, fileURL(name), &proto.Request{Offset: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); string(got) != "456789" || resp.Offset != 4 || resp.Size != 10 {
		t.Errorf("resume at 4: body %q offset %d size %d, want %q 4 10", got, resp.Offset, resp.Size, "456789")
	}
}

func TestEmptyFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(name, nil, 0o644)
	resp, err := fetch(t, fileURL(name), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); len(got) != 0 || resp.Size != 0 {
		t.Errorf("empty file: body %q size %d", got, resp.Size)
	}
}

func TestDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("bb"), 0o600)
	os.Mkdir(filepath.Join(dir, "a dir"), 0o755)
	os.Symlink("b.txt", filepath.Join(dir, "link"))
	resp, err := fetch(t, fileURL(dir)+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != proto.KindDirectory {
		t.Fatalf("Kind = %v, want KindDirectory", resp.Kind)
	}
	if got, want := string(readAll(t, resp)), "a dir/\nb.txt\nlink\n"; got != want {
		t.Errorf("listing = %q, want %q", got, want)
	}
	want := []proto.Entry{
		{Name: "a dir", Type: proto.EntryDir, Size: -1, URL: fileURL(dir) + "/a%20dir/"},
		{Name: "b.txt", Type: proto.EntryFile, Size: 2, URL: fileURL(dir) + "/b.txt"},
		{Name: "link", Type: proto.EntryLink, Target: "b.txt", URL: fileURL(dir) + "/link"},
	}
	if len(resp.Entries) != len(want) {
		t.Fatalf("Entries = %+v, want %d entries", resp.Entries, len(want))
	}
	for i, w := range want {
		g := resp.Entries[i]
		if g.Name != w.Name || g.Type != w.Type || g.URL != w.URL || g.Target != w.Target || (w.Type != proto.EntryLink && g.Size != w.Size) {
			t.Errorf("Entries[%d] = %+v, want %+v", i, g, w)
		}
	}
	if p := resp.Entries[1].Extra["perm"]; p != "-rw-------" {
		t.Errorf("perm of b.txt = %q, want -rw-------", p)
	}
	// Without the trailing slash the directory is listed too, and List agrees.
	u := uri.MustParse(fileURL(dir))
	entries, _, err := proto.ListAll(t.Context(), (&Driver{}), u, nil)
	if err != nil || len(entries) != 3 || entries[0].URL != fileURL(dir)+"/a%20dir/" {
		t.Errorf("List(%q) = %+v, %v", u, entries, err)
	}
}

func TestNotFound(t *testing.T) {
	_, err := fetch(t, fileURL(filepath.Join(t.TempDir(), "nope")), nil)
	if !errors.Is(err, proto.ErrNotFound) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Fetch(missing) = %v, want ErrNotFound wrapping fs.ErrNotExist", err)
	}
}

// Tests run as root here, so permissions cannot be provoked on disk.
func TestMapErr(t *testing.T) {
	err := mapErr(&fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission})
	if !errors.Is(err, proto.ErrPermission) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("mapErr(permission) = %v, want ErrPermission", err)
	}
	if err := mapErr(errors.New("other")); errors.Is(err, proto.ErrNotFound) || errors.Is(err, proto.ErrPermission) {
		t.Errorf("mapErr(other) = %v, classified", err)
	}
}

// RFC 1738 section 3.10: another host is not reachable through file: itself.
func TestOtherHost(t *testing.T) {
	_, err := fetch(t, "file://example.org/etc/motd", nil)
	if !errors.Is(err, proto.ErrNoAccessMethod) {
		t.Errorf("Fetch(file://example.org/...) = %v, want ErrNoAccessMethod", err)
	}
	var r *proto.Redirect
	if errors.As(err, &r) {
		t.Errorf("Fetch without file-via-ftp redirected to %s", r.URL)
	}
	req := &proto.Request{Options: proto.Options{File: proto.FileOptions{ViaFTP: true}}}
	_, err = fetch(t, "file://ftp.example.org:2121/pub/a%20b.txt", req)
	if !errors.As(err, &r) || r.URL != "ftp://ftp.example.org:2121/pub/a%20b.txt" {
		t.Errorf("Fetch with file-via-ftp = %v, want redirect to ftp://ftp.example.org:2121/pub/a%%20b.txt", err)
	}
}

func TestPerm(t *testing.T) {
	for _, tt := range []struct {
		m    fs.FileMode
		want string
	}{
		{0o644, "-rw-r--r--"},
		{fs.ModeDir | 0o755, "drwxr-xr-x"},
		{fs.ModeSymlink | 0o777, "lrwxrwxrwx"},
		{fs.ModeSetuid | 0o755, "-rwsr-xr-x"},
		{fs.ModeSetgid | 0o640, "-rw-r-S---"},
		{fs.ModeDir | fs.ModeSticky | 0o777, "drwxrwxrwt"},
		{fs.ModeNamedPipe | 0o600, "prw-------"},
	} {
		if got := Perm(tt.m); got != tt.want {
			t.Errorf("Perm(%v) = %q, want %q", tt.m, got, tt.want)
		}
	}
}

func TestBodyStopsAfterCancel(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	os.WriteFile(name, bytes.Repeat([]byte("z"), 1000), 0o644)
	u := uri.MustParse(fileURL(name))
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := (&Driver{}).Fetch(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	cancel()
	if _, err := resp.Body.Read(make([]byte, 10)); err == nil {
		t.Error("Read after cancel succeeded")
	}
}
