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
	d := &Driver{MaxIdleConnsPerHost: 4}
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
