package main

import (
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/testrig/localserver"
)

// flagCase is one combination of TestFlagsActOrRefused: args ("{d}"
// stands for a directory of the case's own), and either the flag a
// usage error must name, or a check of the flag's effect (given that
// directory, the result, and the FTP commands the case sent).
type flagCase struct {
	name    string
	args    []string
	refused string
	check   func(t *testing.T, d string, r result, cmds []string)
}

// Every flag of get, get -Z and mirror either acts or is refused as a
// usage error naming it: none is accepted and then silently without
// effect in some mode (a --warc-file that writes no archive, an -R with
// no file to date). Each case runs the command in-process and checks an
// effect, or exit 2 with the flag named. The timing of the politeness
// flags (--wait, --limit-rate) is checked by TestGetParallelPolite and
// TestMirrorPoliteFlags; here --max-host-conns stands for them.
func TestFlagsActOrRefused(t *testing.T) {
	mt := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	var mu sync.Mutex
	seen := map[string]int{}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		first := seen[r.URL.Path] == 1
		mu.Unlock()
		switch {
		case strings.HasPrefix(r.URL.Path, "/flaky") && first:
			http.Error(w, "try again", http.StatusServiceUnavailable)
		case strings.HasPrefix(r.URL.Path, "/m1/sub/") && strings.HasSuffix(r.URL.Path, "/"):
			io.WriteString(w, `<html><a href="a.txt">a.txt</a></html>`)
		case strings.HasSuffix(r.URL.Path, "/"): // sub/ below sub/, without end
			io.WriteString(w, `<html><a href="a.txt">a.txt</a> <a href="sub/">sub/</a></html>`)
		default:
			http.ServeContent(w, r, "", mt, strings.NewReader("body of "+r.URL.Path+"\n"))
		}
	})
	hs := httptest.NewServer(handler)
	defer hs.Close()
	hss := httptest.NewTLSServer(handler)
	defer hss.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hss.Certificate().Raw}), 0o644)
	fs := startRaw(t, &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: parallelFiles(6)})
	ftpBase := "ftp://" + fs.Addr() + "/pub/"
	a, b, ftpA := hs.URL+"/a", hs.URL+"/b", ftpBase+"f01.bin"
	local := filepath.Join(t.TempDir(), "local.txt")
	os.WriteFile(local, []byte("a local file\n"), 0o644)

	ok := func(t *testing.T, r result) bool {
		t.Helper()
		if r.code != 0 {
			t.Errorf("exit %d, want 0 (stderr %q)", r.code, r.err)
		}
		return r.code == 0
	}
	archived := func(uris ...string) func(t *testing.T, d string, r result, _ []string) {
		return func(t *testing.T, d string, r result, _ []string) {
			if !ok(t, r) {
				return
			}
			got := warcCaptures(t, filepath.Join(d, "w"))
			for _, u := range uris {
				if got[u] == "" {
					t.Errorf("%s not archived: %q", u, got)
				}
			}
		}
	}
	sent := func(verbs ...string) func(t *testing.T, d string, r result, cmds []string) {
		return func(t *testing.T, d string, r result, cmds []string) {
			for _, v := range verbs {
				if countVerb(cmds, v) == 0 {
					t.Errorf("no %s sent: %q (exit %d, stderr %q)", v, cmds, r.code, r.err)
				}
			}
		}
	}
	tlsFirst := func(t *testing.T, d string, r result, cmds []string) {
		if r.code == 0 || countVerb(cmds, "AUTH") == 0 || countVerb(cmds, "USER") > 0 {
			t.Errorf("--ssl-reqd on a server without TLS: exit %d, commands %q", r.code, cmds)
		}
	}
	stdout := func(want string) func(t *testing.T, d string, r result, _ []string) {
		return func(t *testing.T, d string, r result, _ []string) {
			if ok(t, r) && r.out != want {
				t.Errorf("stdout %q, want %q", r.out, want)
			}
		}
	}

	cases := []flagCase{
		// --warc-file in every mode (and its index with -Z).
		{name: "get -Z --warc-file", args: []string{"get", "-s", "-Z", "--warc-file", "{d}/w", a, b, ftpA, "file://" + local}, check: archived(a, b, ftpA, "file://"+local)},
		{name: "get -Z --warc-cdx", args: []string{"get", "-s", "-Z", "--warc-file", "{d}/w", "--warc-cdx", a, b}, check: func(t *testing.T, d string, r result, _ []string) {
			if cdx, err := os.ReadFile(filepath.Join(d, "w.cdxj")); !ok(t, r) || err != nil || strings.Count(string(cdx), "\n") != 2 {
				t.Errorf("CDXJ index %q, %v", cdx, err)
			}
		}},
		{name: "get -O --warc-file", args: []string{"get", "-s", "-O", "--output-dir", "{d}", "--warc-file", "{d}/w", a}, check: archived(a)},
		{name: "get -o - --warc-file", args: []string{"get", "-s", "-o", "-", "--warc-file", "{d}/w", a}, check: archived(a)},
		{name: "get -Z -O --warc-file", args: []string{"get", "-s", "-Z", "-O", "--output-dir", "{d}", "--warc-file", "{d}/w", a, ftpA}, check: archived(a, ftpA)},
		{name: "mirror --warc-file", args: []string{"mirror", "-s", "--warc-file", "{d}/w", hs.URL + "/m1/", "{d}/m"}, check: archived(hs.URL+"/m1/a.txt", hs.URL+"/m1/sub/a.txt")},
		{name: "get -Z --warc-cdx alone", args: []string{"get", "-Z", "--warc-cdx", a, b}, refused: "--warc-cdx"},
		{name: "mirror --warc-dedup alone", args: []string{"mirror", "--warc-dedup", "x.cdxj", hs.URL + "/m/", "{d}/m"}, refused: "--warc-dedup"},
		{name: "mirror --dry-run --warc-file", args: []string{"mirror", "--dry-run", "--warc-file", "{d}/w", hs.URL + "/m1/", "{d}/m"}, refused: "--dry-run"},

		// Offsets, retries, dates, JSON, trace with -Z.
		{name: "get -Z -C 5", args: []string{"get", "-s", "-Z", "-C", "5", a, b}, check: stdout("of /a\nof /b\n")},
		{name: "get -Z -C - -O", args: []string{"get", "-s", "-Z", "-C", "-", "-O", "--output-dir", "{d}", a}, check: func(t *testing.T, d string, r result, _ []string) {
			if got, _ := os.ReadFile(filepath.Join(d, "a")); ok(t, r) && string(got) != "body of /a\n" {
				t.Errorf("file %q", got)
			}
		}},
		{name: "get -Z -C - to stdout", args: []string{"get", "-Z", "-C", "-", a, b}, refused: "-C -"},
		{name: "get -C - -o -", args: []string{"get", "-C", "-", "-o", "-", a}, refused: "-C -"},
		{name: "get -Z --retry", args: []string{"get", "-s", "-Z", "--retry", "1", hs.URL + "/flaky1", b}, check: stdout("body of /flaky1\nbody of /b\n")},
		{name: "mirror --retry 0 --retry-max-time", args: []string{"mirror", "--retry", "0", "--retry-max-time", "5", hs.URL + "/m/", "{d}/m"}, refused: "--retry-max-time"},
		{name: "get --retry-max-time alone", args: []string{"get", "--retry-max-time", "5", a}, refused: "--retry-max-time"},
		{name: "get -Z -R -O", args: []string{"get", "-s", "-Z", "-R", "-O", "--output-dir", "{d}", a, b}, check: func(t *testing.T, d string, r result, _ []string) {
			for _, n := range []string{"a", "b"} {
				if fi, err := os.Stat(filepath.Join(d, n)); ok(t, r) && (err != nil || !fi.ModTime().Equal(mt)) {
					t.Errorf("%s: %v, want the time %v", n, err, mt)
				}
			}
		}},
		{name: "get -R to stdout", args: []string{"get", "-R", a}, refused: "-R"},
		{name: "get -Z -R to stdout", args: []string{"get", "-Z", "-R", a, b}, refused: "-R"},
		{name: "get -R -o -", args: []string{"get", "-R", "-o", "-", a}, refused: "-R"},
		{name: "get -Z --json", args: []string{"get", "-s", "-Z", "--json", "ftp://" + fs.Addr() + "/", ftpBase}, check: func(t *testing.T, d string, r result, _ []string) {
			dec := json.NewDecoder(strings.NewReader(r.out))
			var docs []string
			for {
				var doc struct{ URL string }
				if err := dec.Decode(&doc); err != nil {
					break
				}
				docs = append(docs, doc.URL)
			}
			if ok(t, r) && !slices.Equal(docs, []string{"ftp://" + fs.Addr() + "/", ftpBase}) {
				t.Errorf("JSON documents for %q:\n%s", docs, r.out)
			}
		}},
		{name: "get -Z -v", args: []string{"get", "-Z", "-v", ftpA, a}, check: func(t *testing.T, d string, r result, _ []string) {
			if ok(t, r) && (!strings.Contains(r.err, "> RETR f01.bin") || !strings.Contains(r.err, "> GET /a")) {
				t.Errorf("no trace of both URLs: %q", r.err)
			}
		}},

		// Output naming.
		{name: "get -o with several URLs", args: []string{"get", "-o", "{d}/x", a, b}, refused: "-o"},
		{name: "get -Z -o with several URLs", args: []string{"get", "-Z", "-o", "{d}/x", a, b}, refused: "-o"},
		{name: "get -o --output-dir", args: []string{"get", "-o", "{d}/x", "--output-dir", "{d}", a}, refused: "--output-dir"},
		{name: "get -Z --parallel-max -O", args: []string{"get", "-s", "-Z", "--parallel-max", "2", "-O", "--output-dir", "{d}", a, b}, check: func(t *testing.T, d string, r result, _ []string) {
			if ok(t, r) {
				assertOnly(t, d, "a", "b")
			}
		}},
		{name: "get --parallel-max without -Z", args: []string{"get", "--parallel-max", "2", a, b}, refused: "--parallel-max"},
		{name: "get -Z --interactive", args: []string{"get", "-Z", "--interactive", a}, refused: "--interactive"},

		// Politeness, FTP and TLS flags with -Z and mirror.
		{name: "get -Z --max-host-conns", args: []string{"get", "-s", "-Z", "--parallel-max", "6", "--max-host-conns", "1", ftpBase + "f00.bin", ftpBase + "f02.bin", ftpBase + "f03.bin", ftpBase + "f04.bin"}, check: func(t *testing.T, d string, r result, cmds []string) {
			if n := countVerb(cmds, "USER"); ok(t, r) && n != 1 {
				t.Errorf("%d logins with --max-host-conns 1", n)
			}
		}},
		{name: "get -Z -P -", args: []string{"get", "-s", "-Z", "-P", "-", ftpA, ftpBase + "f02.bin"}, check: sent("EPRT")},
		{name: "mirror -P -", args: []string{"mirror", "-s", "-P", "-", ftpBase, "{d}/m"}, check: sent("EPRT")},
		{name: "get -Z --ssl-reqd", args: []string{"get", "-s", "-Z", "--ssl-reqd", ftpA, ftpBase + "f02.bin"}, check: tlsFirst},
		{name: "mirror --ssl-reqd", args: []string{"mirror", "-s", "--ssl-reqd", ftpBase, "{d}/m"}, check: tlsFirst},
		{name: "get -Z -k https", args: []string{"get", "-s", "-Z", "-k", "--output-dir", "{d}", "-O", ftpA, hss.URL + "/a"}, check: holds(".", "a", "f01.bin")},
		{name: "get --cacert https", args: []string{"get", "--cacert", ca, hss.URL + "/a"}, check: stdout("body of /a\n")},
		{name: "get --cacert not PEM", args: []string{"get", "--cacert", local, ftpA}, refused: "--cacert"},
		{name: "mirror -k https", args: []string{"mirror", "-s", "-k", hss.URL + "/m1/", "{d}/m"}, check: holds("m/sub", "a.txt")},
		{name: "mirror --max-depth", args: []string{"mirror", "-s", "--max-depth", "1", hs.URL + "/m2/", "{d}/m"}, check: func(t *testing.T, d string, r result, _ []string) {
			mu.Lock()
			deep := seen["/m2/sub/sub/a.txt"]
			mu.Unlock()
			if r.code != fetch.ExitPartial || !strings.Contains(r.err, "max-depth 1") || deep != 0 {
				t.Errorf("exit %d, stderr %q, /m2/sub/sub/a.txt fetched %d times", r.code, r.err, deep)
			}
		}},

		// Flags of another command.
		{name: "get --shard", args: []string{"get", "--shard", "0/2", a}, refused: "--shard"},
		{name: "get --max-depth", args: []string{"get", "--max-depth", "1", a}, refused: "--max-depth"},
		{name: "get -Z --ftp-pasv", args: []string{"get", "-Z", "--ftp-pasv", ftpA}, refused: "--ftp-pasv"},
		{name: "get --no-mlsd", args: []string{"get", "--no-mlsd", ftpA}, refused: "--no-mlsd"},
		{name: "mirror --ftp-method", args: []string{"mirror", "--ftp-method", "nocwd", ftpBase, "{d}/m"}, refused: "--ftp-method"},
		{name: "mirror -Z", args: []string{"mirror", "-Z", ftpBase, "{d}/m"}, refused: "-Z"},
		{name: "mirror -C", args: []string{"mirror", "-C", "-", ftpBase, "{d}/m"}, refused: "-C"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := t.TempDir()
			args := slices.Clone(tc.args)
			for i := range args {
				args[i] = strings.ReplaceAll(args[i], "{d}", d)
			}
			before := len(fs.Commands())
			r := runArgs(t, nil, "", args...)
			if tc.refused != "" {
				if r.code != fetch.ExitUsage || !strings.Contains(r.err, tc.refused) || r.out != "" {
					t.Errorf("exit %d, stdout %q, stderr %q: want %d naming %s", r.code, r.out, r.err, fetch.ExitUsage, tc.refused)
				}
				return
			}
			fs.WaitIdle(5 * time.Second)
			tc.check(t, d, r, fs.Commands()[before:])
		})
	}
}

// holds is a check of TestFlagsActOrRefused: exit 0, and the directory
// sub of the case's own holds names only.
func holds(sub string, names ...string) func(t *testing.T, d string, r result, _ []string) {
	return func(t *testing.T, d string, r result, _ []string) {
		if r.code != 0 {
			t.Errorf("exit %d, want 0 (stderr %q)", r.code, r.err)
			return
		}
		assertOnly(t, filepath.Join(d, sub), names...)
	}
}
