package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
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

// roundTrip writes s with AppendBytes as a key and as a value of an
// object, decodes the object with encoding/json after KeepBytes, and
// returns the key and the value restored.
func roundTrip(t *testing.T, s string) (key, value string) {
	t.Helper()
	doc := append(AppendBytes([]byte("{"), s, true), ':')
	doc = append(AppendBytes(doc, s, false), '}')
	kept, changed := KeepBytes(doc)
	var m map[string]string
	if err := json.Unmarshal(kept, &m); err != nil {
		t.Fatalf("%q: %s: %v", s, kept, err)
	}
	if len(m) != 1 {
		t.Fatalf("%q: %s decodes to %q", s, kept, m)
	}
	for k, v := range m {
		if changed {
			k, v = RestoreBytes(k), RestoreBytes(v)
		}
		return k, v
	}
	return "", ""
}

// TestAppendBytes: the bytes that are not UTF-8 are written as PEP 383's
// lone low surrogates (U+DC80 to U+DCFF, one a byte), which RFC 8259
// section 8.2 lets a string hold; everything else as Append writes it;
// and each string comes back byte for byte.
func TestAppendBytes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"caf\xe9.txt", `"caf\udce9.txt"`},                   // Latin-1
		{"na\xefve\xff", `"na\udcefve\udcff"`},               // 0xff, the Telnet IAC byte
		{"\x83\x65\x83\x58\x83g", `"\udc83e\udc83X\udc83g"`}, // Shift JIS "テスト"
		{"\xed\xa0\x80", `"\udced\udca0\udc80"`},             // an encoded surrogate is three bytes
		{"a\xc3", `"a\udcc3"`},                               // a cut sequence
		{"café", `"café"`},                                   // UTF-8 as it is
		{"a\x00b", `"a\u0000b"`},
	} {
		if got := string(AppendBytes(nil, c.in, true)); got != c.want {
			t.Errorf("AppendBytes(%q) = %s, want %s", c.in, got, c.want)
		}
	}
	for _, s := range append(seeds, "caf\xe9", "\x00e9", "\x00\x00\xe9", "\xe9\x00", "\x00") {
		if got := string(AppendBytes(nil, s, true)); utf8.ValidString(s) && got != reference(s, true) {
			t.Errorf("AppendBytes(%q) = %s, encoding/json gives %s", s, got, reference(s, true))
		}
		if k, v := roundTrip(t, s); k != s || v != s {
			t.Errorf("%q comes back as key %q, value %q", s, k, v)
		}
	}
}

// TestKeepBytes: what is rewritten and what is not.
func TestKeepBytes(t *testing.T) {
	for _, c := range []struct {
		doc, want string
		changed   bool
	}{
		{`{"a":"b"}`, `{"a":"b"}`, false},
		{`{"a\u0000":"\u0000"}`, `{"a\u0000":"\u0000"}`, false}, // no byte escape: as it is
		{`{"caf\udce9":"\u0000"}`, `{"caf\u0000e9":"\u0000\u0000"}`, true},
		{`["\uDCE9"]`, `["\u0000e9"]`, true},
		// A surrogate pair another writer escaped (U+1F480) is a
		// character, not two bytes.
		{`["\ud83d\udc80"]`, `["\ud83d\udc80"]`, false},
		{`["\ud83d\udc80\udc80"]`, `["\ud83d\udc80\u000080"]`, true},
		// Escapes outside the range, and an escaped backslash before a
		// "u", are left.
		{`["\udc7f\udd00\\udce9"]`, `["\udc7f\udd00\\udce9"]`, false},
		{`["\"\udce9"]`, `["\"\u0000e9"]`, true},
		// Outside strings nothing is an escape; a document cut short is
		// left for the decoder to refuse.
		{`{"a":1} \udce9`, `{"a":1} \udce9`, false},
		{`["\udc`, `["\udc`, false},
	} {
		got, changed := KeepBytes([]byte(c.doc))
		if string(got) != c.want || changed != c.changed {
			t.Errorf("KeepBytes(%s) = %s, %v; want %s, %v", c.doc, got, changed, c.want, c.changed)
		}
	}
	// encoding/json alone takes the escape for U+FFFD: two names that
	// differ in one Latin-1 letter would be one key.
	var m map[string]int
	if err := json.Unmarshal([]byte(`{"caf\udce9":1,"caf\udce8":2}`), &m); err != nil || len(m) != 1 {
		t.Errorf("encoding/json: %v, %v (want one key)", m, err)
	}
}

// TestRestoreBytes: a NUL that KeepBytes did not write (a hand-edited
// document) is kept.
func TestRestoreBytes(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "\x00e9": "\xe9", "\x00\x00": "\x00", "\x00E9x": "\xe9x",
		"a\x00": "a\x00", "a\x00z9": "a\x00z9", "\x00\x00e9": "\x00e9",
	} {
		if got := RestoreBytes(in); got != want {
			t.Errorf("RestoreBytes(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzAppendBytes: any string, written by AppendBytes, read by
// encoding/json after KeepBytes and restored, is the same bytes.
func FuzzAppendBytes(f *testing.F) {
	for _, s := range append(seeds, "caf\xe9", "\x00e9", "\xed\xa0\x80\xed\xb0\x80") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if k, v := roundTrip(t, s); k != s || v != s {
			t.Errorf("%q comes back as key %q, value %q", s, k, v)
		}
		if utf8.ValidString(s) {
			if got, want := string(AppendBytes(nil, s, false)), reference(s, false); got != want {
				t.Errorf("AppendBytes(%q) = %s, encoding/json gives %s", s, got, want)
			}
		}
	})
}

// FuzzKeepBytes: any document that encoding/json reads reads the same
// after KeepBytes and RestoreBytes when it holds no byte escape, and a
// document is never made valid or invalid by it.
func FuzzKeepBytes(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `["\udce9","\u0000"]`, `["\ud83d\udc80"]`, `["\\udce9"]`, `"\udc`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		kept, changed := KeepBytes([]byte(doc))
		var a, b any
		errA := json.Unmarshal([]byte(doc), &a)
		errB := json.Unmarshal(kept, &b)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: decodes %v, after KeepBytes (%s) %v", doc, errA, kept, errB)
		}
		if !changed && string(kept) != doc {
			t.Fatalf("%s: unchanged, but %s", doc, kept)
		}
	})
}
