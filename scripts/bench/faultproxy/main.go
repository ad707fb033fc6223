// Command faultproxy runs a faultproxy.Proxy for the benchmark scripts: it
// prints the address it listens on (127.0.0.1:PORT) on the first line of
// stdout and proxies to -target until it receives SIGINT or SIGTERM, or
// -for runs out.
//
//	faultproxy -target 127.0.0.1:2121 -mode ftp -delay 50ms
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
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
	flag.Parse()
	modes := map[string]faultproxy.Mode{"plain": faultproxy.Plain, "ftp": faultproxy.FTP, "http": faultproxy.HTTP}
	m, ok := modes[*mode]
	if !ok || *target == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: faultproxy -target 127.0.0.1:PORT [-mode plain|ftp|http] [-delay D] [-max-conns N] [-for D]")
		os.Exit(2)
	}
	p, err := faultproxy.Start(faultproxy.Config{Target: *target, Mode: m, Delay: *delay, MaxConns: *maxConns})
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
