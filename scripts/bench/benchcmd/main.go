// Command benchcmd fetches ftp URLs with one ftp.Driver, the way
// "fetch get -O URL..." does, for scripts/bench/ftp.sh while the fetch CLI
// cannot be used for ftp. It is not part of the public tree.
//
//	benchcmd [-O DIR] [-v] URL...
//
// Without -O the bodies go to stdout; with -O each goes to DIR/NAME, written
// to a temporary file and renamed into place.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

func main() {
	dir := flag.String("O", "", "write each file to `DIR`/NAME")
	verbose := flag.Bool("v", false, "protocol trace on stderr")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *dir, *verbose, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "benchcmd:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string, verbose bool, urls []string) error {
	d := &ftp.Driver{}
	defer d.CloseIdleConnections()
	req := &proto.Request{}
	if verbose {
		req.Trace = &stampWriter{w: os.Stderr, start: time.Now()}
	}
	for _, raw := range urls {
		u, err := uri.Parse(raw)
		if err != nil {
			return err
		}
		resp, err := d.Fetch(ctx, u, req)
		if err != nil {
			return err
		}
		if err := save(resp, dir); err != nil {
			return fmt.Errorf("%s: %w", u.Redacted(), err)
		}
	}
	return nil
}

// stampWriter prefixes each trace line with the milliseconds since start.
type stampWriter struct {
	w     io.Writer
	start time.Time
}

func (s *stampWriter) Write(p []byte) (int, error) {
	fmt.Fprintf(s.w, "%9.3fms %s", float64(time.Since(s.start).Microseconds())/1000, p)
	return len(p), nil
}

func save(resp *proto.Response, dir string) (err error) {
	defer func() { err = errors.Join(err, resp.Body.Close()) }()
	if dir == "" {
		_, err = io.Copy(os.Stdout, resp.Body)
		return err
	}
	if resp.Name == "" || !filepath.IsLocal(resp.Name) {
		return fmt.Errorf("no usable file name %q", resp.Name)
	}
	f, err := os.CreateTemp(dir, ".part-*")
	if err != nil {
		return err
	}
	if _, err = io.Copy(f, resp.Body); err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, resp.Name))
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
