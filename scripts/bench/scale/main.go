//go:build unix

// Command scale measures how fetch mirror grows with the tree: it serves a
// generated tree of N files (N/per-dir directories of per-dir files, made up
// as they are read) over FTP and as HTTP index pages from this process on
// 127.0.0.1, runs the fetch binary to mirror it fresh and again unchanged,
// and prints for each size and scheme the wall time, the peak RSS of the
// fetch process, its CPU time and the server's, the manifest's size and
// the figures per file, from the kernel's accounting of processes (Unix
// only).
//
//	go build -o /tmp/fetch ./cmd/fetch
//	go run ./scripts/bench/scale -fetch /tmp/fetch -files 10000,100000 -dir /dev/shm
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
)

type config struct {
	fetch   string
	sizes   []int
	perDir  int
	size    int
	dir     string
	jobs    int
	schemes []string
	timeout time.Duration
}

// result is one mirror run of fetch.
type result struct {
	wall     time.Duration
	rssKiB   int64
	manifest int64
	files    int
	// fetchCPU is the fetch process's user and system time; serverCPU
	// this process's (the servers') over the same run, so that a cost
	// of the server is not taken for one of fetch.
	fetchCPU, serverCPU time.Duration
}

func cpu(ru syscall.Rusage) time.Duration {
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	cfg, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(2)
	}
	if err := run(cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

func parseFlags() (config, error) {
	var cfg config
	var sizes, schemes string
	flag.StringVar(&cfg.fetch, "fetch", "", "the fetch binary to measure (required)")
	flag.StringVar(&sizes, "files", "10000,100000", "tree sizes, comma-separated")
	flag.IntVar(&cfg.perDir, "per-dir", 1000, "files per directory")
	flag.IntVar(&cfg.size, "size", 64, "bytes per file")
	flag.StringVar(&cfg.dir, "dir", os.TempDir(), "where the mirrors are written")
	flag.IntVar(&cfg.jobs, "j", 8, "fetch mirror -j")
	flag.StringVar(&schemes, "schemes", "ftp,http", "schemes, comma-separated")
	flag.DurationVar(&cfg.timeout, "timeout", 30*time.Minute, "bound on each fetch run")
	flag.Parse()
	if cfg.fetch == "" {
		return cfg, errors.New("-fetch is required")
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < cfg.perDir || n%cfg.perDir != 0 {
			return cfg, fmt.Errorf("-files: %q is not a multiple of -per-dir %d", s, cfg.perDir)
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	cfg.schemes = strings.Split(schemes, ",")
	return cfg, nil
}

func run(cfg config, w io.Writer) error {
	fmt.Fprintf(w, "| scheme | files | fresh (s) | fresh µs/file | fetch CPU µs/file | server CPU µs/file | fresh peak RSS (MiB) | re-run (s) | re-run µs/file | re-run peak RSS (MiB) | manifest (MiB) | manifest B/file |\n")
	fmt.Fprintf(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, n := range cfg.sizes {
		g := &genFS{dirs: n / cfg.perDir, perDir: cfg.perDir, size: cfg.size, mod: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
		for _, scheme := range cfg.schemes {
			fresh, again, err := measure(cfg, g, scheme)
			if err != nil {
				return fmt.Errorf("%s, %d files: %w", scheme, n, err)
			}
			if fresh.files != n {
				return fmt.Errorf("%s, %d files: the mirror holds %d files", scheme, n, fresh.files)
			}
			fmt.Fprintf(w, "| %s | %d | %.1f | %.0f | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f | %.1f | %.0f |\n", scheme, n,
				fresh.wall.Seconds(), perFile(fresh.wall, n), perFile(fresh.fetchCPU, n), perFile(fresh.serverCPU, n), mib(fresh.rssKiB*1024),
				again.wall.Seconds(), perFile(again.wall, n), mib(again.rssKiB*1024),
				mib(fresh.manifest), float64(fresh.manifest)/float64(n))
		}
	}
	return nil
}

func perFile(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }
func mib(b int64) float64                    { return float64(b) / (1 << 20) }

// measure serves g over scheme, mirrors it fresh and again, and removes
// the mirror.
func measure(cfg config, g *genFS, scheme string) (fresh, again result, err error) {
	url, stop, err := serve(g, scheme)
	if err != nil {
		return fresh, again, err
	}
	defer stop()
	target, err := os.MkdirTemp(cfg.dir, "fetch-scale-")
	if err != nil {
		return fresh, again, err
	}
	defer os.RemoveAll(target)
	if fresh, err = mirror(cfg, url, target); err != nil {
		return fresh, again, fmt.Errorf("fresh: %w", err)
	}
	if fresh.files, err = countFiles(target); err != nil {
		return fresh, again, err
	}
	again, err = mirror(cfg, url, target)
	if err != nil {
		return fresh, again, fmt.Errorf("re-run: %w", err)
	}
	return fresh, again, nil
}

// passivePorts is where the FTP server's passive listeners bind: above
// Linux's default ephemeral range (32768-60999), so that the TIME_WAIT
// sockets a run leaves behind by the ten thousand do not slow each bind
// to port 0 (the kernel searches the ephemeral range for a port none of
// them holds: the server's time per file grew with the tree, from 0.2 ms
// at 2,000 files to 2 ms at 10,000), and away from the ports
// scripts/servers.sh gives real servers (below the ephemeral range).
var passivePorts = [2]int{61000, 65535}

func serve(g *genFS, scheme string) (url string, stop func(), err error) {
	switch scheme {
	case "ftp":
		s, err := fetchtest.StartFTP(g, fetchtest.FTPOptions{PassivePorts: passivePorts})
		if err != nil {
			return "", nil, err
		}
		return "ftp://" + s.Addr() + "/", func() { s.Close() }, nil
	case "http":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", nil, err
		}
		srv := &http.Server{Handler: indexHandler{g}, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		return "http://" + ln.Addr().String() + "/", func() { srv.Close() }, nil
	}
	return "", nil, fmt.Errorf("unknown scheme %q", scheme)
}

// mirror runs fetch mirror once and reads its peak RSS from the kernel's
// accounting of the finished child.
func mirror(cfg config, url, target string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, cfg.fetch, "mirror", "-s", "-j", strconv.Itoa(cfg.jobs), url, target)
	cmd.Stderr = os.Stderr
	var self0, self1 syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	start := time.Now()
	err := cmd.Run()
	r := result{wall: time.Since(start)}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	r.serverCPU = cpu(self1) - cpu(self0)
	if err != nil {
		return r, fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rssKiB = ru.Maxrss
		r.fetchCPU = cpu(*ru)
	}
	if fi, err := os.Stat(filepath.Join(target, ".fetch", "manifest.json")); err == nil {
		r.manifest = fi.Size()
	}
	return r, nil
}

// countFiles counts the regular files below dir, .fetch left out.
func countFiles(dir string) (int, error) {
	n := 0
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == ".fetch":
			return filepath.SkipDir
		case d.Type().IsRegular():
			n++
		}
		return nil
	})
	return n, err
}

// indexHandler serves g as index pages in the manner of nginx's autoindex,
// with exact sizes and times to the minute, and its files with
// Last-Modified (so a re-run gets 304s).
type indexHandler struct{ g *genFS }

func (h indexHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d, f, err := h.g.lookup(r.URL.Path)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	if f >= 0 {
		http.ServeContent(w, r, fileName(f), h.g.mod, strings.NewReader(string(h.g.content(d, f))))
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/") {
		http.Redirect(w, r, r.URL.Path+"/", http.StatusMovedPermanently)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><head><title>Index of %s</title></head><body><pre><a href=\"../\">../</a>\n", r.URL.Path)
	stamp := h.g.mod.Format("02-Jan-2006 15:04")
	if d < 0 {
		for i := 0; i < h.g.dirs; i++ {
			fmt.Fprintf(w, "<a href=\"%s/\">%s/</a> %s -\n", dirName(i), dirName(i), stamp)
		}
	} else {
		for i := 0; i < h.g.perDir; i++ {
			fmt.Fprintf(w, "<a href=\"%s\">%s</a> %s %d\n", fileName(i), fileName(i), stamp, h.g.size)
		}
	}
	fmt.Fprintf(w, "</pre></body></html>\n")
}
