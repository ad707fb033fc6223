package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// partTypeTests: the record beside a .part is the representation type of
// its bytes (RFC 959 section 3.1.1: "A" ASCII, "I" image), then, when the
// remote size is known, a space and that size in bytes (RFC 3659 section
// 4: SIZE), on one line, as writePartType writes it.
var partTypeTests = []struct {
	content string
	typ     string
	size    int64
}{
	{"A\n", "A", -1},
	{"I 4194304\n", "I", 4194304},
	{"A 0\n", "A", 0},
	{"  I 12  \n", "I", 12},                    // white space around the line
	{"E 12\n", "", 12},                         // EBCDIC is not written: no type
	{"a 12\n", "", 12},                         // the letter as RFC 959 writes it
	{"I twelve\n", "I", -1},                    // no size
	{"", "", -1},                               // empty
	{"I 12" + strings.Repeat(" ", 61), "", -1}, // longer than any record (65 bytes)
}

func TestReadPartType(t *testing.T) {
	part := filepath.Join(t.TempDir(), "f.part")
	if typ, size := readPartType(part); typ != "" || size != -1 {
		t.Errorf("readPartType without a record = %q, %d", typ, size)
	}
	for _, tt := range partTypeTests {
		if err := os.WriteFile(part+partTypeSuffix, []byte(tt.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if typ, size := readPartType(part); typ != tt.typ || size != tt.size {
			t.Errorf("readPartType of %q = %q, %d; want %q, %d", tt.content, typ, size, tt.typ, tt.size)
		}
	}
}

// FuzzReadPartType: whatever the record holds, readPartType gives "A",
// "I" or no type, and a size of -1 for none; a record as writePartType
// writes it reads back as written.
func FuzzReadPartType(f *testing.F) {
	for _, tt := range partTypeTests {
		f.Add(tt.content, true, int64(7))
	}
	part := filepath.Join(f.TempDir(), "f.part")
	f.Fuzz(func(t *testing.T, content string, text bool, size int64) {
		if err := os.WriteFile(part+partTypeSuffix, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if typ, n := readPartType(part); typ != "" && typ != "A" && typ != "I" || len(content) > 64 && (typ != "" || n != -1) {
			t.Fatalf("readPartType of %q = %q, %d", content, typ, n)
		}
		rec, typ := "I", "I"
		if text {
			rec, typ = "A", "A"
		}
		if size >= 0 {
			rec += " " + strconv.FormatInt(size, 10)
		}
		if err := os.WriteFile(part+partTypeSuffix, []byte(rec+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, n := readPartType(part); got != typ || n != max(size, -1) {
			t.Fatalf("readPartType of %q = %q, %d", rec, got, n)
		}
	})
}
