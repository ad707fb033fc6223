package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// crlfText is a text file as a server that keeps CRLF line ends stores
// it: TYPE A sends it as it is, and the client converts it to LF lines,
// so the converted file is shorter than the stored one and an offset in
// the one is not an offset in the other.
func crlfText(lines int) []byte {
	var b bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&b, "line %06d of a text file kept with CRLF line ends\r\n", i)
	}
	return b.Bytes()
}

// cutFirstData returns an env whose first data connection (any
// connection not to ctrlPort) is cut after left bytes.
func cutFirstData(ctrlPort string, left int64) (*env, *bytes.Buffer) {
	var budget atomic.Int64
	budget.Store(left)
	var cut atomic.Bool
	e, _, errb := newEnv("", &netlog{})
	e.dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if _, port, _ := net.SplitHostPort(addr); port != ctrlPort && cut.CompareAndSwap(false, true) {
			return &cutConn{Conn: c, left: &budget}, nil
		}
		return c, nil
	}
	return e, errb
}

// Issue 30 acceptance: a text file (.txt, no typecode) fetched with -C -
// -O and cut in the middle, then resumed with -C - -O, is whole and of
// one type: with the guess (TYPE A) the .part holds converted text, so
// the resume says so and fetches the whole file again in TYPE A; with
// --binary both runs are TYPE I, and the resume sends REST at the
// .part's length. Each ends as a plain fetch of the same kind would.
func TestGetFTPTextCutAndResume(t *testing.T) {
	stored := crlfText(40000) // about 2 MB
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/pub/notes.txt", stored, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, ctrlPort, _ := net.SplitHostPort(srv.Addr())
	raw := "ftp://" + srv.Addr() + "/pub/notes.txt"
	converted := bytes.ReplaceAll(stored, []byte("\r\n"), []byte("\n"))

	tests := []struct {
		name   string
		flags  []string
		want   []byte
		resume string // in the second run's stderr
	}{
		{"guess (TYPE A)", nil, converted, "not resuming"},
		{"--binary (TYPE I)", []string{"--binary"}, stored, "> REST "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"get", "-C", "-", "-O", "--output-dir", dir}, tt.flags...)
			e, errb := cutFirstData(ctrlPort, 700_001)
			if code := runIn(t, e, append(args, raw)...); code != fetch.ExitNetwork {
				t.Fatalf("cut transfer = %d, want %d (%s)", code, fetch.ExitNetwork, errb.String())
			}
			part := filepath.Join(dir, "notes.txt"+partSuffix)
			if fi, err := os.Stat(part); err != nil || fi.Size() == 0 {
				t.Fatalf("after the cut, %s: %v, %v", part, fi, err)
			}
			r := runArgs(t, nil, "", append(append(args, "-v"), raw)...)
			if r.code != fetch.ExitOK {
				t.Fatalf("resume = %d\n%s", r.code, r.err)
			}
			if !strings.Contains(r.err, tt.resume) {
				t.Errorf("the resume's stderr lacks %q:\n%s", tt.resume, lastLines(r.err, 30))
			}
			got, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Fatalf("resumed file: %d bytes (%v), want %d: a splice of two types", len(got), err, len(tt.want))
			}
			assertOnly(t, dir, "notes.txt")
		})
	}
}

