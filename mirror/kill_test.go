package mirror

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// buildCLI builds cmd/fetch into a temporary directory.
func buildCLI(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = "/usr/local/go/bin/go" // where the team's Go lives
	}
	bin := filepath.Join(t.TempDir(), "fetch")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, goCmd, "build", "-o", bin, "github.com/rfc1738/fetch/cmd/fetch").CombinedOutput()
	if err != nil {
		t.Fatalf("go build cmd/fetch: %v\n%s", err, out)
	}
	return bin
}

// startCLI starts the built command with args; its output goes to out,
// and its Wait's error to exited.
func startCLI(t *testing.T, bin string, args ...string) (cmd *exec.Cmd, out *strings.Builder, exited <-chan error) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	out = &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan error, 1)
	go func() { ch <- cmd.Wait() }()
	return cmd, out, ch
}

// killWhen polls ready every half millisecond and kills cmd with SIGKILL
// once it reports true. The test fails if cmd ends first, if ready is not
// true within limit (what says what it waited for), or if cmd does not end
// killed.
func killWhen(t *testing.T, cmd *exec.Cmd, out *strings.Builder, exited <-chan error, limit time.Duration, what string, ready func() bool) {
	t.Helper()
	deadline := time.After(limit)
	for !ready() {
		select {
		case err := <-exited:
			t.Fatalf("the run ended (%v) before it could be killed:\n%s", err, out.String())
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("not %s within %v:\n%s", what, limit, out.String())
		case <-time.After(500 * time.Microsecond):
		}
	}
	if err := cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	err := <-exited
	if !errors.As(err, &ee) {
		t.Fatalf("the run ended with %v, want killed by SIGKILL", err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the run ended with %v, want killed by SIGKILL", err)
	}
}

// watcher polls a mirror's target while it runs and checks every file
// that stands under its final name (anything outside .fetch) against the
// source: full size and the same SHA-256, never partial content.
type watcher struct {
	t        *testing.T
	src, dst string

	mu       sync.Mutex
	want     map[string]string      // rel -> SHA-256 of the source
	checked  map[string]fs.FileInfo // rel -> the state last verified
	problems []string
	polls    int
}

func newWatcher(t *testing.T, src, dst string) *watcher {
	return &watcher{t: t, src: src, dst: dst, want: map[string]string{}, checked: map[string]fs.FileInfo{}}
}

// run polls until stop is closed.
func (w *watcher) run(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-stop:
			w.poll() // one last look
			return
		default:
		}
		w.poll()
		time.Sleep(time.Millisecond)
	}
}

func (w *watcher) poll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.polls++
	filepath.WalkDir(w.dst, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(w.dst, p)
		if err != nil || rel == "." {
			return nil
		}
		if rel == stateDir {
			return fs.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		st, err := d.Info()
		if err != nil {
			return nil // replaced since the directory was read
		}
		if prev, ok := w.checked[rel]; ok && prev.Size() == st.Size() && prev.ModTime().Equal(st.ModTime()) {
			return nil
		}
		want, ok := w.want[rel]
		if !ok {
			want = servertest.SHA256File(w.t, filepath.Join(w.src, rel))
			w.want[rel] = want
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		got, n, err := servertest.SHA256(f)
		f.Close()
		if err == nil && got != want {
			w.problems = append(w.problems, fmt.Sprintf("%s stood under its final name with %d bytes that are not the source's", rel, n))
		}
		w.checked[rel] = st
		return nil
	})
}

// placed returns how many files were seen complete under their names.
func (w *watcher) placed() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.checked)
}

