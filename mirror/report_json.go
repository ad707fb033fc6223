package mirror

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/rfc1738/fetch/internal/jsonstr"
)

// A path in the report is a remote name's bytes, which need not be UTF-8
// (a Latin-1 name of an old FTP archive). encoding/json would write U+FFFD
// for each such byte, and two names would read the same; the report
// writes them as the manifest does, as PEP 383 escapes (\udce9 for the
// byte 0xe9), which Python's json reads back as they were.

// MarshalJSON writes the entry as encoding/json would, its path as the
// manifest writes names.
func (e EntryReport) MarshalJSON() ([]byte, error) {
	type plain EntryReport
	if utf8.ValidString(e.Path) {
		return json.Marshal(plain(e))
	}
	return json.Marshal(struct {
		Path json.RawMessage `json:"path"`
		plain
	}{jsonstr.AppendBytes(nil, e.Path, true), plain(e)})
}

// MarshalJSON writes the warning as encoding/json would, its path as the
// manifest writes names.
func (w Warning) MarshalJSON() ([]byte, error) {
	type plain Warning
	if utf8.ValidString(w.Path) {
		return json.Marshal(plain(w))
	}
	return json.Marshal(struct {
		Path json.RawMessage `json:"path"`
		plain
	}{jsonstr.AppendBytes(nil, w.Path, true), plain(w)})
}
