package ftp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	ftpserver "github.com/fclairamb/ftpserverlib"
	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// libServer is an in-process ftpserverlib server on 127.0.0.1:0 over an
// in-memory filesystem, with a few special files: /endless.bin never ends,
// /cut.bin fails after cutAt bytes the first time it is read, and the
// directory /evil lists hostile names.
type libServer struct {
	t     testing.TB
	srv   *ftpserver.FtpServer
	rec   *prototest.Recorder
	fs    afero.Fs
	auths atomic.Int32
	cutAt int64
	cut   atomic.Bool // set once /cut.bin has been cut
	mtime time.Time
	// noMLSD: FEAT lists MLST, MLSD is refused (500).
	noMLSD bool
}

func startLib(t *testing.T) *libServer {
	t.Helper()
	return startLibB(t)
}

// startLibB is startLib for tests and benchmarks alike.
func startLibB(t testing.TB) *libServer {
	t.Helper()
	return startLibWith(t, false)
}

// startLibWith starts the server; with noMLSD its FEAT lists MLST but it
// answers MLSD with "500 MLSD has been disabled", as some servers do.
// (fetchtest.FTPOptions.DisableMLSD hides MLST as well.)
func startLibWith(t testing.TB, noMLSD bool) *libServer {
	t.Helper()
	s := &libServer{t: t, rec: prototest.Listen(t), fs: afero.NewMemMapFs(), mtime: time.Date(2023, 5, 6, 7, 8, 9, 0, time.UTC), noMLSD: noMLSD}
	s.srv = ftpserver.NewFtpServer(s)
	if err := s.srv.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.srv.Serve()
	t.Cleanup(func() { s.srv.Stop() })
	return s
}

func (s *libServer) addr() string           { return s.rec.Addr().String() }
func (s *libServer) url(path string) string { return "ftp://" + s.addr() + path }
func (s *libServer) count(sub string) int   { return strings.Count(s.rec.String(), sub) }
func (s *libServer) write(name string, b []byte) {
	s.t.Helper()
	if err := afero.WriteFile(s.fs, name, b, 0o644); err != nil {
		s.t.Fatal(err)
	}
	s.fs.Chtimes(name, s.mtime, s.mtime)
}

// ftpserver.MainDriver

func (s *libServer) GetSettings() (*ftpserver.Settings, error) {
	return &ftpserver.Settings{Listener: s.rec, IdleTimeout: 30, ConnectionTimeout: 5, DisableActiveMode: true, DisableMLSD: s.noMLSD}, nil
}
func (s *libServer) ClientConnected(cc ftpserver.ClientContext) (string, error) {
	return "in-process test server", nil
}
func (s *libServer) ClientDisconnected(cc ftpserver.ClientContext) {}
func (s *libServer) GetTLSConfig() (*tls.Config, error) {
	return nil, errors.New("no TLS here")
}
func (s *libServer) AuthUser(cc ftpserver.ClientContext, user, pass string) (ftpserver.ClientDriver, error) {
	s.auths.Add(1)
	if user == "anonymous" || user == "alice" && pass == "wonderland" {
		return &libFS{Fs: s.fs, s: s}, nil
	}
	return nil, errors.New("bad login")
}

// libFS is the filesystem a session sees.
type libFS struct {
	afero.Fs
	s *libServer
}

// GetHandle implements ftpserver.ClientDriverExtentionFileTransfer.
func (f *libFS) GetHandle(name string, flags int, offset int64) (ftpserver.FileTransfer, error) {
	switch name {
	case "/endless.bin":
		return &endless{}, nil
	case "/cut.bin":
		file, err := f.Fs.OpenFile(name, flags, 0)
		if err != nil || f.s.cut.Swap(true) {
			return file, err
		}
		return &cutFile{File: file, left: f.s.cutAt}, nil
	}
	return f.Fs.OpenFile(name, flags, 0)
}

// ReadDir implements ftpserver.ClientDriverExtensionFileList.
func (f *libFS) ReadDir(name string) ([]os.FileInfo, error) {
	if name == "/evil" {
		var fis []os.FileInfo
		for _, n := range []string{"../x", "/etc/passwd", "cr\rname", "ok.txt"} {
			fis = append(fis, fakeInfo{name: n, mtime: f.s.mtime})
		}
		return fis, nil
	}
	return afero.ReadDir(f.Fs, name)
}

type fakeInfo struct {
	name  string
	mtime time.Time
}

