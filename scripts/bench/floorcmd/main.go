// Command floorcmd copies one directory of an FTP server on 127.0.0.1 the
// shortest way this repository knows, for scripts/bench/mirror.sh: it is
// the floor that fetch mirror's own time is compared with, not a tool. It
// does what fetch mirror does on the wire with vsftpd (N logged-in
// connections, one LIST, then per file EPSV sent along with the previous
// RETR, the data connection half-closed at once) and on disk (a temporary
// file, the listed time, a rename), and nothing else: no safety policy, no
// manifest, no checksum, no resume, no retry, no parsing beyond what a
// directory of plain files needs. Its garbage collector is tuned as
// fetch's is (package gctune). It is not part of the public tree.
//
//	floorcmd [-j N] ftp://127.0.0.1:PORT/DIR/ TARGET
//
// Every wait on the network is bounded (20 s), and it refuses any host
// but 127.0.0.1.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/internal/gctune"
)

const timeout = 20 * time.Second

type file struct {
	name  string
	mtime time.Time
}

// ctl is one logged-in control connection.
type ctl struct {
	c net.Conn
	r *bufio.Reader
}

func (c *ctl) send(cmd string) error {
	c.c.SetDeadline(time.Now().Add(timeout))
	_, err := io.WriteString(c.c, cmd+"\r\n")
	return err
}

// reply reads one reply (the last line of a multi-line one) and checks
// that its code starts with want.
func (c *ctl) reply(want byte) (string, error) {
	c.c.SetDeadline(time.Now().Add(timeout))
	for {
		l, err := c.r.ReadString('\n')
		if err != nil {
			return "", err
		}
		if len(l) >= 4 && l[3] == ' ' {
			if l[0] != want {
				return "", fmt.Errorf("reply %q", strings.TrimSpace(l))
			}
			return strings.TrimSpace(l[4:]), nil
		}
	}
}

func login(addr string, cwd []string) (*ctl, error) {
	nc, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	c := &ctl{c: nc, r: bufio.NewReader(nc)}
	if _, err := c.reply('2'); err != nil {
		nc.Close()
		return nil, err
	}
	steps := [][2]string{{"USER anonymous", "3"}, {"PASS floor@", "2"}, {"TYPE I", "2"}}
	for _, d := range cwd {
		steps = append(steps, [2]string{"CWD " + d, "2"})
	}
	for _, s := range steps {
		if err := c.send(s[0]); err != nil {
			nc.Close()
			return nil, err
		}
		if _, err := c.reply(s[1][0]); err != nil {
			nc.Close()
			return nil, fmt.Errorf("%s: %w", s[0], err)
		}
	}
	return c, nil
}

// data reads the reply to an EPSV sent earlier and opens the data
// connection, half-closed.
func (c *ctl) data(host string) (net.Conn, error) {
	msg, err := c.reply('2')
	if err != nil {
		return nil, fmt.Errorf("EPSV: %w", err)
	}
	i, j := strings.Index(msg, "(|||"), strings.LastIndex(msg, "|)")
	if i < 0 || j < i+4 {
		return nil, fmt.Errorf("EPSV reply %q", msg)
	}
	d, err := net.DialTimeout("tcp", net.JoinHostPort(host, msg[i+4:j]), timeout)
	if err != nil {
		return nil, err
	}
	d.(*net.TCPConn).CloseWrite()
	d.SetDeadline(time.Now().Add(timeout))
	return d, nil
}

// list parses the "ls -l" lines of plain files: the name is what follows
// the date (fields 6-8), the time is kept when it has a year.
func list(b []byte) []file {
	var fs []file
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		f := strings.Fields(line)
		if len(f) < 9 || !strings.HasPrefix(line, "-") {
			continue
		}
		t, _ := time.Parse("Jan 2 2006", f[5]+" "+f[6]+" "+f[7])
		fs = append(fs, file{name: strings.Join(f[8:], " "), mtime: t})
	}
	return fs
}

