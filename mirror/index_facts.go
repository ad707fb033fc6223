package mirror

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/uri"
)

// An index page may show each file's size and time beside its link. A
// re-run trusts them in place of a conditional request only when they are
// as exact as what the manifest recorded from the server's Last-Modified
// (RFC 9110 section 8.8.2: seconds) and Content-Length (bytes): a time to
// the second and a size in bytes. A time to the minute (nginx's and
// Apache's HTML pages) or a size rounded to K or M cannot prove a file
// unchanged, as an FTP LIST time to the minute cannot (askMDTM): such a
// row gives nothing, and the file is asked for on condition.
//
// The pages give no time zone; the times are read as UTC, which is what
// nginx shows by default (autoindex_localtime off). A server that shows
// local time gives times that do not equal the recorded ones, so that
// every file is asked for on condition: slower, never wrong.

// rowDates are the layouts of the date of an index row: nginx's
// (29-Nov-2026), Apache's and ISO 8601's (2026-11-29), lighttpd's
// (2026-Nov-29).
var rowDates = []string{"02-Jan-2006", "2006-01-02", "2006-Jan-02"}

// rowFacts reads the size and time of an index page's row from the text
// that follows a file's link (link.tail): a date, a time to the second
// and a size in bytes, the first three words, as nginx with
// autoindex_exact_size on and lighttpd lay a row out. ok is false for
// anything else, a time to the minute or a size with a unit among them.
func rowFacts(tail string) (size int64, mtime time.Time, ok bool) {
	f := strings.Fields(tail)
	if len(f) < 3 {
		return -1, time.Time{}, false
	}
	mtime, ok = rowTime(f[0], f[1])
	if !ok {
		return -1, time.Time{}, false
	}
	size, ok = exactSize(f[2])
	if !ok {
		return -1, time.Time{}, false
	}
	return size, mtime, true
}

// rowTime reads a date (rowDates) and a time of day to the second
// (15:04:05), as UTC; ok is false for a time to the minute.
func rowTime(date, clock string) (time.Time, bool) {
	if len(clock) != len("15:04:05") {
		return time.Time{}, false
	}
	for _, layout := range rowDates {
		t, err := time.Parse(layout+" 15:04:05", date+" "+clock)
		if err == nil && t.Year() >= 1970 {
			return t, true
		}
	}
	return time.Time{}, false
}

// exactSize reads a size in bytes: decimal digits only ("1.2K", "-" and
// "4,096" are not).
func exactSize(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// jsonEntry is one entry of nginx's index in JSON (autoindex_format
// json): the name, "file" or "directory" (or "other"), the time as an
// HTTP-date (RFC 9110 section 5.6.7) and, for a file, the size in bytes.
type jsonEntry struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	MTime string `json:"mtime"`
	Size  *int64 `json:"size"`
}

// isJSONIndex reports whether a listing's media type is that of a JSON
// index page.
func isJSONIndex(mediaType string) bool { return mediaType == "application/json" }

// parseJSONIndex turns nginx's JSON index of directory d into links an
// HTML page of the same entries would hold, each with a tail rowFacts
// reads (the time and size are exact). ok is false when the page is no
// such index.
func parseJSONIndex(page []byte) (ls []link, ok bool) {
	var es []jsonEntry
	if err := json.Unmarshal(page, &es); err != nil {
		return nil, false
	}
	for _, e := range es {
		if e.Name == "" {
			continue
		}
		href := uri.EscapePart(e.Name, uri.PartSegment)
		if strings.Contains(e.Name, ":") {
			href = "./" + href // a name, not a scheme (RFC 3986 section 4.2)
		}
		l := link{href: href, text: e.Name}
		switch e.Type {
		case "directory":
			l.href += "/"
		case "file":
			if t, err := http.ParseTime(e.MTime); err == nil && e.Size != nil && *e.Size >= 0 {
				tail := t.UTC().Format("2006-01-02 15:04:05") + " " + strconv.FormatInt(*e.Size, 10)
				if _, _, ok := rowFacts(tail); ok { // a year rowTime takes
					l.tail = tail
				}
			}
		default:
			continue // "other": neither a file nor a directory to walk
		}
		ls = append(ls, l)
	}
	return ls, true
}
