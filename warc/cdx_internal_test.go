package warc

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The CDXJ lines are built by hand (cdxEntry.line, appendSURT): these
// tests hold them to what encoding/json and net/url give, the plain
// implementation they replace, byte for byte.

// refSURT is SURT through net/url alone.
func refSURT(raw string) string {
	lower := strings.ToLower(raw)
	if !strings.HasPrefix(lower, "http:") && !strings.HasPrefix(lower, "https:") {
		return raw
	}
	u, err := url.Parse(lower)
	if err != nil || u.Host == "" {
		return raw
	}
	host := u.Hostname()
	if i := strings.IndexByte(host, '.'); i >= 3 && strings.HasPrefix(host, "www") && strings.Trim(host[3:i], "0123456789") == "" {
		host = host[i+1:]
	}
	labels := strings.Split(host, ".")
	for i, j := 0, len(labels)-1; i < j; i, j = i+1, j-1 {
		labels[i], labels[j] = labels[j], labels[i]
	}
	key := strings.Join(labels, ",")
	if p := u.Port(); p != "" && p != defaultPort[u.Scheme] {
		key += ":" + p
	}
	key += ")"
	if p := u.EscapedPath(); p != "" {
		key += p
	} else {
		key += "/"
	}
	if u.RawQuery != "" {
		args := strings.Split(u.RawQuery, "&")
		sort.Strings(args)
		key += "?" + strings.Join(args, "&")
	}
	return key
}

// refLine is a CDXJ line through encoding/json.
func refLine(e cdxEntry) string {
	j := cdxJSON{
		URL:      e.URI,
		Mime:     e.Mime,
		Digest:   strings.TrimPrefix(e.Digest, "sha1:"),
		Length:   strconv.FormatInt(e.Length, 10),
		Offset:   strconv.FormatInt(e.Offset, 10),
		Filename: e.File,
	}
	if e.Status != 0 {
		j.Status = strconv.Itoa(e.Status)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(j)
	return refSURT(e.URI) + " " + e.Date.UTC().Format(cdxTimeFormat) + " " + strings.TrimSuffix(b.String(), "\n")
}

var surtSeeds = []string{
	"http://example.com/", "http://www.Example.com/A/b.html", "https://www2.example.com:8443/x?b=2&a=1",
	"http://example.com:80/", "http://127.0.0.1:8080/f", "http://example.com", "ftp://h/pub/a;type=i",
	"gopher://h:70/1/", "news:comp.lang.go", "http://[::1]:8080/a", "http://h/a b", "http://h/a%20b%2F",
	"http://h/a#frag", "http://h/?", "http://h?x=1", "http://h//x", "http://user@h/", "http:opaque",
	"HTTP://H/É", "http://h/a!$&'()*+,;=:@b", "http://h:/", "http://h/%zz", "http://a..b/", "http://www.h/",
	"http://www12.h/", "http://wwwx.h/", "https://h:443/", "http://h/a?c&b&a", "http://h/\"<>",
}

func TestSURTAsNetURL(t *testing.T) {
	for _, s := range surtSeeds {
		if got, want := SURT(s), refSURT(s); got != want {
			t.Errorf("SURT(%q) = %q, net/url gives %q", s, got, want)
		}
	}
}

// FuzzSURT: SURT gives the key net/url gives, for any input.
func FuzzSURT(f *testing.F) {
	for _, s := range surtSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := SURT(s), refSURT(s); got != want {
			t.Errorf("SURT(%q) = %q, net/url gives %q", s, got, want)
		}
	})
}

