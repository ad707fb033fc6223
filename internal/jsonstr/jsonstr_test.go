package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

// reference is s through encoding/json (RFC 8259 section 7), with or
// without its HTML escaping.
func reference(s string, html bool) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

var seeds = []string{
	"", "plain", `"q"\`, "\x00\x01\x1f\x7f", "\b\f\n\r\t", "<a href=\"x\">&amp;</a>",
	"\u2028\u2029", "\xff\xfe", "é€😀", "a\xc3", "\xed\xa0\x80",
}

func TestAppend(t *testing.T) {
	for _, s := range seeds {
		for _, html := range []bool{false, true} {
			if got, want := string(Append(nil, s, html)), reference(s, html); got != want {
				t.Errorf("Append(%q, html %v) = %s, encoding/json gives %s", s, html, got, want)
			}
		}
	}
}

// FuzzAppend: Append writes what encoding/json writes, for any string.
func FuzzAppend(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			if got, want := string(Append(nil, s, html)), reference(s, html); got != want {
				t.Errorf("Append(%q, html %v) = %s, encoding/json gives %s", s, html, got, want)
			}
		}
	})
}
