package warc_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rfc1738/fetch/warc"
)

func fmtSscan(s string, p *int64) (int, error) { return fmt.Sscan(s, p) }

// The CDXJ line format: pywb's documentation, "Indexing" / "CDXJ Format"
// (https://pywb.readthedocs.io/en/latest/manual/indexing.html): a SURT
// key, a 14-digit timestamp and a JSON object, separated by spaces; lines
// starting with "!" are header lines.
func TestParseIndexLine(t *testing.T) {
	ts := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	for _, tc := range []struct {
		line   string
		ok     bool
		err    bool
		url    string
		digest string
		date   time.Time
	}{
		// pywb docs: a CDXJ line as written by its indexer.
		{line: `com,example)/ 20240506070809 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", "length": "1043", "offset": "333", "filename": "example.warc.gz"}`,
			ok: true, url: "http://example.com/", digest: "sha1:G7HRM7BGOKSKMSXZAHMUQTTV53QOFSMK", date: ts},
		// warcio cdx-index keeps the URL as key for other schemes.
		{line: `ftp://h/a 20240506070809 {"url":"ftp://h/a","digest":"sha1:AAAA"}`, ok: true, url: "ftp://h/a", digest: "sha1:AAAA", date: ts},
		// A shorter timestamp is the start of its period (Wayback).
		{line: `k 2024 {"url":"ftp://h/a"}`, ok: true, url: "ftp://h/a", date: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)},
		{line: `k 202405 {"url":"ftp://h/a"}`, ok: true, url: "ftp://h/a", date: time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)},
		{line: "k 20240506070809 {\"url\":\"ftp://h/a\"}\r", ok: true, url: "ftp://h/a", date: ts},
		// Header and blank lines name no capture.
		{line: `!meta 0 {"format": "cdxj-gzip-1.0"}`},
		{line: ``},
		{line: `   `},
		// Malformed.
		{line: `nospace`, err: true},
		{line: `k 20240506070809`, err: true},
		{line: `k 2024x506070809 {"url":"u"}`, err: true},
		{line: `k 202405060708091 {"url":"u"}`, err: true},
		{line: `k 20241306070809 {"url":"u"}`, err: true},
		{line: `k 20240506070809 {"url":`, err: true},
		{line: `k 20240506070809 {"mime":"text/plain"}`, err: true},
		{line: `k 20240506070809 ["url"]`, err: true},
	} {
		l, ok, err := warc.ParseIndexLine(tc.line)
		if (err != nil) != tc.err || ok != tc.ok {
			t.Errorf("ParseIndexLine(%q) = ok %v, err %v", tc.line, ok, err)
			continue
		}
		if ok && (l.URL != tc.url || l.Digest != tc.digest || !l.Date.Equal(tc.date)) {
			t.Errorf("ParseIndexLine(%q) = %+v", tc.line, l)
		}
	}
}

// SURT keys as warcio (src/lib/utils.ts getSurt) and pywb write them.
func TestSURT(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://example.com/", "com,example)/"},
		{"http://www.Example.com/A/b.html", "com,example)/a/b.html"},
		{"https://www2.example.com:8443/x?b=2&a=1", "com,example:8443)/x?a=1&b=2"},
		{"http://example.com:80/", "com,example)/"},
		{"http://127.0.0.1:8080/f", "1,0,0,127:8080)/f"},
		{"http://example.com", "com,example)/"},
		{"ftp://h/pub/a;type=i", "ftp://h/pub/a;type=i"},
		{"gopher://h:70/1/", "gopher://h:70/1/"},
		{"news:comp.lang.go", "news:comp.lang.go"},
	} {
		if got := warc.SURT(tc.in); got != tc.want {
			t.Errorf("SURT(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzParseIndexLine: no panic; a line read has a URL and a timestamp of
// the 14-digit form's range; a line that names no capture is blank or a
// header; an error never comes with ok.
func FuzzParseIndexLine(f *testing.F) {
	f.Add(`com,example)/ 20240506070809 {"url": "http://example.com/", "digest": "G7HRM7BG"}`)
	f.Add(`!meta 0 {}`)
	f.Add(`k 2024 {"url":"ftp://h/"}`)
	f.Add(`k 20240506070809 {"url":"x","digest":"sha1:Z"}`)
	f.Fuzz(func(t *testing.T, line string) {
		l, ok, err := warc.ParseIndexLine(line)
		if err != nil && ok {
			t.Fatalf("error %v with ok", err)
		}
		if !ok {
			if err == nil && strings.TrimSpace(line) != "" && !strings.HasPrefix(line, "!") {
				t.Fatalf("%q: neither a capture nor an error", line)
			}
			return
		}
		if l.URL == "" || l.Key == "" {
			t.Fatalf("%q: capture without URL or key: %+v", line, l)
		}
		if y := l.Date.Year(); y < 0 || y > 9999 {
			t.Fatalf("%q: year %d", line, y)
		}
		if l.Digest != "" && !strings.Contains(l.Digest, ":") {
			t.Fatalf("%q: digest %q without algorithm", line, l.Digest)
		}
		if !utf8.ValidString(l.URL) && utf8.ValidString(line) {
			t.Fatalf("%q: URL %q not UTF-8", line, l.URL)
		}
	})
}
