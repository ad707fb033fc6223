package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
)

// slowServer sends head bytes of a body announced as total bytes, then
// nothing until the request ends (bounded).
func slowServer(t *testing.T, head, total int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(total))
		w.Write(bytes.Repeat([]byte("x"), head))
		w.(http.Flusher).Flush()
		if head < total {
			select {
			case <-r.Context().Done():
			case <-time.After(20 * time.Second):
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A body that stops arriving is cut once it has been slower than the
// limit for the time given, through Read and through WriteTo, with a
// *SpeedError that is transient and exits as a network failure.
func TestSpeedLimitCutsStall(t *testing.T) {
	srv := slowServer(t, 1000, 100000)
	c := &fetch.Client{SpeedLimit: 5000, SpeedTime: 300 * time.Millisecond}
	for _, how := range []string{"read", "writeto"} {
		resp, err := c.Get(context.Background(), srv.URL+"/f")
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		if how == "read" {
			_, err = io.ReadAll(resp.Body)
		} else {
			_, err = io.Copy(io.Discard, resp.Body)
		}
		resp.Body.Close()
		var se *fetch.SpeedError
		if !errors.As(err, &se) || !errors.Is(err, fetch.ErrTooSlow) {
			t.Fatalf("%s: err = %v, want a *SpeedError", how, err)
		}
		if se.Limit != 5000 || se.Time != 300*time.Millisecond || se.Rate >= 5000 {
			t.Errorf("%s: SpeedError = %+v", how, se)
		}
		if !fetch.Transient(err) || fetch.ExitCode(err) != fetch.ExitNetwork {
			t.Errorf("%s: Transient = %v, ExitCode = %d; want true, %d", how, fetch.Transient(err), fetch.ExitCode(err), fetch.ExitNetwork)
		}
		if el := time.Since(t0); el < 300*time.Millisecond {
			t.Errorf("%s: cut after %v, before the speed time", how, el)
		}
	}
}

// A body that arrives fast enough is not cut, however long it takes. The
// speed time is a second, so that a process held up for half a second on
// a loaded machine (the whole suite runs at once) is no slow transfer;
// the body takes 2.5 s, more than two of them.
func TestSpeedLimitKeepsSteadyTransfer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100000")
		for range 100 { // 1,000 bytes every 25 ms: 40,000 bytes a second, for 2.5 s
			w.Write(bytes.Repeat([]byte("y"), 1000))
			w.(http.Flusher).Flush()
			time.Sleep(25 * time.Millisecond)
		}
	}))
	defer srv.Close()
	c := &fetch.Client{SpeedLimit: 1000, SpeedTime: time.Second}
	resp, err := c.Get(context.Background(), srv.URL+"/f")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || len(b) != 100000 {
		t.Fatalf("got %d bytes, %v", len(b), err)
	}
}
