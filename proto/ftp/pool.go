package ftp

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// poolKey names the connections that may serve a URL: same server, same
// user, same password. The password is part of the key so that a URL with
// another (perhaps wrong) password never rides on a login made with the
// first; it is never printed.
type poolKey struct {
	addr string // host:port as dialled
	user string
	pass string
	tls  proto.FTPTLS // the TLS mode asked for
}

// connPool keeps logged-in control connections between Fetch calls, with
// a per-key limit on connections in use (callers beyond it wait) and a
// timer that closes connections idle for too long.
type connPool struct {
	maxConns    int           // in use per key; 0 means no limit
	maxIdle     int           // idle per key; <0 means none kept
	idleTimeout time.Duration // idle connections older than this are closed

	mu       sync.Mutex
	idle     map[poolKey][]*conn
	busy     map[poolKey]int
	wake     map[poolKey][]chan struct{}
	prompted map[[2]string]string // passwords typed at the terminal, by addr and user
	refused  map[[2]string]bool   // by addr and command: MLSD (though FEAT lists MLST), LIST -a (listall.go)
	timer    *time.Timer
}

func newPool(maxConns, maxIdle int, idleTimeout time.Duration) *connPool {
	return &connPool{
		maxConns:    maxConns,
		maxIdle:     maxIdle,
		idleTimeout: idleTimeout,
		idle:        map[poolKey][]*conn{},
		busy:        map[poolKey]int{},
		wake:        map[poolKey][]chan struct{}{},
		prompted:    map[[2]string]string{},
		refused:     map[[2]string]bool{},
	}
}

// acquire takes one of key's tokens, waiting (as long as ctx allows) while
// maxConns connections are in use.
func (p *connPool) acquire(ctx context.Context, key poolKey) error {
	for {
		p.mu.Lock()
		if p.maxConns <= 0 || p.busy[key] < p.maxConns {
			p.busy[key]++
			p.mu.Unlock()
			return nil
		}
		ch := make(chan struct{})
		p.wake[key] = append(p.wake[key], ch)
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// releaseToken gives back one of key's tokens and wakes the waiters, who
// compete for it again.
func (p *connPool) releaseToken(key poolKey) {
	p.mu.Lock()
	p.busy[key]--
	if p.busy[key] <= 0 {
		delete(p.busy, key)
	}
	ws := p.wake[key]
	delete(p.wake, key)
	p.mu.Unlock()
	for _, ch := range ws {
		close(ch)
	}
}

// takeIdle returns an idle connection of key, or nil: of those with an
// EPSV sent ahead (a port already open is used, mirror.run.holdNext
// counts on it), else of all, the most recently used in dir (no CWD), else
// the one idle the longest (the least likely to be wanted back there).
func (p *connPool) takeIdle(key poolKey, dir []string) *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := p.idle[key]
	if len(cs) == 0 {
		return nil
	}
	i := pick(cs, dir, true)
	if i < 0 {
		i = max(0, pick(cs, dir, false))
	}
	c := cs[i]
	copy(cs[i:], cs[i+1:])
	cs[len(cs)-1] = nil
	if len(cs) == 1 {
		delete(p.idle, key)
	} else {
		p.idle[key] = cs[:len(cs)-1]
	}
	return c
}

// pick is takeIdle's choice among cs, of those with an EPSV sent ahead
// when epsv: the index, or -1.
func pick(cs []*conn, dir []string, epsv bool) int {
	i := -1
	for j := len(cs) - 1; j >= 0; j-- {
		if epsv && !cs[j].hasEPSV() {
			continue
		}
		if cs[j].atKnown && slices.Equal(cs[j].at, dir) {
			return j
		}
		i = j
	}
	return i
}

// putIdle keeps c for reuse; it returns a connection to close (c itself
// when reuse is off, or the oldest when key has maxIdle already).
func (p *connPool) putIdle(c *conn) (evict *conn) {
	if p.maxIdle < 0 {
		return c
	}
	most := cmp.Or(p.maxIdle, defaultMaxIdle)
	c.idleSince = time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := append(p.idle[c.key], c)
	if len(cs) > most {
		evict = cs[0]
		cs = append(cs[:0], cs[1:]...)
	}
	p.idle[c.key] = cs
	if p.timer == nil {
		p.timer = time.AfterFunc(p.idleTimeout, p.drain)
	}
	return evict
}

// drain closes the connections idle for longer than idleTimeout and
// schedules itself again while any remain.
func (p *connPool) drain() {
	now := time.Now()
	var old []*conn
	p.mu.Lock()
	next := time.Duration(-1)
	for k, cs := range p.idle {
		kept := cs[:0]
		for _, c := range cs {
			age := now.Sub(c.idleSince)
			if age >= p.idleTimeout {
				old = append(old, c)
				continue
			}
			kept = append(kept, c)
			if left := p.idleTimeout - age; next < 0 || left < next {
				next = left
			}
		}
		if len(kept) == 0 {
			delete(p.idle, k)
		} else {
			p.idle[k] = kept
		}
	}
	if next >= 0 {
		p.timer = time.AfterFunc(next, p.drain)
	} else {
		p.timer = nil
	}
	p.mu.Unlock()
	for _, c := range old {
		c.close()
	}
}

// closeIdle closes every idle connection.
func (p *connPool) closeIdle() {
	p.mu.Lock()
	var all []*conn
	for _, cs := range p.idle {
		all = append(all, cs...)
	}
	p.idle = map[poolKey][]*conn{}
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	p.mu.Unlock()
	for _, c := range all {
		c.close()
	}
}

// password returns a password typed earlier for user on addr.
func (p *connPool) password(addr, user string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pw, ok := p.prompted[[2]string{addr, user}]
	return pw, ok
}

// remember keeps (ok) or forgets (!ok) a typed password.
func (p *connPool) remember(addr, user, pass string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ok {
		p.prompted[[2]string{addr, user}] = pass
	} else {
		delete(p.prompted, [2]string{addr, user})
	}
}

// refuses reports whether the server at addr refused cmd ("MLSD", or
// "LIST -a" or took "-a" for a name) earlier.
func (p *connPool) refuses(addr, cmd string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused[[2]string{addr, cmd}]
}

// refuse records that the server at addr refuses cmd: for "MLSD",
// connections dialled from now on list with LIST.
func (p *connPool) refuse(addr, cmd string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused[[2]string{addr, cmd}] = true
}
