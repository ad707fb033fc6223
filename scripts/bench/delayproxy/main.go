// Command delayproxy forwards TCP ports of 127.0.0.1 from the same ports of
// [::1] with a delay added to every byte, in both directions, for the
// benchmarks that compare clients over a slow link (scripts/bench/parallel.sh):
//
//	delayproxy -rtt 10ms -ports 2121,8080,30000-30049 -for 60s
//
// Each port P of -ports is served on [::1]:P and forwarded to 127.0.0.1:P
// (the two address families cannot clash). An FTP server's passive ports
// must be among them: a client on [::1] uses EPSV (RFC 2428), which names
// only a port, and opens its data connections to the control connection's
// peer, the proxy. Bytes are delivered half the round trip after they were
// read, so a request and its answer take -rtt more; the throughput is not
// limited. An end of stream (FIN) is passed on after the bytes before it.
// The proxy stops after -for (at most 1 hour), or when killed; it talks to
// 127.0.0.1 and [::1] only.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"strconv"
	"strings"
	"time"
)

func main() {
	rtt := flag.Duration("rtt", 10*time.Millisecond, "round-trip time to add")
	ports := flag.String("ports", "", "comma-separated `PORTS` and ranges (A-B) to forward")
	life := flag.Duration("for", 10*time.Minute, "stop after this long (at most 1h)")
	flag.Parse()
	if *life <= 0 || *life > time.Hour || *rtt < 0 || *rtt > time.Second {
		log.Fatal("delayproxy: -for must be in (0, 1h] and -rtt in [0, 1s]")
	}
	ps, err := parsePorts(*ports)
	if err != nil {
		log.Fatalf("delayproxy: -ports: %v", err)
	}
	for _, p := range ps {
		ln, err := net.Listen("tcp", net.JoinHostPort("::1", strconv.Itoa(p)))
		if err != nil {
			log.Fatalf("delayproxy: %v", err)
		}
		go serve(ln, net.JoinHostPort("127.0.0.1", strconv.Itoa(p)), *rtt/2)
	}
	fmt.Println("ready")
	time.Sleep(*life)
}

func parsePorts(s string) ([]int, error) {
	var ps []int
	for _, f := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(f, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.Atoi(b)
		}
		if err1 != nil || err2 != nil || lo < 1 || hi > 65535 || lo > hi || hi-lo > 1000 {
			return nil, fmt.Errorf("%q is not a port or a range of ports", f)
		}
		for p := lo; p <= hi; p++ {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil, errors.New("no ports")
	}
	return ps, nil
}

func serve(ln net.Listener, target string, delay time.Duration) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			s, err := net.DialTimeout("tcp", target, 5*time.Second)
			if err != nil {
				c.Close()
				return
			}
			done := make(chan struct{}, 2)
			go pipe(s.(*net.TCPConn), c.(*net.TCPConn), delay, done)
			go pipe(c.(*net.TCPConn), s.(*net.TCPConn), delay, done)
			<-done
			<-done
			c.Close()
			s.Close()
		}()
	}
}

type chunk struct {
	b  []byte
	at time.Time
}

// pipe copies from src to dst, each chunk delay after it was read, and
// half-closes dst after src's end.
func pipe(dst, src *net.TCPConn, delay time.Duration, done chan<- struct{}) {
	defer func() { done <- struct{}{} }()
	ch := make(chan chunk, 4096)
	go func() {
		defer close(ch)
		for {
			b := make([]byte, 64<<10)
			n, err := src.Read(b)
			if n > 0 {
				ch <- chunk{b[:n], time.Now()}
			}
			if err != nil {
				return
			}
		}
	}()
	for k := range ch {
		time.Sleep(time.Until(k.at.Add(delay)))
		if _, err := dst.Write(k.b); err != nil {
			src.Close()
			for range ch {
			}
			return
		}
	}
	dst.CloseWrite()
}
