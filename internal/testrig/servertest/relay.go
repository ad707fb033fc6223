package servertest

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/notify"
)

// Relay is a socat -v relay in front of a server, for one test alone: it
// copies every byte both ways and logs them (the shared relay of
// scripts/servers.sh also logs the commands of other packages' tests
// running at the same time). Its log writes a CR as `\r`, so a command
// stands in it as "GROUP local.test\r".
type Relay struct {
	Addr string // where to connect, 127.0.0.1:PORT
	Log  string // the socat -v log of the bytes that went through
	sig  notify.Signal
}

// StartRelay starts a relay to addr, stopped when the test ends; socat
// missing fails the test (scripts/ci-deps.sh installs it).
//
// socat listens on a port the kernel picks (TCP-LISTEN:0) and names it in
// its "listening on" notice (-d -d), which it writes to a pipe (-lf
// /dev/fd/3): the relay is known to listen once the notice comes, without
// a port closed here and taken again there, and without a trial
// connection.
func StartRelay(t testing.TB, addr string) *Relay {
	t.Helper()
	socat, err := exec.LookPath("socat")
	if err != nil {
		t.Fatalf("servertest: socat (scripts/ci-deps.sh installs it): %v", err)
	}
	r := &Relay{Log: filepath.Join(t.TempDir(), "wire.log")}
	f, err := os.Create(r.Log)
	if err != nil {
		t.Fatal(err)
	}
	notices, noticeW, err := os.Pipe()
	if err != nil {
		f.Close()
		t.Fatal(err)
	}
	cmd := exec.Command(socat, "-d", "-d", "-lf", "/dev/fd/3", "-v", "TCP-LISTEN:0,fork,reuseaddr,bind=127.0.0.1", "TCP:"+addr)
	cmd.Stderr = f
	cmd.ExtraFiles = []*os.File{noticeW}
	err = cmd.Start()
	noticeW.Close()
	if err != nil {
		notices.Close()
		f.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	listening := make(chan string, 1)
	go r.readNotices(notices, listening)
	select {
	case a, ok := <-listening:
		if !ok {
			t.Fatalf("servertest: socat ended before it listened")
		}
		r.Addr = a
	case <-time.After(10 * time.Second):
		t.Fatalf("servertest: socat did not say it listens within 10 s")
	}
	return r
}

var relayListening = regexp.MustCompile(`listening on AF=2 (127\.0\.0\.1:[0-9]+)`)

// readNotices sends the address of socat's first "listening on" notice,
// reads the others until socat and its children close the pipe (a notice
// must never block them), notifying r.sig at each, and then closes
// listening.
func (r *Relay) readNotices(notices *os.File, listening chan<- string) {
	defer notices.Close()
	defer close(listening)
	sc := bufio.NewScanner(notices)
	sent := false
	for sc.Scan() {
		if m := relayListening.FindStringSubmatch(sc.Text()); m != nil && !sent {
			listening <- m[1]
			sent = true
		}
		r.sig.Notify()
	}
	io.Copy(io.Discard, notices)
}

// Size returns the length of the log so far, an offset for Since.
func (r *Relay) Size() int64 {
	fi, err := os.Stat(r.Log)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Since returns what the relay logged after offset off.
func (r *Relay) Since(t testing.TB, off int64) string {
	t.Helper()
	b, err := os.ReadFile(r.Log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[min(off, int64(len(b))):])
}

// Until waits, for at most timeout, until cond (given what the relay
// logged after off) holds, and returns that log. socat logs a
// connection's bytes as they pass, but the child process that serves a
// connection can write them a little after the client has seen them; it
// says it exits only after its last bytes, and cond is looked at again
// at each of socat's notices.
func (r *Relay) Until(t testing.TB, off int64, timeout time.Duration, cond func(wire string) bool) string {
	t.Helper()
	var wire string
	r.sig.Until(timeout, func() bool {
		wire = r.Since(t, off)
		return cond(wire)
	})
	return wire
}