// TestMirrorSurvivesSIGKILL is issue 8's second acceptance test: "fetch
// mirror -j 4" is killed with SIGKILL in the middle of a run (as soon as
// the 5 MiB file is partly down, or else once 100 files are in place), and
// run again: the second run ends byte-exact, resuming the partial file
// with REST, and at no moment of either run does a file stand under its
// final name with partial content.
func TestMirrorSurvivesSIGKILL(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	name, src := scratchTree(t, "bin5m.bin", "many", "tree", "with space.txt", "empty.txt")
	bin := buildCLI(t)
	dir := filepath.Join(t.TempDir(), "m")
	url := "ftp://" + s.Addr + "/pub/" + name + "/"
	w := newWatcher(t, src, dir)
	stop, done := make(chan struct{}), make(chan struct{})
	go w.run(stop, done)
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		<-done
	}()

	first, out, exited := startCLI(t, bin, "mirror", "-s", "-j", "4", url, dir)
	part := filepath.Join(dir, partialDir, "bin5m.bin")
	killWhen(t, first, out, exited, 2*time.Minute, "the 5 MiB file partly down or 100 files in place", func() bool {
		st, err := os.Stat(part)
		return err == nil && st.Size() > 0 && st.Size() < servertest.Bin5MSize || w.placed() >= 100
	})
	resumeAt := int64(0)
	if st, err := os.Stat(part); err == nil && st.Size() < servertest.Bin5MSize {
		resumeAt = st.Size()
	}
	t.Logf("killed with %d files in place, bin5m.bin partial at %d bytes", w.placed(), resumeAt)

	since := servertest.FTPLogOffset(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	second := exec.CommandContext(ctx, bin, "mirror", "-s", "-j", "4", url, dir)
	if b, err := second.CombinedOutput(); err != nil {
		t.Fatalf("second run: %v\n%s", err, b)
	}
	close(stop)
	<-done
	w.mu.Lock()
	problems, polls := w.problems, w.polls
	w.mu.Unlock()
	for _, p := range problems {
		t.Error(p)
	}
	t.Logf("the target was checked %d times", polls)
	files := servertest.ManyFiles + 9
	if n := compareTree(t, src, dir, func(string, fs.DirEntry) bool { return false }); n != files {
		t.Errorf("compared %d files, want %d", n, files)
	}
	if ents, err := os.ReadDir(filepath.Join(dir, partialDir)); err == nil {
		var left []string
		filepath.WalkDir(filepath.Join(dir, partialDir), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				left = append(left, p)
			}
			return nil
		})
		if len(left) != 0 {
			t.Errorf("partial files left after a complete run: %q (%d entries)", left, len(ents))
		}
	}
	if resumeAt > 0 && !resumedWithREST(t, since, resumeAt) {
		t.Errorf("second run did not resume bin5m.bin at %d with REST", resumeAt)
	}
	if _, err := os.Stat(filepath.Join(dir, manifestName)); errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no manifest after the second run")
	}
}

// resumedWithREST reports whether the vsftpd log, from byte offset since,
// holds "REST offset" followed, in the same session, by "RETR bin5m.bin".
// The CLI dials from 127.0.0.1 like other tests: the session is told apart
// by its pid, the exact offset by its value.
func resumedWithREST(t *testing.T, since, offset int64) bool {
	t.Helper()
	servertest.FTPCommandsFrom(t, since, "") // waits for the log to settle
	f, err := os.Open(servertest.Get(t, servertest.FTP).Log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(since, 0); err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		t.Fatal(err)
	}
	b = b[:bytes.LastIndexByte(b, '\n')+1] // a line still being written is left out
	entries, err := servertest.ParseFTPLog(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	rest := "REST " + strconv.FormatInt(offset, 10)
	for i, e := range entries {
		if e.Event != servertest.EventCommand || e.Detail != rest {
			continue
		}
		for _, next := range entries[i+1:] {
			if next.PID == e.PID && next.Event == servertest.EventCommand {
				if next.Detail == "RETR bin5m.bin" || strings.HasPrefix(next.Detail, "RETR /") && strings.HasSuffix(next.Detail, "/bin5m.bin") {
					return true
				}
				break
			}
		}
	}
	return false
}
