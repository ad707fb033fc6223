package warctest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
)

// EnvWarcio names the warcio program; empty means DefaultWarcio.
const EnvWarcio = "FETCH_TEST_WARCIO"

// DefaultWarcio is where scripts/ci-deps.sh installs warcio.
const DefaultWarcio = "/var/cache/fetch-test/node/node_modules/.bin/warcio"

// Warcio returns the path of warcio. When it is missing the test fails in
// CI (CI=true) and is skipped otherwise.
func Warcio(t testing.TB) string {
	t.Helper()
	p := os.Getenv(EnvWarcio)
	if p == "" {
		p = DefaultWarcio
	}
	_, err := os.Stat(p)
	if err == nil {
		_, err = exec.LookPath("node")
	}
	if err != nil {
		if servertest.InCI() {
			t.Fatalf("warctest: warcio or node missing (%v): run scripts/ci-deps.sh", err)
		}
		t.Skipf("warctest: warcio or node missing (%v): run scripts/ci-deps.sh", err)
	}
	return p
}

// warcio runs warcio with args and returns its standard output.
func warcio(t testing.TB, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	cmd := exec.CommandContext(ctx, Warcio(t), args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("warcio %s: %v\n%s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out.Bytes()
}

// indexEntry is a line of `warcio index`.
type indexEntry struct {
	Offset int64  `json:"offset"`
	Type   string `json:"warc-type"`
	URI    string `json:"warc-target-uri"`
}

// Check reads every file with Read and with warcio and fails the test
// unless both see the same records (offset, type, target URI); recomputes
// every digest (over all the files: a revisit may refer to another file's
// record); and checks that each line of the CDXJ index beside a file (when
// there is one) is a line of `warcio cdx-index` on that file. It returns
// the records of all the files, in order.
func Check(t testing.TB, files ...string) []Record {
	t.Helper()
	var all []Record
	for _, f := range files {
		recs := Read(t, f)
		var got []indexEntry
		sc := bufio.NewScanner(bytes.NewReader(warcio(t, "index", f)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var e indexEntry
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatalf("warcio index %s: line %q: %v", f, sc.Text(), err)
			}
			got = append(got, e)
		}
		if len(got) != len(recs) {
			t.Fatalf("%s: warcio reads %d records, the test's reader %d", f, len(got), len(recs))
		}
		for i, r := range recs {
			want := indexEntry{Offset: r.Offset, Type: r.Get("WARC-Type"), URI: r.Get("WARC-Target-URI")}
			if got[i] != want {
				t.Errorf("%s: record %d: warcio reads %+v, the test's reader %+v", f, i, got[i], want)
			}
		}
		all = append(all, recs...)
		idx := strings.TrimSuffix(f, ".warc.gz") + ".cdxj"
		mine, err := os.ReadFile(idx)
		if err != nil {
			continue
		}
		theirs := strings.Split(string(warcio(t, "cdx-index", f)), "\n")
		for _, l := range strings.Split(strings.TrimSuffix(string(mine), "\n"), "\n") {
			if !slices.Contains(theirs, l) {
				t.Errorf("%s: line %q is not in warcio's index", idx, l)
			}
		}
	}
	CheckDigests(t, all)
	return all
}
