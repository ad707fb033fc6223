package warc

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
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

func (e cdxEntry) line() string {
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
	enc.SetEscapeHTML(false) // "&" as is, as pywb writes it
	enc.Encode(j)
	return SURT(e.URI) + " " + e.Date.UTC().Format(cdxTimeFormat) + " " + strings.TrimSuffix(b.String(), "\n")
}

// SURT returns the sort key of a URL as pywb and warcio write it: for
// http and https, the host's labels reversed and joined by commas (a
// leading "www." dropped), a non-default port after a colon, ")", the path,
// and the query's arguments sorted, all in lower case
// ("http://www.Example.com:8080/A?b=1&a=2" gives "com,example:8080)/a?a=2&b=1");
// for any other scheme (ftp, gopher, news), the URL itself.
func SURT(raw string) string {
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

var defaultPort = map[string]string{"http": "80", "https": "443"}

// writeIndexes writes one sorted CDXJ file beside each WARC file.
func (w *Writer) writeIndexes() error {
	w.mu.Lock()
	index := w.index
	w.index = map[string][]string{}
	w.mu.Unlock()
	dir := filepath.Dir(w.opts.Name)
	var errs []error
	for file, lines := range index {
		sort.Strings(lines)
		name := filepath.Join(dir, strings.TrimSuffix(file, ".warc.gz")+".cdxj")
		errs = append(errs, writeFileAtomic(name, strings.Join(lines, "\n")+"\n"))
	}
	return errors.Join(errs...)
}

// writeFileAtomic writes data to name through a temporary file, so that no
// partial index stands under its final name.
func writeFileAtomic(name, data string) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".cdxj-*")
	if err != nil {
		return fmt.Errorf("warc: index: %w", err)
	}
	f.Chmod(0o644)
	_, err = f.WriteString(data)
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
		if _, dup := w.seen[e.Digest]; !dup {
			w.seen[e.Digest] = origin{URI: e.URL, Date: e.Date}
		}
		w.at[e.Digest+"\x00"+e.URL] = true
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
