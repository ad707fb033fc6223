package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/warctest"
)

// Ctrl-C (the context canceled) exits 130 and says what was kept: with
// -C -, the .part file, its size and the command that resumes it; no
// "context canceled" line.
func TestInterruptSaysWhatWasKept(t *testing.T) {
	const body = 2048
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("#"), body))
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the rest never comes
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "big.iso")
	e, _, errb := newEnv("", &netlog{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ictx, interrupt := context.WithCancel(ctx)
	// The interruption comes when the client asks for more after the
	// whole body sent: it has written those bytes to the .part by then.
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		return &drainedConn{Conn: c, want: body, drained: interrupt}, err
	}
	code := execute(ictx, []string{"-C", "-", "-o", out, srv.URL + "/big.iso"}, e)
	want := "fetch: interrupted; kept " + out + ".part (2.0 KiB): fetch -C - -o " + out + " " + srv.URL + "/big.iso resumes\n"
	if code != exitInterrupted || errb.String() != want {
		t.Errorf("interrupted get = %d, stderr\n%q\nwant 130,\n%q", code, errb, want)
	}
	if fi, err := os.Stat(out + ".part"); err != nil || fi.Size() != body {
		t.Errorf("the .part was not kept whole: %v", err)
	}
}

// drainedConn calls drained at the first Read after want '#' bytes came
// through it.
type drainedConn struct {
	net.Conn
	want, seen int
	drained    func()
}

func (c *drainedConn) Read(p []byte) (int, error) {
	if c.seen >= c.want && c.drained != nil {
		c.drained()
		c.drained = nil
	}
	n, err := c.Conn.Read(p)
	c.seen += bytes.Count(p[:n], []byte("#"))
	return n, err
}

// An interrupted mirror exits 130 and says that running it again goes on.
// Its manifest, when it saved one, names only files that are whole in
// place: not the one cut by the interruption, whose data waits in
// .fetch/partial for the next run. With --warc-file, the WARC file is
// closed and whole (no .open left), and holds a record of each file the
// manifest names.
func TestInterruptedMirror(t *testing.T) {
	for _, warc := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "warc"}[warc], func(t *testing.T) { interruptMirror(t, warc) })
	}
}

func interruptMirror(t *testing.T, warc bool) {
	const body = 2048
	mux := http.NewServeMux()
	mux.HandleFunc("/pub/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<html><body><a href="a.txt">a.txt</a> <a href="big.bin">big.bin</a></body></html>`))
	})
	mux.HandleFunc("/pub/a.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("whole\n"))
	})
	mux.HandleFunc("/pub/big.bin", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("#"), body))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	e, _, errb := newEnv("", &netlog{})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	ictx, interrupt := context.WithCancel(ctx)
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		return &drainedConn{Conn: c, want: body, drained: interrupt}, err
	}
	dir := t.TempDir()
	args := []string{"mirror", "-s", srv.URL + "/pub/", dir}
	w := filepath.Join(t.TempDir(), "w")
	if warc {
		args = append(args, "--warc-file", w)
	}
	code := execute(ictx, args, e)
	want := "fetch: interrupted; the same command again goes on where this mirror stopped\n"
	if code != exitInterrupted || !strings.HasSuffix(errb.String(), want) || strings.Contains(errb.String(), "context canceled") {
		t.Errorf("interrupted mirror = %d, stderr\n%s\nwant 130, ending in\n%s", code, errb, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("big.bin, cut by the interruption, is at its final path: %v", err)
	}
	archived := map[string]bool{}
	if warc {
		for _, r := range warctest.Read(t, w+".warc.gz") {
			archived[r.Get("WARC-Target-URI")] = r.Get("WARC-Type") == "response"
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, ".fetch", "manifest.json"))
	if errors.Is(err, os.ErrNotExist) {
		return // nothing recorded yet
	}
	var m struct {
		Files map[string]struct{ Size int64 }
	}
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v\n%s", err, b)
	}
	for path, f := range m.Files {
		if path != "a.txt" || f.Size != 6 || fileSize(filepath.Join(dir, path)) != 6 {
			t.Errorf("manifest names %s (%d bytes), want a.txt whole or nothing", path, f.Size)
		}
		if warc && !archived[srv.URL+"/pub/"+path] {
			t.Errorf("the manifest names %s, the WARC file has no response record of it", path)
		}
	}
}