// FuzzCDXLine: a line is the line encoding/json gives, for any URL, type,
// digest, status and file name.
func FuzzCDXLine(f *testing.F) {
	f.Add("http://h/a?b=1", "text/html", "sha1:ABC", "w.warc.gz", 200, int64(1764050400))
	f.Add("ftp://h/\"q\\\x01\x7f\u2028\u2029\xff<&>", "", "", "", 0, int64(0))
	f.Add("gopher://h/1/\t\n\r\b\f", "x/y; charset=\"a\"", "sha1:", "a\"b", -1, int64(-62135596801))
	f.Fuzz(func(t *testing.T, uri, mime, digest, file string, status int, sec int64) {
		e := cdxEntry{URI: uri, Date: time.Unix(sec, 1), Mime: mime, Status: status,
			Digest: digest, File: file, Offset: 12, Length: 345}
		if got, want := e.line(), refLine(e); got != want {
			t.Errorf("line:\n%q\nencoding/json gives\n%q", got, want)
		}
	})
}

// hasPassword finds the password of a URL's user information (RFC 1738
// section 3.1: "//<user>:<password>@<host>") anywhere in a text, but not
// the redacted ones.
func TestHasPassword(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"ftp://u:secret@h/", true},
		{"fetch mirror ftp://u:secret@h/pub/ dir", true},
		{"fetch get\tgopher://h/ ftp://u:p@h", true},
		{"x://a://u:p@h", true},
		{"ftp://u@h/", false},
		{"ftp://u:xxxxx@h/", false},
		{"ftp://u:****@h/", false},
		{"ftp://h/a:b@c", false},
		{"http://h/?q=u:p@x", false},
		{"ftp://u:p@h/ ftp://v:xxxxx@h/", true},
		{"no url at all", false},
		{"", false},
	} {
		if got := hasPassword(tc.in); got != tc.want {
			t.Errorf("hasPassword(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// A stored gzip member (RFC 1952, RFC 1951 section 3.2.4) reads back as
// its data through compress/gzip, for no data, one block, a full block
// and several blocks, and one member follows another in a stream.
func TestStoredMember(t *testing.T) {
	var stream []byte
	var want []byte
	for _, n := range []int{0, 1, 700, 0xffff, 0xffff + 1, 3*0xffff + 17} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + n)
		}
		m := appendStoredMember(nil, data)
		r, err := gzip.NewReader(bytes.NewReader(m))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		r.Multistream(false)
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: read %d bytes back, %v", n, len(got), err)
		}
		if rest, _ := io.ReadAll(r); len(rest) != 0 {
			t.Fatalf("%d bytes: %d more after the member", n, len(rest))
		}
		stream = append(stream, m...)
		want = append(want, data...)
	}
	r, err := gzip.NewReader(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(r); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("the members in a row: %d bytes, %v", len(got), err)
	}
}

// The memory budget of the captures waiting to be written: one capture
// goes through whatever its size; past maxPendingMem, the next waits
// until the writer has written enough.
func TestBudget(t *testing.T) {
	var b budget
	b.acquire(maxPendingMem * 2) // alone: let through
	got := make(chan struct{})
	go func() {
		b.acquire(1)
		close(got)
	}()
	select {
	case <-got:
		t.Fatal("acquired past the budget")
	case <-time.After(50 * time.Millisecond):
	}
	if !b.tight() {
		t.Error("a full budget is not tight")
	}
	b.release(maxPendingMem * 2)
	select {
	case <-got:
	case <-time.After(5 * time.Second):
		t.Fatal("still waiting after the release")
	}
	if b.tight() {
		t.Error("1 byte taken, and tight")
	}
}

// formatDate writes a WARC-Date (WARC 1.1 section 5.4, W3C-DTF) as
// time.RFC3339Nano does, in UTC, for any time.
func FuzzFormatDate(f *testing.F) {
	f.Add(int64(0), int64(0))
	f.Add(int64(1764050400), int64(123456789))
	f.Add(int64(1764050400), int64(120000000))
	f.Add(int64(-62135596801), int64(1))
	f.Add(int64(253402300800), int64(999999999))
	f.Fuzz(func(t *testing.T, sec, nsec int64) {
		tm := time.Unix(sec, nsec%1e9)
		if got, want := formatDate(tm), tm.UTC().Format(time.RFC3339Nano); got != want {
			t.Errorf("formatDate(%v) = %q, want %q", tm, got, want)
		}
	})
}
