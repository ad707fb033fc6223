package warc

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rfc1738/fetch/internal/jsonstr"
	"github.com/rfc1738/fetch/uri"
)

// The CDXJ index, in the line format pywb reads
// (https://pywb.readthedocs.io/en/latest/manual/indexing.html, "CDXJ"):
//
//	<SURT key> <14-digit UTC timestamp> <JSON object>
//
// one line per capture, sorted by key then timestamp. The JSON object
// holds url, mime, status (HTTP only), digest (the sha1 payload digest in
// base32, without the "sha1:" prefix, as pywb writes it), length and offset
// (of the gzip member holding the record) and filename.

// cdxEntry is one capture in the index.
type cdxEntry struct {
	URI    string
	Date   time.Time
	Mime   string
	Type   string
	Status int
	Digest string // "sha1:..."
	File   string // base name of the WARC file
	Offset int64
	Length int64
}

// cdxJSON is the JSON part of a line, in pywb's field order.
type cdxJSON struct {
	URL      string `json:"url"`
	Mime     string `json:"mime,omitempty"`
	Status   string `json:"status,omitempty"`
	Digest   string `json:"digest,omitempty"`
	Length   string `json:"length,omitempty"`
	Offset   string `json:"offset,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// CDXTimeFormat is the layout of a CDXJ timestamp.
const cdxTimeFormat = "20060102150405"

// appendLine appends e's line to b.
func (e cdxEntry) appendLine(b []byte) []byte {
	b = appendSURT(b, e.URI)
	b = append(b, ' ')
	b = appendTimestamp(b, e.Date)
	b = append(b, ` {"url":`...)
	b = jsonstr.Append(b, e.URI, false)
	if e.Mime != "" {
		b = append(b, `,"mime":`...)
		b = jsonstr.Append(b, e.Mime, false)
	}
	if e.Status != 0 {
		b = append(b, `,"status":"`...)
		b = strconv.AppendInt(b, int64(e.Status), 10)
		b = append(b, '"')
	}
	if d := strings.TrimPrefix(e.Digest, "sha1:"); d != "" {
		b = append(b, `,"digest":`...)
		b = jsonstr.Append(b, d, false)
	}
	b = append(b, `,"length":"`...)
	b = strconv.AppendInt(b, e.Length, 10)
	b = append(b, `","offset":"`...)
	b = strconv.AppendInt(b, e.Offset, 10)
	b = append(b, '"')
	if e.File != "" {
		b = append(b, `,"filename":`...)
		b = jsonstr.Append(b, e.File, false)
	}
	return append(b, '}')
}

// SURT returns the sort key of a URL as pywb and warcio write it: for
// http and https, the host's labels reversed and joined by commas (a
// leading "www." dropped), a non-default port after a colon, ")", the path,
// and the query's arguments sorted, all in lower case
// ("http://www.Example.com:8080/A?b=1&a=2" gives "com,example:8080)/a?a=2&b=1");
// for any other scheme (ftp, gopher, news), the URL itself.
func SURT(raw string) string { return string(appendSURT(nil, raw)) }

// appendSURT appends the SURT of raw to b. A plain URL (host, port, path
// and query of the characters a URL keeps as they are) is keyed here;
// any other through net/url (surtParsed), whose escaping decides the path
// of such a URL.
func appendSURT(b []byte, raw string) []byte {
	lower := raw
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; 'A' <= c && c <= 'Z' || c >= utf8.RuneSelf {
			lower = strings.ToLower(raw)
			break
		}
	}
	scheme, rest, found := strings.Cut(lower, ":")
	if !found || !uri.IsHTTP(scheme) {
		return append(b, raw...)
	}
	if rest, found = strings.CutPrefix(rest, "//"); !found {
		return append(b, surtParsed(raw, lower)...)
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	hostport, pathq := rest[:end], rest[end:]
	host, port := hostport, ""
	if i := strings.IndexByte(hostport, ':'); i >= 0 {
		host, port = hostport[:i], hostport[i+1:]
	}
	if host == "" || !plain(host, hostSet) || !plain(port, digitSet) || !plain(pathq, pathSet) {
		return append(b, surtParsed(raw, lower)...)
	}
	p, q, hasQ := strings.Cut(pathq, "?")
	if hasQ && q == "" || strings.HasPrefix(p, "//") {
		return append(b, surtParsed(raw, lower)...)
	}
	return appendKey(b, scheme, host, port, p, q)
}

