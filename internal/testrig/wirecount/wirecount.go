// Package wirecount counts the commands a client writes at once: for each
// write on the connections its Dial opens that holds lines beginning with
// a given command word, how many such lines it held. A test proves that
// commands were pipelined (sent in one write, before any reply) by
// counting writes, not by timing them.
package wirecount

import (
	"context"
	"net"
	"slices"
	"strings"
	"sync"
)

// Writes counts the lines that begin with Verb and a space in each write.
// The zero value counts nothing; set Verb first.
type Writes struct {
	Verb string

	mu     sync.Mutex
	counts []int
}

// Dial connects as a net.Dialer does and counts the writes of the
// connection (a proto.DialFunc).
func (w *Writes) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return conn{c, w}, nil
}

// Counts returns, for each write that held the command, how many times.
func (w *Writes) Counts() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.counts)
}

// Reset forgets the writes counted so far.
func (w *Writes) Reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.counts = nil
}

type conn struct {
	net.Conn
	w *Writes
}

func (c conn) Write(p []byte) (int, error) {
	if n := strings.Count("\n"+string(p), "\n"+c.w.Verb+" "); n > 0 {
		c.w.mu.Lock()
		c.w.counts = append(c.w.counts, n)
		c.w.mu.Unlock()
	}
	return c.Conn.Write(p)
}
