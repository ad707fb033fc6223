package mirror

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/internal/testrig/warctest"
)

// TestWARCMirrorSurvivesSIGKILL: "fetch mirror --warc-file" killed with
// SIGKILL once its manifest lists files loses no record: every file the
// manifest lists has its resource record in the WARC file the run left
// open, the next run names that file in a warning, writes its records to
// another file, and the two files together hold a record of every file of
// the tree. (Without the sync before each save of the manifest, the
// records of the last files were still in the writer's buffer when the
// manifest already listed them, and the next run, finding those files
// unchanged, recorded nothing for them.)
func TestWARCMirrorSurvivesSIGKILL(t *testing.T) {
	s := servertest.Get(t, servertest.FTP)
	name, _ := scratchTree(t, "many")
	bin := buildCLI(t)
	tmp := t.TempDir()
	dir, arc := filepath.Join(tmp, "m"), filepath.Join(tmp, "a")
	url := "ftp://" + s.Addr + "/pub/" + name + "/"
	// --wait spreads the 2,000 files over about 4 s, past the first save
	// of the manifest (2 s).
	first, out, exited := startCLI(t, bin, "mirror", "-s", "-j", "4", "--wait", "0.002", "--warc-file", arc, url, dir)
	killWhen(t, first, out, exited, time.Minute, "a manifest listing 100 files", func() bool {
		return len(manifestFiles(t, dir)) >= 100
	})

	listed := manifestFiles(t, dir)
	open := arc + ".warc.gz.open"
	recs, err := warctest.ReadPrefix(open)
	t.Logf("killed with %d files in the manifest; %s holds %d whole records (%v)", len(listed), open, len(recs), err)
	got := resourceURIs(recs)
	for rel, u := range listed {
		if !got[u] {
			t.Errorf("the manifest lists %s (%s), which has no record in %s", rel, u, open)
		}
	}

	b, err := exec.Command(bin, "mirror", "-s", "-j", "4", "--warc-file", arc, url, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("second run: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), open+" was left open by a run that did not finish") {
		t.Errorf("the second run did not name %s:\n%s", open, b)
	}
	for u := range resourceURIs(warctest.Read(t, arc+"-00001.warc.gz")) {
		got[u] = true
	}
	all := manifestFiles(t, dir)
	if len(all) != servertest.ManyFiles {
		t.Errorf("the manifest lists %d files after the second run, want %d", len(all), servertest.ManyFiles)
	}
	missing := 0
	for _, u := range all {
		if !got[u] {
			missing++
		}
	}
	if missing > 0 {
		t.Errorf("%d of %d files have no resource record in either WARC file", missing, len(all))
	}
}

// manifestFiles returns the files a mirror's manifest lists (relative path
// -> URL without ";type=i"), nothing when it does not exist yet.
func manifestFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil
	}
	var m struct {
		Files map[string]Record `json:"files"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	out := map[string]string{}
	for rel, r := range m.Files {
		out[rel] = strings.TrimSuffix(r.URL, ";type=i")
	}
	return out
}

// resourceURIs returns the target URIs (without ";type=i") of the
// resource records of recs.
func resourceURIs(recs []warctest.Record) map[string]bool {
	out := map[string]bool{}
	for _, r := range recs {
		if r.Get("WARC-Type") == "resource" {
			out[strings.TrimSuffix(r.Get("WARC-Target-URI"), ";type=i")] = true
		}
	}
	return out
}
