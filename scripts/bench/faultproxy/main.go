// Command faultproxy runs a faultproxy.Proxy for the benchmark scripts: it
// prints the address it listens on (127.0.0.1:PORT) on the first line of
// stdout and proxies to -target until it receives SIGINT or SIGTERM, or
// -for runs out.
//
//	faultproxy -target 127.0.0.1:2121 -mode ftp -delay 50ms [-rate 125M]
//
// -rate is the capacity of the link from the server to the client, in
// bytes a second (k, M and G are powers of 1000: 125M is a gigabit), that
// every connection through the proxy shares.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/faultproxy"
)

func main() {
	target := flag.String("target", "", "server address, 127.0.0.1:PORT")
	mode := flag.String("mode", "plain", "plain, ftp (data connections proxied too) or http")
	delay := flag.Duration("delay", 0, "one-way delay in each direction")
	maxConns := flag.Int("max-conns", 0, "refuse connections beyond this many open at once (0: no limit)")
	limit := flag.Duration("for", time.Hour, "stop after this long")
	rate := flag.String("rate", "", "bytes a second from the server, shared by every connection (125M: a gigabit); none by default")
	flag.Parse()
	modes := map[string]faultproxy.Mode{"plain": faultproxy.Plain, "ftp": faultproxy.FTP, "http": faultproxy.HTTP}
	m, ok := modes[*mode]
	bps, err := parseRate(*rate)
	if !ok || *target == "" || flag.NArg() > 0 || err != nil {
		if err != nil {
			fmt.Fprintln(os.Stderr, "faultproxy:", err)
		}
		fmt.Fprintln(os.Stderr, "usage: faultproxy -target 127.0.0.1:PORT [-mode plain|ftp|http] [-delay D] [-rate BYTES/S] [-max-conns N] [-for D]")
		os.Exit(2)
	}
	p, err := faultproxy.Start(faultproxy.Config{Target: *target, Mode: m, Delay: *delay, MaxConns: *maxConns, Rate: bps})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(p.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *limit)
	defer cancel()
	<-ctx.Done()
	p.Close()
}

// parseRate reads -rate: a number of bytes a second, with k, M or G for
// powers of 1000; empty is no limit (0).
func parseRate(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'k':
		mult = 1e3
	case 'M':
		mult = 1e6
	case 'G':
		mult = 1e9
	}
	num := s
	if mult > 1 {
		num = s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v*mult < 1 || v*mult > 1e12 {
		return 0, fmt.Errorf("-rate %q: want bytes a second, as 500k, 12.5M or 1G", s)
	}
	return int64(v * mult), nil
}
