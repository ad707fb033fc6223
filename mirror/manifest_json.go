package mirror

import (
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// The manifest is written by hand rather than with json.MarshalIndent:
// for an archive of many small files, encoding it through reflection (and
// then indenting the result in a second pass) took longer than the last
// transfers, at the end of every run. The bytes are the same as
// MarshalIndent(m, "", "  ") gives (map keys sorted, strings escaped as
// encoding/json escapes them); the tests compare the two.

// encode returns the manifest as indented JSON. The caller holds m.mu.
func (m *manifest) encode() ([]byte, error) {
	names := make([]string, 0, len(m.Files))
	for name := range m.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	// About 240 bytes per record for an FTP tree.
	b := make([]byte, 0, 64+len(m.Source)+len(names)*256)
	b = append(b, "{\n  \"version\": "...)
	b = strconv.AppendInt(b, int64(m.Version), 10)
	b = append(b, ",\n  \"source\": "...)
	b = appendJSONString(b, m.Source)
	b = append(b, ",\n  \"files\": {"...)
	for i, name := range names {
		r := m.Files[name]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = appendJSONString(b, name)
		b = append(b, ": {\n      \"size\": "...)
		b = strconv.AppendInt(b, r.Size, 10)
		if !r.ModTime.IsZero() {
			// time.Time.MarshalJSON refuses years it cannot write
			// in RFC 3339.
			if y := r.ModTime.Year(); y < 0 || y > 9999 {
				return nil, fmt.Errorf("%s: remote time %v: year outside of [0,9999]", name, r.ModTime)
			}
			b = append(b, ",\n      \"remote_time\": \""...)
			b = r.ModTime.AppendFormat(b, time.RFC3339Nano)
			b = append(b, '"')
		}
		b = append(b, ",\n      \"sha256\": "...)
		b = appendJSONString(b, r.SHA256)
		b = append(b, ",\n      \"url\": "...)
		b = appendJSONString(b, r.URL)
		if r.Link != "" {
			b = append(b, ",\n      \"link\": "...)
			b = appendJSONString(b, r.Link)
		}
		b = append(b, "\n    }"...)
	}
	if len(names) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, '}')
	if len(m.Groups) > 0 {
		b = append(b, ",\n  \"groups\": {"...)
		for i, name := range sortedKeys(m.Groups) {
			g := m.Groups[name]
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendJSONString(b, name)
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
		for i, id := range sortedKeys(m.MessageIDs) {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n    "...)
			b = appendJSONString(b, id)
			b = append(b, ": "...)
			b = appendJSONString(b, m.MessageIDs[id])
		}
		b = append(b, "\n  }"...)
	}
	b = append(b, "\n}"...)
	return b, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendJSONString appends s as a JSON string the way encoding/json
// writes it by default: '"', '\\' and control characters escaped (\n, \r,
// \t, \b and \f by name, the others as \u00XX), '<', '>' and '&' as \u003c, \u003e
// and \u0026, U+2028 and U+2029 as \u2028 and \u2029, and each byte that
// is not valid UTF-8 as \ufffd.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