func (fi fakeInfo) Name() string       { return fi.name }
func (fi fakeInfo) Size() int64        { return 3 }
func (fi fakeInfo) Mode() os.FileMode  { return 0o644 }
func (fi fakeInfo) ModTime() time.Time { return fi.mtime }
func (fi fakeInfo) IsDir() bool        { return false }
func (fi fakeInfo) Sys() any           { return nil }

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'e'
	}
	return len(p), nil
}
func (endless) Write(p []byte) (int, error)               { return 0, errors.New("read only") }
func (endless) Seek(off int64, whence int) (int64, error) { return off, nil }
func (endless) Close() error                              { return nil }

// cutFile fails after left bytes.
type cutFile struct {
	afero.File
	left int64
}

func (c *cutFile) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, errors.New("disk on fire")
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.File.Read(p)
	c.left -= int64(n)
	return n, err
}

func TestConformance(t *testing.T) {
	s := startLib(t)
	s.write("/small.bin", []byte("small file\n"))
	prototest.Run(t, &Driver{}, prototest.Fixture{
		Small:   s.url("/small.bin"),
		Want:    []byte("small file\n"),
		Endless: s.url("/endless.bin"),
		Unsafe: func(payload string) *uri.URL {
			return &uri.URL{Scheme: "ftp", HasAuthority: true, Host: "127.0.0.1", Port: s.rec.Addr().String()[len("127.0.0.1:"):], Path: "/" + uri.Escape(payload, "")}
		},
		Wire: s.rec.Bytes,
	})
}

// MLSD (RFC 3659 section 7) from a server that offers it.
func TestMLSDListing(t *testing.T) {
	s := startLib(t)
	s.fs.MkdirAll("/pub/sub", 0o755)
	s.write("/pub/a.bin", []byte("12345"))
	s.write("/pub/b.txt", []byte("x"))
	d := &Driver{}
	defer d.CloseIdleConnections()
	resp, body, err := get(t, d, s.url("/pub/"), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	if resp.Kind != proto.KindDirectory || resp.Info["ftp_listing"] != formatMLSD {
		t.Fatalf("Kind %v, listing %v; want a directory read with MLSD", resp.Kind, resp.Info["ftp_listing"])
	}
	if !bytes.Contains(body, []byte("; a.bin\r\n")) {
		t.Errorf("Body = %q, want the raw MLSD lines", body)
	}
	got := map[string]proto.Entry{}
	for _, e := range resp.Entries {
		got[e.Name] = e
	}
	if e := got["a.bin"]; e.Type != proto.EntryFile || e.Size != 5 || !e.ModTime.Equal(s.mtime) || e.URL != s.url("/pub/a.bin") {
		t.Errorf("a.bin = %+v", e)
	}
	if e := got["sub"]; e.Type != proto.EntryDir || e.URL != s.url("/pub/sub/") {
		t.Errorf("sub = %+v", e)
	}
	if len(got) != 3 {
		t.Errorf("entries = %+v, want 3", resp.Entries)
	}
	// The Lister gives the same entries, with or without the final "/".
	for _, p := range []string{"/pub", "/pub/"} {
		entries, _, err := proto.ListAll(t.Context(), d, uri.MustParse(s.url(p)), quickReq())
		if err != nil || len(entries) != 3 {
			t.Errorf("List(%q) = %+v, %v", p, entries, err)
		}
	}
}

// Hostile names from a real server's MLSD come back as entries; entry URLs
// escape them into one segment.
func TestLibHostileNames(t *testing.T) {
	s := startLib(t)
	s.fs.MkdirAll("/evil", 0o755)
	d := &Driver{}
	defer d.CloseIdleConnections()
	entries, _, err := proto.ListAll(t.Context(), d, uri.MustParse(s.url("/evil/")), quickReq())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"../x":        s.url("/evil/..%2Fx"),
		"/etc/passwd": s.url("/evil/%2Fetc%2Fpasswd"),
		"cr\rname":    s.url("/evil/cr%0Dname"),
		"ok.txt":      s.url("/evil/ok.txt"),
	}
	if len(entries) != len(want) {
		t.Fatalf("entries = %+v", entries)
	}
	for _, e := range entries {
		if want[e.Name] != e.URL {
			t.Errorf("entry %q has URL %q, want %q", e.Name, e.URL, want[e.Name])
		}
	}
}

