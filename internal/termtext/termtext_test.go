package termtext

import "testing"

// TestEscape: a trace line is shown as it is when it is printable UTF-8;
// otherwise quoted as Go does, control bytes and each byte that is not
// UTF-8 (a Latin-1 name in RETR) as escapes, never as U+FFFD, which would
// show two names alike; and cut at max bytes.
func TestEscape(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"RETR café.txt", 100, "RETR café.txt"},
		{"RETR caf\xe9.txt", 100, `RETR caf\xe9.txt`},
		{"RETR caf\xe8.txt", 100, `RETR caf\xe8.txt`},
		{"RETR na\xefve\xff.txt", 100, `RETR na\xefve\xff.txt`},
		{"550 a\x1b[2Jb", 100, `550 a\x1b[2Jb`},
		{"with\ttab", 100, "with\ttab"},
		{"RETR 0123456789", 10, "RETR 01234"},
	} {
		if got := Escape(c.in, c.max); got != c.want {
			t.Errorf("Escape(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// TestClean: what a name or a listing line becomes on the terminal:
// control characters (C0, DEL, C1) '?', each byte that is not UTF-8 \xNN
// (as "ls -b" writes it), the rest as it is.
func TestListing(t *testing.T) {
	for in, want := range map[string]string{
		"plain.txt":        "plain.txt",
		"café 日本 🙂":        "café 日本 🙂",
		"a\tb\nc":          "a\tb\nc",
		"esc\x1b[2J":       "esc?[2J",
		"del\x7f":          "del?",
		"csi\u009b2J":      "csi?2J",
		"caf\xe9.txt":      `caf\xe9.txt`,
		"na\xefve\xff.txt": `na\xefve\xff.txt`,
		"\x9b2J":           `\x9b2J`, // an 8-bit CSI is not UTF-8 either
		"\xe2\x82":         `\xe2\x82`,
		"\ufffd":           "\ufffd", // U+FFFD itself is a character
		"":                 "",
		// Bidirectional controls (UAX #9) and the line separators are
		// written as \uXXXX: "x\u202egpj.exe" would show as "xexe.jpg".
		"x\u202egpj.exe":              `x\u202egpj.exe`,
		"\u202a\u202b\u202c\u202d":    `\u202a\u202b\u202c\u202d`,
		"\u2066a\u2067b\u2068c\u2069": `\u2066a\u2067b\u2068c\u2069`,
		"\u200e\u200f\u061c":          `\u200e\u200f\u061c`,
		"a\u2028b\u2029c":             `a\u2028b\u2029c`,
		"zw\u200dj":                   "zw\u200dj", // a joiner is kept (emoji sequences)
	} {
		if got := Listing(in); got != want {
			t.Errorf("Listing(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"plain text":       "plain text",
		"a\x1b[2Jb":        "a?[2Jb",
		"tab\there":        "tab?here",
		"del\x7f":          "del?",
		"csi\u009b2J":      "csi?2J",
		"8-bit csi \x9b2J": "8-bit csi ?2J",
		"latin-1 caf\xe9":  "latin-1 caf\xe9",
		"caf\u00e9 \u202e": "caf\u00e9 \u202e",
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"user@example.com": "user@example.com",
		"caf\u00e9":        "caf\u00e9",
		"a\x1b[2Jb":        `"a\x1b[2Jb"`,
		"bad\xff":          `"bad\xff"`,
		"a b":              "a b",
		"\ufffd":           "\"\ufffd\"", // U+FFFD is printable, but stands for bytes lost
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStrip(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                     "plain",
		"550 \x1b[2Jgone\r\nDELE x": "550 [2JgoneDELE x",
		"nul\x00del\x7f":            "nuldel",
		"c1\u009bcsi":               "c1csi",
		"tab\tkept? no":             "tabkept? no",
		"ünïcode":                   "ünïcode",
	} {
		if got := Strip(in); got != want {
			t.Errorf("Strip(%q) = %q, want %q", in, got, want)
		}
	}
}