func run(addr, host string, cwd []string, jobs int, target string) (int, error) {
	conns := make([]*ctl, jobs)
	errs := make([]error, jobs)
	var wg sync.WaitGroup
	for i := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conns[i], errs[i] = login(addr, cwd)
		}()
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			defer c.c.Close()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	c := conns[0]
	if err := c.send("EPSV"); err != nil {
		return 0, err
	}
	d, err := c.data(host)
	if err != nil {
		return 0, err
	}
	if err := c.send("LIST"); err != nil {
		return 0, err
	}
	if _, err := c.reply('1'); err != nil {
		return 0, fmt.Errorf("LIST: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(d, 64<<20))
	d.Close()
	if err != nil {
		return 0, err
	}
	if _, err := c.reply('2'); err != nil {
		return 0, fmt.Errorf("LIST: %w", err)
	}
	files := list(b)
	if err := os.MkdirAll(target, 0o755); err != nil {
		return 0, err
	}
	queue := make(chan file, len(files))
	for _, f := range files {
		queue <- f
	}
	close(queue)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = worker(&conns[i], addr, host, cwd, queue, target)
		}()
	}
	wg.Wait()
	for _, c := range conns {
		if c != nil {
			c.send("QUIT")
		}
	}
	return len(files), errors.Join(errs...)
}

// worker retrieves files until the queue is empty. The EPSV of the next
// file goes out with each RETR (vsftpd reads it once the transfer ends);
// the last one goes unused. When the connection fails (vsftpd ends a
// session with "500 OOPS" when nine random ports of its passive range are
// all taken), it logs in again and tries the same file again, at most
// three times.
func worker(cp **ctl, addr, host string, cwd []string, queue <-chan file, target string) error {
	buf := make([]byte, 64<<10)
	owed := false // an EPSV was sent and its reply is not read yet
	for f := range queue {
		for tries := 0; ; tries++ {
			err := retrieve(*cp, host, f, target, buf, &owed)
			if err == nil {
				break
			}
			if tries == 3 {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			(*cp).c.Close()
			c, lerr := login(addr, cwd)
			if lerr != nil {
				*cp = nil
				return errors.Join(err, lerr)
			}
			*cp, owed = c, false
		}
	}
	return nil
}

// retrieve copies f into target through c.
func retrieve(c *ctl, host string, f file, target string, buf []byte, owed *bool) error {
	if !*owed {
		if err := c.send("EPSV"); err != nil {
			return err
		}
	}
	*owed = false
	d, err := c.data(host)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := c.send("RETR " + f.name + "\r\nEPSV"); err != nil {
		return err
	}
	*owed = true
	if _, err := c.reply('1'); err != nil {
		return fmt.Errorf("RETR: %w", err)
	}
	tmp := filepath.Join(target, ".floor-"+f.name)
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	_, err = io.CopyBuffer(out, d, buf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && !f.mtime.IsZero() {
		err = os.Chtimes(tmp, f.mtime, f.mtime)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(target, f.name))
	}
	if err != nil {
		return err
	}
	if _, err := c.reply('2'); err != nil {
		return fmt.Errorf("RETR: %w", err)
	}
	return nil
}

func main() {
	// The collector as tuned for fetch itself, so that the floor stays a
	// floor.
	gctune.Start(os.Getenv)
	jobs := flag.Int("j", 8, "connections")
	flag.Parse()
	if flag.NArg() != 2 || *jobs < 1 || *jobs > 64 {
		fmt.Fprintln(os.Stderr, "usage: floorcmd [-j N] ftp://127.0.0.1:PORT/DIR/ TARGET")
		os.Exit(2)
	}
	u, err := url.Parse(flag.Arg(0))
	if err != nil || u.Scheme != "ftp" || u.Hostname() != "127.0.0.1" || u.Port() == "" || !strings.HasSuffix(u.Path, "/") {
		fmt.Fprintln(os.Stderr, "floorcmd: want ftp://127.0.0.1:PORT/DIR/")
		os.Exit(2)
	}
	var cwd []string
	for _, d := range strings.Split(strings.Trim(u.Path, "/"), "/") {
		if d != "" {
			cwd = append(cwd, d)
		}
	}
	n, err := run(u.Host, u.Hostname(), cwd, *jobs, flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "floorcmd:", err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "floorcmd: "+strconv.Itoa(n)+" files")
}