// A transfer cut in the middle is an error; resuming from the bytes kept
// completes the file to the same sha256.
func TestCutAndResume(t *testing.T) {
	s := startLib(t)
	content := make([]byte, 3<<20)
	for i := range content {
		content[i] = byte(i * 7 / 5)
	}
	s.write("/cut.bin", content)
	s.cutAt = 1<<20 + 12345
	d := &Driver{}
	defer d.CloseIdleConnections()
	u := uri.MustParse(s.url("/cut.bin"))
	resp, err := d.Fetch(t.Context(), u, quickReq())
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	_, err = io.Copy(&got, resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Fatalf("the cut transfer read %d bytes without an error", got.Len())
	}
	if got.Len() == 0 || got.Len() >= len(content) {
		t.Fatalf("kept %d bytes of %d", got.Len(), len(content))
	}
	req := quickReq()
	req.Offset = int64(got.Len())
	resp, err = d.Fetch(t.Context(), u, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Offset != req.Offset || resp.Size != int64(len(content)) {
		t.Errorf("resumed Offset %d Size %d, want %d %d", resp.Offset, resp.Size, req.Offset, len(content))
	}
	if _, err := io.Copy(&got, resp.Body); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sha256.Sum256(got.Bytes()) != sha256.Sum256(content) {
		t.Errorf("resumed file differs: %d bytes", got.Len())
	}
	if s.count("REST "+fmt.Sprint(req.Offset)+"\r\n") != 1 {
		t.Errorf("no REST %d on the wire", req.Offset)
	}
}

// 200 files through one Driver: one login.
func TestPoolOneLogin(t *testing.T) {
	s := startLib(t)
	s.fs.MkdirAll("/many", 0o755)
	for i := range 200 {
		s.write(fmt.Sprintf("/many/f%03d.bin", i), []byte(fmt.Sprint(i)))
	}
	d := &Driver{}
	defer d.CloseIdleConnections()
	for i := range 200 {
		_, b, err := get(t, d, s.url(fmt.Sprintf("/many/f%03d.bin", i)), quickReq())
		if err != nil || string(b) != fmt.Sprint(i) {
			t.Fatalf("file %d: %q, %v", i, b, err)
		}
	}
	if n := s.count("USER "); n != 1 {
		t.Errorf("%d USER commands, want 1", n)
	}
	if n := s.rec.Accepts(); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
}

// Concurrent Fetches on one Driver: each gets its own connection, and the
// pool keeps them for later. The pool may keep as many idle as there can
// be in use: with the default of two, the third connection released while
// the other two are idle would be closed, and a later Fetch would dial a
// fourth.
func TestConcurrentFetches(t *testing.T) {
	s := startLib(t)
	for i := range 8 {
		s.write(fmt.Sprintf("/c%d.bin", i), bytes.Repeat([]byte{byte('a' + i)}, 100000))
	}
	d := New(Config{MaxConnsPerHost: 3, MaxIdleConnsPerHost: 3})
	defer d.CloseIdleConnections()
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 8 {
				_, b, err := get(t, d, s.url(fmt.Sprintf("/c%d.bin", (i+w)%8)), quickReq())
				if err == nil && (len(b) != 100000 || b[0] != byte('a'+(i+w)%8)) {
					err = fmt.Errorf("file %d: wrong content", (i+w)%8)
				}
				if err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := s.rec.Accepts(); n > 3 {
		t.Errorf("%d control connections, want at most 3", n)
	}
}

// A wrong password from a real server: ErrLogin, with its reply.
func TestLibLoginRefused(t *testing.T) {
	s := startLib(t)
	_, _, err := get(t, &Driver{}, "ftp://alice:wrong@"+s.addr()+"/x", quickReq())
	if !errors.Is(err, proto.ErrLogin) || replyCode(err) != 530 {
		t.Errorf("Fetch = %v, want ErrLogin with 530", err)
	}
	_, _, err = get(t, &Driver{}, "ftp://alice:wonderland@"+s.addr()+"/missing", quickReq())
	if !errors.Is(err, proto.ErrNotFound) {
		t.Errorf("Fetch = %v, want ErrNotFound", err)
	}
}

// CloseIdleConnections sends QUIT on idle connections.
func TestCloseIdle(t *testing.T) {
	s := startLib(t)
	s.write("/a.bin", []byte("a"))
	d := &Driver{}
	if _, _, err := get(t, d, s.url("/a.bin"), quickReq()); err != nil {
		t.Fatal(err)
	}
	d.CloseIdleConnections()
	s.rec.Until(2*time.Second, func() bool { return s.count("QUIT\r\n") > 0 })
	if s.count("QUIT\r\n") != 1 {
		t.Errorf("no QUIT after CloseIdleConnections")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if _, err := d.Fetch(ctx, uri.MustParse(s.url("/a.bin")), quickReq()); err != nil {
		t.Errorf("Fetch after CloseIdleConnections = %v", err)
	}
}