// appendKey appends the SURT of a URL from its parts: the lowered host,
// port, escaped path and raw query.
func appendKey(b []byte, scheme, host, port, p, q string) []byte {
	if i := strings.IndexByte(host, '.'); i >= 3 && strings.HasPrefix(host, "www") && strings.Trim(host[3:i], "0123456789") == "" {
		host = host[i+1:]
	}
	for end := len(host); ; {
		i := strings.LastIndexByte(host[:end], '.')
		b = append(b, host[i+1:end]...)
		if i < 0 {
			break
		}
		b = append(b, ',')
		end = i
	}
	var def [8]byte
	if port != "" && port != string(strconv.AppendInt(def[:0], int64(uri.DefaultPort(scheme)), 10)) {
		b = append(b, ':')
		b = append(b, port...)
	}
	b = append(b, ')')
	b = append(b, cmp.Or(p, "/")...)
	if q != "" {
		args := strings.Split(q, "&")
		sort.Strings(args)
		b = append(b, '?')
		for i, a := range args {
			if i > 0 {
				b = append(b, '&')
			}
			b = append(b, a...)
		}
	}
	return b
}

// surtParsed is the SURT of raw (lower is raw in lower case) through
// net/url.
func surtParsed(raw, lower string) string {
	u, err := url.Parse(lower)
	if err != nil || u.Host == "" {
		return raw
	}
	return string(appendKey(nil, u.Scheme, u.Hostname(), u.Port(), u.EscapedPath(), u.RawQuery))
}

// Character classes of the plain URLs appendSURT keys by itself: a host
// name, a port, and a path and query that net/url keeps as written.
const (
	digits    = "0123456789"
	hostChars = "abcdefghijklmnopqrstuvwxyz0123456789.-"
	pathChars = "abcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?"
)

// plain reports whether every byte of s is in set.
func plain(s string, set *[256]bool) bool {
	for i := 0; i < len(s); i++ {
		if !set[s[i]] {
			return false
		}
	}
	return true
}

// byteSet is the table of the bytes of s.
func byteSet(s string) *[256]bool {
	var t [256]bool
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return &t
}

var digitSet, hostSet, pathSet = byteSet(digits), byteSet(hostChars), byteSet(pathChars)

// appendTimestamp appends t as a CDXJ timestamp (cdxTimeFormat, UTC).
func appendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	y := t.Year()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, cdxTimeFormat)
	}
	h, mi, sec := t.Clock()
	for _, f := range [...]struct{ v, n int }{{y, 4}, {int(t.Month()), 2}, {t.Day(), 2}, {h, 2}, {mi, 2}, {sec, 2}} {
		b = appendDigits(b, f.v, f.n)
	}
	return b
}

// cdxLines are the CDXJ lines of one WARC file, unsorted, in chunks of
// memory shared by many (a string each would be an allocation per
// capture, and one growing buffer would copy itself as it grows).
type cdxLines struct {
	chunks [][]byte
	lines  [][]byte // into chunks
}

// cdxChunk is the size of a chunk of cdxLines (a longer line has one of
// its own).
const cdxChunk = 64 << 10

// add appends line, a CDXJ line without its line end.
func (l *cdxLines) add(line []byte) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1])+len(line) > cap(l.chunks[n-1]) {
		l.chunks = append(l.chunks, make([]byte, 0, max(cdxChunk, len(line))))
		n++
	}
	c := l.chunks[n-1]
	start := len(c)
	c = append(c, line...)
	l.chunks[n-1] = c
	l.lines = append(l.lines, c[start:len(c):len(c)])
}

