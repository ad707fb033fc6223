package mirror

import (
	"context"
	"crypto/sha256"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// hostileReport is the report path each entry of localserver.HostileNames
// must appear under: names that fail the name check are quoted (they may
// hold control characters), links pointing out keep their own name.
func hostileReport(entry string) string {
	dir, name, _ := strings.Cut(entry, " ")
	if checkName(name) == nil {
		return joinRel(dir, name)
	}
	return joinRel(dir, quoteName(name))
}

func fileDigest(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestMirrorHostileFTPServer runs the real ftp driver against a server
// whose listings hold names that climb out of the target, absolute names,
// CR, LF and NUL, and links to /etc and above the tree (DESIGN, Safety: every
// remote name checked; remote links recreated only when they stay inside;
// local links never followed out). Nothing may be written outside the
// target and each hostile entry must be named in the report.
func TestMirrorHostileFTPServer(t *testing.T) {
	srv := localserver.HostileFTP()
	if err := localserver.StartRawFTP(srv); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	passwd := fileDigest(t, "/etc/passwd")
	parent := t.TempDir()
	dir := filepath.Join(parent, "target")
	outside := filepath.Join(parent, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A local link left in the target that points out of it: the remote
	// directory "sub" must not be written through it.
	if err := os.Symlink(outside, filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	drv := &ftp.Driver{}
	defer drv.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := Options{Jobs: 3, Request: proto.Request{IdleTimeout: 5 * time.Second}}
	s, err := Run(ctx, drivers{"ftp": drv}, uri.MustParse("ftp://"+srv.Addr()+"/"), dir, opts)
	// "lf\ninjected" ends the line "lf" early: "injected" is a line of its
	// own that fits no layout, reported, and the run is partial. The
	// entry ".fetch" is failed: the mirror's own state is not written.
	if !errors.Is(err, ErrPartial) || s.Unparsed != 1 || s.Failed != 1 || len(s.Warnings) != 1 ||
		s.Warnings[0].Line != "injected" || s.Warnings[0].Kind != WarnUnparsed || s.Warnings[0].Path != "" {
		t.Fatalf("Run = %v, %+v; want ErrPartial with the one unparsed line \"injected\"", err, s)
	}

	// Skipped, or failed for ".fetch": a real entry whose name the
	// mirror keeps for its own state.
	skipped := map[string]string{}
	for _, e := range s.Entries {
		if e.Status == StatusSkipped || e.Status == StatusFailed && e.Path == stateDir {
			skipped[e.Path] = e.Reason
		}
	}
	for _, h := range append(slices.Clone(localserver.HostileNames), " .fetch") {
		if _, ok := skipped[hostileReport(h)]; !ok {
			t.Errorf("hostile entry %q not named in the report (skipped: %q)", h, skipped)
		}
	}
	if len(skipped) != len(localserver.HostileNames)+1 {
		t.Errorf("skipped %d entries, want %d: %q", len(skipped), len(localserver.HostileNames)+1, skipped)
	}
	if s.New != 5 || s.Failed != 1 {
		t.Errorf("new %d failed %d, want 5 (ok.txt, lf, sub/deep.txt, two links) and 1 (.fetch)", s.New, s.Failed)
	}

	// Only the target gained anything; /etc/passwd is untouched.
	if ents, _ := os.ReadDir(parent); len(ents) != 2 {
		t.Errorf("something was written beside the target: %v", ents)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("written through the local link out of the target: %v", ents)
	}
	if fileDigest(t, "/etc/passwd") != passwd {
		t.Fatal("/etc/passwd changed")
	}
	var got []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, p)
		if err != nil || rel == "." || rel == stateDir || strings.HasPrefix(rel, stateDir+"/") {
			return nil
		}
		got = append(got, rel)
		return nil
	})
	want := []string{"inside-link", "lf", "ok.txt", "sub", "sub/deep.txt", "sub/sibling"}
	if !slices.Equal(got, want) {
		t.Errorf("target holds %q, want %q", got, want)
	}
	if l, err := os.Readlink(filepath.Join(dir, "sub", "sibling")); err != nil || l != "../ok.txt" {
		t.Errorf("sub/sibling = %q, %v; want a link to ../ok.txt", l, err)
	}
	if st, err := os.Lstat(filepath.Join(dir, "sub")); err != nil || !st.IsDir() {
		t.Errorf("sub is not a real directory: %v", err)
	}

	// No hostile name reached the wire: every path argument is one plain
	// name (multicwd), an absolute path of plain names (a file retrieved
	// by its path), or "/" to return to the login directory.
	for _, c := range srv.Commands() {
		verb, arg, _ := strings.Cut(c, " ")
		switch verb {
		case "CWD", "RETR", "SIZE", "MDTM", "LIST", "NLST":
			if arg == "" || arg == "/" {
				continue
			}
			for _, seg := range strings.Split(strings.TrimPrefix(arg, "/"), "/") {
				if checkName(seg) != nil {
					t.Errorf("sent %q", c)
				}
			}
		}
	}
}