// lastLines is the end of a long transcript, for a failure message.
func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// Issue 30 acceptance: "fetch -O ftp://h/pub/README.txt" says that it
// converted the file as text, and with --binary it is byte-exact and
// says nothing; -s silences the note.
func TestGetFTPGuessNoted(t *testing.T) {
	stored := []byte("line one\r\nline two\r\n\r\nend\r\n")
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/pub/README.txt", stored, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	raw := "ftp://" + srv.Addr() + "/pub/README.txt"
	const note = "text by its name: TYPE A, line ends converted; --binary keeps the bytes"
	tests := []struct {
		name  string
		flags []string
		want  []byte
		noted bool
	}{
		{"guess", nil, bytes.ReplaceAll(stored, []byte("\r\n"), []byte("\n")), true},
		{"guess, -s", []string{"-s"}, bytes.ReplaceAll(stored, []byte("\r\n"), []byte("\n")), false},
		{"--binary", []string{"--binary"}, stored, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			r := runArgs(t, nil, "", append(append([]string{"get", "-O", "--output-dir", dir}, tt.flags...), raw)...)
			if r.code != fetch.ExitOK {
				t.Fatalf("exit %d\n%s", r.code, r.err)
			}
			if got := strings.Contains(r.err, note); got != tt.noted {
				t.Errorf("note shown = %v, want %v; stderr:\n%s", got, tt.noted, r.err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "README.txt"))
			if err != nil || !bytes.Equal(got, tt.want) {
				t.Errorf("file = %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

// A .part is resumed only when it holds stored bytes: recorded as TYPE
// I, or unrecorded with a name the guess would not convert (RFC 1738
// section 3.2.2: the typecode, else the client's guess, sets the type).
func TestRestartReason(t *testing.T) {
	tests := []struct {
		name, url, recorded string
		binary, restart     bool
	}{
		{"recorded A", "ftp://h/pub/a.txt", "A", false, true},
		{"recorded A, --binary", "ftp://h/pub/a.txt", "A", true, true},
		{"recorded I", "ftp://h/pub/a.txt", "I", false, false},
		{"unrecorded text name", "ftp://h/pub/a.txt", "", false, true},
		{"unrecorded text name, --binary", "ftp://h/pub/a.txt", "", true, false},
		{"unrecorded binary name", "ftp://h/pub/a.iso", "", false, false},
		{"unrecorded, ;type=i", "ftp://h/pub/README;type=i", "", false, false},
		{";type=a", "ftp://h/pub/a.iso;type=a", "I", false, true},
		{"not ftp", "http://h/a.txt", "A", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			part := filepath.Join(t.TempDir(), "f.part")
			if tt.recorded != "" {
				os.WriteFile(part+partTypeSuffix, []byte(tt.recorded+"\n"), 0o644)
			}
			o := &getOptions{binary: tt.binary}
			u, _, err := parseURL(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			if got := o.restartReason(u, part) != ""; got != tt.restart {
				t.Errorf("restart = %v, want %v", got, tt.restart)
			}
		})
	}
}

// --retry after a cut TYPE A transfer asks for the file whole again, in
// TYPE A, and skips what it has: no REST at an offset counted in
// converted text.
func TestGetFTPTextRetry(t *testing.T) {
	stored := crlfText(40000)
	mem := afero.NewMemMapFs()
	if err := afero.WriteFile(mem, "/pub/notes.txt", stored, 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, ctrlPort, _ := net.SplitHostPort(srv.Addr())
	out := filepath.Join(t.TempDir(), "notes.txt")
	e, errb := cutFirstData(ctrlPort, 700_001)
	if code := runIn(t, e, "get", "-v", "--retry", "2", "-o", out, "ftp://"+srv.Addr()+"/pub/notes.txt"); code != fetch.ExitOK {
		t.Fatalf("exit %d\n%s", code, lastLines(errb.String(), 30))
	}
	if strings.Contains(errb.String(), "> REST ") {
		t.Errorf("the retry sent REST:\n%s", lastLines(errb.String(), 30))
	}
	got, err := os.ReadFile(out)
	if want := bytes.ReplaceAll(stored, []byte("\r\n"), []byte("\n")); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("file: %d bytes (%v), want %d", len(got), err, len(want))
	}
}

// The mirror is byte-exact: it asks for every FTP file with ;type=i, so a
// text name with CRLF line ends arrives as stored, and nothing is noted.
// (The in-process server converts in TYPE A, so a guess would show.)
func TestMirrorFTPTextByteExact(t *testing.T) {
	stored := crlfText(100)
	mem := afero.NewMemMapFs()
	for _, name := range []string{"/pub/README", "/pub/notes.txt"} {
		if err := afero.WriteFile(mem, name, stored, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	r := runArgs(t, nil, "", "mirror", "ftp://"+srv.Addr()+"/pub/", dir)
	if r.code != fetch.ExitOK {
		t.Fatalf("mirror = %d\n%s", r.code, r.err)
	}
	for _, name := range []string{"README", "notes.txt"} {
		if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !bytes.Equal(got, stored) {
			t.Errorf("%s: %d bytes (%v), want the stored %d", name, len(got), err, len(stored))
		}
	}
	if strings.Contains(r.err, "TYPE A") {
		t.Errorf("mirror noted a conversion:\n%s", r.err)
	}
}