// writeSorted writes the lines sorted to w, each ended by a newline.
func (l *cdxLines) writeSorted(w io.Writer) error {
	slices.SortFunc(l.lines, bytes.Compare)
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, line := range l.lines {
		bw.Write(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// writeIndexes writes one sorted CDXJ file beside each WARC file.
func (w *Writer) writeIndexes() error {
	index := w.index // the writer's goroutine has ended
	w.index = map[string]*cdxLines{}
	dir := filepath.Dir(w.opts.Name)
	var errs []error
	for file, lines := range index {
		name := filepath.Join(dir, strings.TrimSuffix(file, ".warc.gz")+".cdxj")
		errs = append(errs, writeFileAtomic(name, lines.writeSorted))
	}
	return errors.Join(errs...)
}

// writeFileAtomic writes name with write through a temporary file, so that
// no partial index stands under its final name.
func writeFileAtomic(name string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".cdxj-*")
	if err != nil {
		return fmt.Errorf("warc: index: %w", err)
	}
	f.Chmod(0o644)
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("warc: index: %w", err)
	}
	return nil
}

// IndexError is a CDXJ line that could not be read.
type IndexError struct {
	File string
	Line int
	Msg  string
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("warc: %s:%d: %s", e.File, e.Line, e.Msg)
}

// maxIndexLine bounds one CDXJ line.
const maxIndexLine = 1 << 20

// loadIndex reads the captures of a CDXJ file into w.seen.
func (w *Writer) loadIndex(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("warc: dedup index: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxIndexLine)
	for n := 1; sc.Scan(); n++ {
		e, ok, err := ParseIndexLine(sc.Text())
		if err != nil {
			return &IndexError{File: name, Line: n, Msg: err.Error()}
		}
		if !ok || e.Digest == "" || e.Mime == "warc/revisit" {
			continue
		}
		sum, ok := parseSHA1(e.Digest)
		if !ok {
			continue // not a digest of this package's: no capture has it
		}
		orig, dup := w.seen[sum]
		w.noteCaptured(sum, e.URL, e.Date, orig, dup)
	}
	if err := sc.Err(); err != nil {
		return &IndexError{File: name, Msg: err.Error()}
	}
	return nil
}

// IndexLine is one capture read from a CDXJ line.
type IndexLine struct {
	Key    string
	Date   time.Time
	URL    string
	Mime   string
	Digest string // with its "sha1:" prefix
}

// ParseIndexLine reads one CDXJ line. ok is false for a line that names
// no capture (empty, or a "!" header line of pywb's); err says what is
// wrong with a malformed one.
func ParseIndexLine(line string) (l IndexLine, ok bool, err error) {
	line = strings.TrimRight(line, "\r")
	if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "!") {
		return l, false, nil
	}
	key, rest, found := strings.Cut(line, " ")
	if !found || key == "" {
		return l, false, errors.New("no timestamp after the key")
	}
	ts, js, found := strings.Cut(rest, " ")
	if !found {
		return l, false, errors.New("no JSON after the timestamp")
	}
	date, err := parseTimestamp(ts)
	if err != nil {
		return l, false, err
	}
	var j cdxJSON
	if err := json.Unmarshal([]byte(js), &j); err != nil {
		return l, false, fmt.Errorf("JSON: %v", err)
	}
	if j.URL == "" {
		return l, false, errors.New(`no "url"`)
	}
	d := j.Digest
	if d != "" && !strings.Contains(d, ":") {
		d = "sha1:" + d
	}
	return IndexLine{Key: key, Date: date, URL: j.URL, Mime: j.Mime, Digest: d}, true, nil
}

// parseTimestamp reads a CDX timestamp: 4 to 14 digits (a shorter one
// stands for the start of the period, as in the Wayback Machine's).
func parseTimestamp(ts string) (time.Time, error) {
	if len(ts) < 4 || len(ts) > 14 || strings.Trim(ts, "0123456789") != "" {
		return time.Time{}, fmt.Errorf("timestamp %q: not 4 to 14 digits", ts)
	}
	full := ts + "0101000000"[max(0, len(ts)-4):]
	if len(full) > 14 {
		full = full[:14]
	}
	t, err := time.Parse(cdxTimeFormat, full)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q: %v", ts, err)
	}
	return t, nil
}
