// Gopher-browse walks a gopher menu with package proto/gopher and prints
// the tree: each item with its type, display string and URL, the menus
// below it indented under it, down to a depth limit.
//
//	go run ./examples/gopher-browse [-depth N] [-all-hosts] gopher://host[:port]/1selector
//
// Every menu URL is checked with package safety before it is fetched (a
// menu may point anywhere: another port, another protocol's port), and by
// default only menus on the starting host and port are followed. Each menu
// is fetched once, however many menus link to it.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// options are the command-line settings.
type options struct {
	depth    int           // menus below the start that are opened; 0 lists the start only
	allHosts bool          // follow menus on other hosts and ports
	maxMenus int           // stop after fetching this many menus
	timeout  time.Duration // for the whole walk
	ports    []int         // ports allowed despite the safety port rules
}

func main() {
	var o options
	flag.IntVar(&o.depth, "depth", 2, "how many levels of menus below the start to open")
	flag.BoolVar(&o.allHosts, "all-hosts", false, "follow menus on other hosts and ports too")
	flag.IntVar(&o.maxMenus, "max-menus", 200, "stop after fetching this many menus")
	flag.DurationVar(&o.timeout, "timeout", 2*time.Minute, "time limit for the whole walk")
	flag.Func("allow-port", "allow this port despite the safety port rules (repeatable)", func(s string) error {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("not a port: %q", s)
		}
		o.ports = append(o.ports, n)
		return nil
	})
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: gopher-browse [flags] gopher://host[:port]/1selector\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout, flag.Arg(0), o); err != nil {
		fmt.Fprintln(os.Stderr, "gopher-browse:", err)
		os.Exit(1)
	}
}

// walker holds the state of one walk.
type walker struct {
	d      *gopher.Driver
	out    io.Writer
	o      options
	policy safety.Policy
	start  *uri.URL
	seen   map[string]bool
	menus  int
}

func run(ctx context.Context, out io.Writer, raw string, o options) error {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	u, err := uri.Parse(raw)
	if err != nil {
		return err
	}
	if u.Scheme != "gopher" {
		return fmt.Errorf("%s is not a gopher URL", u.Redacted())
	}
	d := &gopher.Driver{}
	w := &walker{
		d:      d,
		out:    out,
		o:      o,
		policy: safety.Policy{AllowPorts: o.ports, Wire: d},
		start:  u,
		seen:   map[string]bool{},
	}
	fmt.Fprintln(out, u.Redacted())
	return w.walk(ctx, u, 0)
}

// walk lists the menu u and, within the limits, the menus it points to.
func (w *walker) walk(ctx context.Context, u *uri.URL, depth int) error {
	w.seen[u.String()] = true
	w.menus++
	entries, _, err := proto.ListAll(ctx, w.d, u, &proto.Request{IdleTimeout: 30 * time.Second})
	if err != nil {
		return err
	}
	indent := strings.Repeat("  ", depth+1)
	for _, e := range entries {
		var line bytes.Buffer
		gopher.FormatMenu(&line, []proto.Entry{e})
		fmt.Fprint(w.out, indent, line.String())
		next, why := w.follow(e, depth)
		if next == nil {
			if why != "" {
				fmt.Fprintf(w.out, "%s  (not opened: %s)\n", indent, why)
			}
			continue
		}
		if err := w.walk(ctx, next, depth+1); err != nil {
			if ctx.Err() != nil {
				return err
			}
			fmt.Fprintf(w.out, "%s  (error: %v)\n", indent, err)
		}
	}
	return nil
}

// follow returns the menu to open below entry e, or nil and the reason
// why not ("" when there is nothing worth saying).
func (w *walker) follow(e proto.Entry, depth int) (*uri.URL, string) {
	if e.ItemType != "1" || e.URL == "" {
		return nil, ""
	}
	if depth >= w.o.depth {
		return nil, ""
	}
	u, err := uri.Parse(e.URL)
	if err != nil {
		return nil, "malformed URL"
	}
	if w.seen[u.String()] {
		return nil, "already shown"
	}
	if !w.o.allHosts && (!strings.EqualFold(u.Hostname(), w.start.Hostname()) || u.PortNumber() != w.start.PortNumber()) {
		return nil, "another server"
	}
	if w.menus >= w.o.maxMenus {
		return nil, "menu limit reached"
	}
	if _, err := w.policy.Evaluate(u); err != nil {
		var re *safety.RefusedError
		if errors.As(err, &re) {
			return nil, "refused: " + strings.Join(re.Rules(), ", ")
		}
		return nil, err.Error()
	}
	return u, ""
}
