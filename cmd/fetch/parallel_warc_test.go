package main

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/internal/testrig/localserver"
	"github.com/rfc1738/fetch/internal/testrig/warctest"
)

// warcCaptures reads the archive NAME.warc.gz (warctest's own reader and
// its digest checks) and returns, per target URI, its records as "type
// content-type" with the payload of its resource or response record.
func warcCaptures(t *testing.T, name string) map[string]string {
	t.Helper()
	if _, err := os.Stat(name + ".warc.gz.open"); err == nil {
		t.Errorf("%s.warc.gz.open left behind", name)
	}
	recs := warctest.Read(t, name+".warc.gz")
	warctest.CheckDigests(t, recs)
	got := map[string]string{}
	for _, rec := range recs {
		uri := rec.Get("WARC-Target-URI")
		if uri == "" {
			continue // warcinfo
		}
		kind := rec.Get("WARC-Type") + " " + strings.Split(rec.Get("Content-Type"), ";")[0]
		if ty := rec.Get("WARC-Type"); ty == "resource" || ty == "response" {
			kind += fmt.Sprintf(" sha1:%x", sha1.Sum(warctest.Payload(rec)))
		}
		got[uri] += kind + "; "
	}
	return got
}

// get -Z --warc-file archives every URL (file:, HTTP, FTP) with the
// records the serial get writes, its CDXJ index beside it, the file
// renamed from NAME.warc.gz.open when closed.
func TestGetParallelWARC(t *testing.T) {
	dir := t.TempDir()
	local := filepath.Join(dir, "local.bin")
	os.WriteFile(local, []byte("a local file\n"), 0o644)
	hsrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "body of %s\n", r.URL.Path)
	}))
	defer hsrv.Close()
	fsrv := &localserver.RawFTP{Listings: map[string]string{"/": "", "/pub": ""}, Files: parallelFiles(4)}
	startRaw(t, fsrv)
	urls := []string{"file://" + local, hsrv.URL + "/a", hsrv.URL + "/b"}
	for i := range 4 {
		urls = append(urls, fmt.Sprintf("ftp://%s/pub/f%02d.bin", fsrv.Addr(), i))
	}

	archives := map[string]map[string]string{}
	for _, mode := range []string{"serial", "parallel"} {
		name := filepath.Join(dir, mode)
		out := filepath.Join(dir, mode+"-out")
		os.Mkdir(out, 0o755)
		args := []string{"get", "-s", "--warc-file", name, "--warc-cdx", "-O", "--output-dir", out}
		if mode == "parallel" {
			args = append(args, "-Z", "--parallel-max", "3")
		}
		r := runArgs(t, nil, "", append(args, urls...)...)
		if r.code != 0 || r.err != "" {
			t.Fatalf("%s get --warc-file = %d, stderr %q", mode, r.code, r.err)
		}
		archives[mode] = warcCaptures(t, name)
		cdx, err := os.ReadFile(name + ".cdxj")
		if err != nil {
			t.Fatalf("%s: no CDXJ index: %v", mode, err)
		}
		for _, u := range urls {
			if archives[mode][u] == "" || !bytes.Contains(cdx, []byte(`"url":"`+u+`"`)) {
				t.Errorf("%s: %s not archived (records %q) or not indexed", mode, u, archives[mode][u])
			}
		}
	}
	if s, p := archives["serial"], archives["parallel"]; len(s) != len(urls) || !maps.Equal(s, p) {
		t.Errorf("get -Z archived\n%q\nthe serial get\n%q", p, s)
	}

	// An archive that cannot be created: the same failure as without
	// -Z, before anything is fetched.
	missing := filepath.Join(dir, "no", "such", "dir", "w")
	serial := runArgs(t, nil, "", "get", "-s", "--warc-file", missing, urls[0])
	parallel := runArgs(t, nil, "", "get", "-s", "-Z", "--warc-file", missing, urls[0])
	if serial.code == 0 || parallel.code != serial.code || parallel.out != "" {
		t.Errorf("uncreatable archive: get = %d, get -Z = %d (stdout %q), want the same failure", serial.code, parallel.code, parallel.out)
	}
}
