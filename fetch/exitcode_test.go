package fetch

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// greeter is an NNTP server on 127.0.0.1 that answers every connection
// with greeting and closes it, as RFC 3977 section 5.1.1 asks after 400
// or 502.
func greeter(t *testing.T, greeting string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			w := bufio.NewWriter(c)
			w.WriteString(greeting + "\r\n")
			w.Flush()
			c.Close()
		}
	}()
	return ln.Addr().String()
}

// The NNTP greeting refusals (RFC 3977 section 5.1.1): 400, "service
// temporarily unavailable", is worth trying again later, like a network
// failure (exit 5); 502, "service permanently unavailable", is the server
// refusing this client (exit 6).
func TestExitCodeNNTPGreeting(t *testing.T) {
	for _, tt := range []struct {
		greeting string
		want     int
	}{
		{"400 too many readers, try later", ExitNetwork},
		{"502 you may not read news here", ExitServer},
	} {
		addr := greeter(t, tt.greeting)
		c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
		_, err := c.Get(t.Context(), "nntp://"+addr+"/local.test/1")
		if got := ExitCode(err); got != tt.want {
			t.Errorf("greeting %q: ExitCode(%v) = %d, want %d", tt.greeting, err, got, tt.want)
		}
	}
}
