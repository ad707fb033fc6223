package mirror

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/rfc1738/fetch/internal/jsonstr"
)

// The manifest is written by hand rather than with json.MarshalIndent:
// for an archive of many small files, encoding it through reflection (and
// then indenting the result in a second pass) took longer than the last
// transfers, at the end of every run. The bytes are the same as
// MarshalIndent(m, "", "  ") gives (map keys sorted, strings escaped as
// encoding/json escapes them); the tests compare the two. They differ in
// one thing only: a name that is not UTF-8 (a Latin-1 name of an old FTP
// archive) keeps its bytes as PEP 383 escapes (jsonstr.AppendBytes), which
// decodeManifest and readManifest read back; encoding/json would write
// U+FFFD for each, and two such names would be one.

// appendTime appends the field key of a record with the time t, as
// encoding/json writes it; a zero t is left out (omitzero).
func appendTime(b []byte, key string, t time.Time) ([]byte, error) {
	if t.IsZero() {
		return b, nil
	}
	// time.Time.MarshalJSON refuses years it cannot write in RFC 3339.
	if y := t.Year(); y < 0 || y > 9999 {
		return nil, fmt.Errorf("%s %v: year outside of [0,9999]", key, t)
	}
	b = append(b, ",\n      \""...)
	b = append(b, key...)
	b = append(b, "\": \""...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

// errEncode wraps the failure to encode a record (a time whose year
// RFC 3339 cannot write).
var errEncode = errors.New("cannot encode")

// writeTo writes the manifest as indented JSON to w, record by record in
// the order of their paths; the caller holds m.mu.
func (m *manifest) writeTo(w io.Writer) error {
	names := make([]string, 0, len(m.Files)+m.packed.len())
	for name := range m.Files {
		names = append(names, name)
	}
	m.packed.all(func(name string, _ packed) bool {
		names = append(names, name)
		return true
	})
	slices.Sort(names)
	b := make([]byte, 0, 4096)
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(m.Version), 10)
	b = append(b, ",\n  \"source\": "...)
	b = jsonstr.AppendBytes(b, m.Source, true)
	b = append(b, ",\n  \"files\": {"...)
	for i, name := range names {
		r, _ := m.getLocked(name)
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendRecord(b, name, r); err != nil {
			return err
		}
		if len(b) >= 2048 {
			if _, err := w.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	if len(names) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, '}')
	b = m.appendNews(b)
	b = append(b, "\n}\n"...)
	_, err := w.Write(b)
	return err
}

// appendRecord appends the record r of the path name, as one member of
// the manifest's "files" object.
func appendRecord(b []byte, name string, r Record) ([]byte, error) {
	b = append(b, "\n    "...)
	b = jsonstr.AppendBytes(b, name, true)
	b = append(b, ": {\n      \"size\": "...)
	b = strconv.AppendInt(b, r.Size, 10)
	for _, f := range [...]struct {
		key string
		t   time.Time
	}{{"remote_time", r.ModTime}, {"exact_time", r.ExactTime}, {"fetched", r.Fetched}} {
		var err error
		if b, err = appendTime(b, f.key, f.t); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", errEncode, name, err)
		}
	}
	b = append(b, ",\n      \"sha256\": "...)
	b = jsonstr.AppendBytes(b, r.SHA256, true)
	b = append(b, ",\n      \"url\": "...)
	b = jsonstr.AppendBytes(b, r.URL, true)
	if r.Link != "" {
		b = append(b, ",\n      \"link\": "...)
		b = jsonstr.AppendBytes(b, r.Link, true)
	}
	return append(b, "\n    }"...), nil
}

// appendNews appends the groups and Message-IDs of a news mirror.
func (m *manifest) appendNews(b []byte) []byte {
	if len(m.Groups) > 0 {
		b = append(b, ",\n  \"groups\": {"...)
		for i, name := range slices.Sorted(maps.Keys(m.Groups)) {
			g := m.Groups[name]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = jsonstr.AppendBytes(b, name, true)
			b = append(b, ": {\n      \"high\": "...)
			b = strconv.AppendInt(b, g.High, 10)
			b = append(b, ",\n      \"low\": "...)
			b = strconv.AppendInt(b, g.Low, 10)
			b = append(b, "\n    }"...)
		}
		b = append(b, "\n  }"...)
	}
	if len(m.MessageIDs) > 0 {
		b = append(b, ",\n  \"message_ids\": {"...)
		for i, id := range slices.Sorted(maps.Keys(m.MessageIDs)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = jsonstr.AppendBytes(b, id, true)
			b = append(b, ": "...)
			b = jsonstr.AppendBytes(b, m.MessageIDs[id], true)
		}
		b = append(b, "\n  }"...)
	}
	return b
}

// decodeManifest reads a manifest written by encode: the JSON through
// encoding/json, and the names that are not UTF-8 restored from their
// escapes.
func decodeManifest(b []byte) (*manifest, error) {
	m := &manifest{}
	b, escaped := jsonstr.KeepBytes(b)
	if err := json.Unmarshal(b, m); err != nil {
		return nil, err
	}
	if escaped {
		m.Source = jsonstr.RestoreBytes(m.Source)
		m.Files = restoreKeys(m.Files, Record.restored)
		m.Groups = restoreKeys(m.Groups, func(g GroupMark) GroupMark { return g })
		m.MessageIDs = restoreKeys(m.MessageIDs, jsonstr.RestoreBytes)
	}
	if m.Files == nil {
		m.Files = map[string]Record{}
	}
	return m, nil
}

// restoreKeys returns m with its keys restored from their escapes
// (jsonstr.KeepBytes), and its values through restore; nil for nil.
func restoreKeys[V any](m map[string]V, restore func(V) V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[jsonstr.RestoreBytes(k)] = restore(v)
	}
	return out
}

// restored is r with its strings restored from their escapes.
func (r Record) restored() Record {
	r.URL, r.Link, r.SHA256 = jsonstr.RestoreBytes(r.URL), jsonstr.RestoreBytes(r.Link), jsonstr.RestoreBytes(r.SHA256)
	return r
}
