// Demo serves a small legacy archive on 127.0.0.1 over FTP, gopher (with
// Gopher+ attributes, an +ASK form and a type 7 search), NNTP, HTTP index
// pages (with a WAIS gateway) and telnet, at the ports the README's tour
// uses, until Ctrl-C:
//
//	go run ./examples/demo
//	go run ./examples/demo -ftp 0 -http 0   # 0 picks a free port
//
// It is built on the public package fetch/fetchtest and the standard
// library only, so it can be copied into another module.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// defaultPorts are the ports the README's tour names.
var defaultPorts = ports{FTP: 2121, Gopher: 7070, NNTP: 1119, Telnet: 2323, HTTP: 8080}

func main() {
	p := defaultPorts
	flag.IntVar(&p.FTP, "ftp", p.FTP, "FTP `port`")
	flag.IntVar(&p.Gopher, "gopher", p.Gopher, "gopher `port`")
	flag.IntVar(&p.NNTP, "nntp", p.NNTP, "NNTP `port`")
	flag.IntVar(&p.Telnet, "telnet", p.Telnet, "telnet `port`")
	flag.IntVar(&p.HTTP, "http", p.HTTP, "HTTP `port`")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "demo: no arguments are taken, only flags")
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, p, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run starts the servers, says where they are, and serves until ctx ends.
func run(ctx context.Context, p ports, out io.Writer) error {
	d, err := start(p)
	if err != nil {
		return err
	}
	defer d.Close()
	d.describe(out)
	fmt.Fprintln(out, "serving until Ctrl-C")
	<-ctx.Done()
	fmt.Fprintln(out, "stopping")
	return nil
}
