package ftp

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// askCounter is a Prompter that counts the questions it is asked.
type askCounter struct{ n atomic.Int32 }

func (a *askCounter) Ask(context.Context, string, bool) (string, error) {
	a.n.Add(1)
	return "secret", nil
}

// TestWarm: Warm logs in n connections at once and leaves them idle, so
// that n transfers started together dial nothing more; a login that would
// need a password typed at the terminal is not made, and nothing is asked.
func TestWarm(t *testing.T) {
	f := newFake(t)
	f.files["f.bin"] = []byte("warm")
	f.start()
	d := New(Config{MaxIdleConnsPerHost: 4})
	defer d.CloseIdleConnections()
	u := mustParse(t, f.url("/f.bin"))
	d.Warm(context.Background(), u, quickReq(), 3)
	if n := f.connCount(); n != 3 {
		t.Fatalf("after Warm(3): %d connections, want 3", n)
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, b, err := get(t, d, f.url("/f.bin"), quickReq()); err != nil || string(b) != "warm" {
				t.Errorf("Fetch = %q, %v", b, err)
			}
		}()
	}
	wg.Wait()
	if n := f.connCount(); n != 3 {
		t.Errorf("three transfers after Warm(3) made %d connections in all, want 3", n)
	}

	ask := &askCounter{}
	req := quickReq()
	req.Prompt = ask
	d.Warm(context.Background(), mustParse(t, "ftp://someone@"+f.addr()+"/f.bin"), req, 2)
	if n := ask.n.Load(); n != 0 {
		t.Errorf("Warm asked for a password %d times, want never", n)
	}
	if n := f.connCount(); n != 3 {
		t.Errorf("Warm without a password made %d connections in all, want still 3", n)
	}

	// A cancelled context makes Warm return without a login.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d.Warm(ctx, mustParse(t, f.url("/f.bin")), &proto.Request{}, 2)
	if n := f.connCount(); n != 3 {
		t.Errorf("Warm with a cancelled context made %d connections in all, want still 3", n)
	}
}

// Warming with a directory URL changes each connection into the directory
// (RFC 1738 section 3.2.2: one CWD per segment) and, with PipelinePassive,
// sends the first retrieval's EPSV: a file of that directory then costs
// RETR alone. A file elsewhere goes back to the login directory first, and
// the EPSV serves it there.
func TestWarmDirectory(t *testing.T) {
	f := newFake(t)
	f.files = map[string][]byte{"a": []byte("in dir"), "b": []byte("elsewhere")}
	d, req := startPiped(t, f)
	d.Warm(context.Background(), mustParse(t, f.url("/pub/dir/")), req, 1)
	if _, body, err := get(t, d, f.url("/pub/dir/a"), req); err != nil || string(body) != "in dir" {
		t.Fatalf("a: %q, %v", body, err)
	}
	d.CloseIdleConnections()
	waitSent(t, f, commands(anonLogin+"CWD pub|CWD dir|EPSV|RETR a|EPSV|QUIT"))

	g := newFake(t)
	g.files = map[string][]byte{"b": []byte("elsewhere")}
	d, req = startPiped(t, g)
	d.Warm(context.Background(), mustParse(t, g.url("/pub/dir/")), req, 1)
	if _, body, err := get(t, d, g.url("/other/b"), req); err != nil || string(body) != "elsewhere" {
		t.Fatalf("b: %q, %v", body, err)
	}
	d.CloseIdleConnections()
	waitSent(t, g, commands(anonLogin+"CWD pub|CWD dir|EPSV|CWD /|CWD other|RETR b|EPSV|QUIT"))

	// A mirror's request (DirectCWD): its files go by their paths, so
	// the connection sends no CWD, only SYST (for its listings) and the
	// EPSV of its first retrieval, with PASS.
	h := newFake(t)
	h.files = map[string][]byte{"/pub/dir/a": []byte("in dir")}
	d, req = startPiped(t, h)
	req.Options.FTP.DirectCWD = true
	d.Warm(context.Background(), mustParse(t, h.url("/pub/dir/")), req, 1)
	if _, body, err := get(t, d, h.url("/pub/dir/a"), req); err != nil || string(body) != "in dir" {
		t.Fatalf("a: %q, %v", body, err)
	}
	d.CloseIdleConnections()
	waitSent(t, h, commands(anonLogin+"SYST|EPSV|RETR /pub/dir/a|EPSV|QUIT"))
}
