package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/afero"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
)

// smallDisk mounts a tmpfs of size bytes and returns its path; it is
// unmounted when the test ends. It needs root (CAP_SYS_ADMIN): without
// it the test is skipped, and fails under CI=true, where it must run.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d", size))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("mount a tmpfs of %d bytes: %v (CI runs as root)", size, err)
		}
		t.Skipf("mount a tmpfs of %d bytes: %v (needs root)", size, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	return dir
}

// TestMirrorCommandDiskFull: a mirror into a disk that fills up ended
// with exit 1, no report and no manifest, the failed files unnamed. It
// ends with exit 8, the --json report naming each file not mirrored,
// and the manifest of the files that were (room for it is kept in
// .fetch/reserve).
func TestMirrorCommandDiskFull(t *testing.T) {
	disk := smallDisk(t, 1<<20)
	mem := afero.NewMemMapFs()
	const files = 8
	for i := range files {
		afero.WriteFile(mem, fmt.Sprintf("/pub/f%d.bin", i), []byte(strings.Repeat(string(rune('a'+i)), 200<<10)), 0o644)
	}
	srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := filepath.Join(disk, "m")
	code, out, stderr := mirrorCLI(t, "mirror", "--json", "-j", "2", "ftp://"+srv.Addr()+"/pub/", dir)
	var rep struct {
		New, Failed int
		Notices     []string
		Entries     []struct{ Path, Status, Reason string }
	}
	if code != fetch.ExitPartial || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("exit %d, want 8 and a JSON report\n%s%s", code, out, stderr)
	}
	if rep.New == 0 || rep.Failed == 0 || rep.New+rep.Failed != files || len(rep.Entries) != files {
		t.Errorf("new %d failed %d, %d entries; want some of each, %d in all", rep.New, rep.Failed, len(rep.Entries), files)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".fetch", "manifest.json"))
	var m struct{ Files map[string]json.RawMessage }
	if err != nil || json.Unmarshal(b, &m) != nil {
		t.Fatalf("manifest: %v\n%s", err, b)
	}
	for _, e := range rep.Entries {
		_, recorded := m.Files[e.Path]
		switch {
		case e.Status == "new" && !recorded:
			t.Errorf("%s is new but not in the manifest", e.Path)
		case e.Status == "failed" && (recorded || e.Reason == ""):
			t.Errorf("%s failed (%q) but is in the manifest, or has no reason", e.Path, e.Reason)
		case e.Status != "new" && e.Status != "failed":
			t.Errorf("%s: %s", e.Path, e.Status)
		}
	}
	if !strings.Contains(stderr, "disk is full") {
		t.Errorf("stderr does not say the disk is full:\n%s", stderr)
	}
}

// TestMirrorManifestDiskFull: a mirror whose files all fit on the disk,
// which they leave too full for the manifest, saved none and exited 0
// (the reserve kept for the manifest was not used, as the disk had not
// filled up during a transfer). The reserve now makes room for it; and
// a manifest that still cannot be written (no reserve could be made:
// the disk is the files' size) makes the run partial, exit 8.
func TestMirrorManifestDiskFull(t *testing.T) {
	const files = 4
	for _, tc := range []struct {
		name     string
		disk     int
		code     int
		manifest bool
	}{
		{"room in the reserve", reserveMin + files*4096, fetch.ExitOK, true},
		{"no reserve", files * 4096, fetch.ExitPartial, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			disk := smallDisk(t, tc.disk)
			mem := afero.NewMemMapFs()
			for i := range files {
				afero.WriteFile(mem, fmt.Sprintf("/pub/f%d.bin", i), []byte(strings.Repeat(string(rune('a'+i)), 4096)), 0o644)
			}
			srv, err := fetchtest.StartFTP(mem, fetchtest.FTPOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			dir := filepath.Join(disk, "m")
			code, out, stderr := mirrorCLI(t, "mirror", "-j", "1", "ftp://"+srv.Addr()+"/pub/", dir)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s%s", code, tc.code, out, stderr)
			}
			b, err := os.ReadFile(filepath.Join(dir, ".fetch", "manifest.json"))
			var m struct{ Files map[string]json.RawMessage }
			switch {
			case tc.manifest && (err != nil || json.Unmarshal(b, &m) != nil || len(m.Files) != files):
				t.Errorf("manifest of %d files, want %d: %v\n%s", len(m.Files), files, err, stderr)
			case !tc.manifest && !strings.Contains(stderr, "the manifest could not be saved"):
				t.Errorf("stderr does not say the manifest was not saved:\n%s", stderr)
			}
		})
	}
}

// reserveMin is the room a mirror keeps for its manifest on a fresh
// target (mirror.reserveMin).
const reserveMin = 64 << 10

// The output side of fetch get, each failure exit 1 and nothing at the
// final name but what stood there before: a disk that fills up (with and
// without -C, which keeps FILE.part), /dev/full, a path whose parent is a
// file, a directory made immutable (root writes read-only ones).
func TestGetOutputFails(t *testing.T) {
	s := startServer(t)
	disk := smallDisk(t, 256<<10) // a quarter of bigBody
	os.WriteFile(filepath.Join(disk, "kept"), []byte("before\n"), 0o644)
	os.WriteFile(filepath.Join(disk, "file"), nil, 0o644)
	ro := filepath.Join(disk, "ro")
	os.Mkdir(ro, 0o755)
	immutable := exec.Command("chattr", "+i", ro).Run() == nil
	t.Cleanup(func() { exec.Command("chattr", "-i", ro).Run() })
	for _, tc := range []struct {
		name string
		args []string
		left []string // what the disk holds after
	}{
		{"full disk", []string{"-o", filepath.Join(disk, "kept")}, []string{"file", "kept", "ro"}},
		{"full disk, -C", []string{"-C", "-", "-o", filepath.Join(disk, "big")}, []string{"big.part", "file", "kept", "ro"}},
		{"/dev/full", []string{"-o", "/dev/full"}, nil},
		{"parent is a file", []string{"-o", filepath.Join(disk, "file", "x")}, nil},
		{"immutable directory", []string{"-O", "--output-dir", ro}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "immutable directory" && !immutable {
				t.Skip("chattr +i: not on this file system")
			}
			r := runArgs(t, nil, "", append(append([]string{"get", "-s"}, tc.args...), s.url("/big.bin"))...)
			if r.code != fetch.ExitError || r.err == "" {
				t.Errorf("exit %d (%s), want 1 and the reason", r.code, r.err)
			}
			if tc.left != nil {
				assertOnly(t, disk, tc.left...)
			}
			if b, _ := os.ReadFile(filepath.Join(disk, "kept")); string(b) != "before\n" {
				t.Errorf("the file at the final name became %d bytes", len(b))
			}
			os.Remove(filepath.Join(disk, "big.part"))
		})
	}
	assertOnly(t, ro)
}
