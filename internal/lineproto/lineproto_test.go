package lineproto

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strings"
	"testing"
)

// RFC 959 section 4.2 (FTP) and RFC 3977 section 3.1 (NNTP): a reply's
// status line is three digits, then a space and text; RFC 959 marks the
// first line of a multi-line reply with "-" instead of the space.
func TestParseStatus(t *testing.T) {
	for _, tt := range []struct {
		line string
		code int
		text string
		ok   bool
	}{
		{"220 Service ready", 220, "Service ready", true},     // RFC 959 4.2
		{"200", 200, "", true},                                // RFC 3977 3.1: text is optional
		{"200 ", 200, "", true},                               // empty text
		{"211 3 1 3 misc.test", 211, "3 1 3 misc.test", true}, // RFC 3977 6.1.1
		{"123-First line", 0, "", false},                      // RFC 959 4.2: a multi-line reply's first line
		{"   Second line", 0, "", false},                      // RFC 959 4.2: a continuation line
		{"20", 0, "", false},                                  // too short
		{"2x0 text", 0, "", false},                            // not digits
		{"2000 text", 0, "", false},                           // four digits
		{"", 0, "", false},
		{"999 beyond", 999, "beyond", true}, // the range is the caller's to check
	} {
		code, text, ok := ParseStatus([]byte(tt.line))
		if code != tt.code || text != tt.text || ok != tt.ok {
			t.Errorf("ParseStatus(%q) = %d, %q, %v; want %d, %q, %v", tt.line, code, text, ok, tt.code, tt.text, tt.ok)
		}
	}
}

// FuzzParseStatus: an accepted line is its code written in three digits,
// then, when there was more, a space and the text (RFC 959 section 4.2,
// RFC 3977 section 3.1): nothing is lost or added. On a line of four bytes
// or more, it agrees with net/textproto's ReadCodeLine, which also takes a
// sign in the code ("+12 x") and a "-" where RFC 959 starts a multi-line
// reply, both refused here.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("220 Service ready"))
	f.Add([]byte("200"))
	f.Add([]byte("123-First line"))
	f.Add([]byte("+12 signed"))
	f.Add([]byte("099 low"))
	f.Fuzz(func(t *testing.T, line []byte) {
		code, text, ok := ParseStatus(line)
		if ok {
			back := fmt.Sprintf("%03d", code)
			if len(line) > 3 {
				back += " " + text
			}
			if code < 0 || code > 999 || back != string(line) {
				t.Fatalf("ParseStatus(%q) = %d, %q: written back %q", line, code, text, back)
			}
		} else if code != 0 || text != "" {
			t.Fatalf("ParseStatus(%q) = %d, %q, false", line, code, text)
		}
		agreeWithTextproto(t, line, code, text, ok)
	})
}

// agreeWithTextproto: on a line of four bytes or more without CR or LF,
// ParseStatus's result agrees with net/textproto's ReadCodeLine (see
// FuzzParseStatus).
func agreeWithTextproto(t *testing.T, line []byte, code int, text string, ok bool) {
	t.Helper()
	if len(line) < 4 || bytes.ContainsAny(line, "\r\n") {
		return
	}
	tcode, tmsg, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(bytes.Clone(line), '\n')))).ReadCodeLine(0)
	switch tok := err == nil; {
	case ok && code >= 100 && (!tok || tcode != code || tmsg != text): // textproto refuses codes below 100
		t.Fatalf("ParseStatus(%q) = %d, %q; textproto %d, %q, %v", line, code, text, tcode, tmsg, err)
	case !ok && tok && line[3] == ' ' && isDigit(line[0]) && isDigit(line[1]) && isDigit(line[2]):
		t.Fatalf("ParseStatus(%q) refused what textproto reads as %d, %q", line, tcode, tmsg)
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// TestReadLine: lines end with CR LF (RFC 959 section 4.2, RFC 3977
// section 3.1) or, as many servers send, LF alone; the limit counts the
// bytes before the line end.
func TestReadLine(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		max      int
		want     []string
		err      error // after the lines
	}{
		{"CR LF", "200 a\r\n201 b\r\n", 8, []string{"200 a", "201 b"}, io.ErrUnexpectedEOF},
		{"LF alone", "200 a\n", 8, []string{"200 a"}, io.ErrUnexpectedEOF},
		{"at the limit", "12345678\r\n", 8, []string{"12345678"}, io.ErrUnexpectedEOF},
		{"over the limit", "123456789\r\n", 8, nil, &TooLongError{}},
		{"over the limit, no end", strings.Repeat("x", 100), 8, nil, &TooLongError{}},
		{"cut inside a line", "200 a\r\n20", 8, []string{"200 a"}, io.ErrUnexpectedEOF},
		{"bare CR kept", "a\rb\r\n", 8, []string{"a\rb"}, io.ErrUnexpectedEOF},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), tt.max)
			var got []string
			var err error
			for range 10 {
				var line []byte
				if line, err = r.ReadLine(); err != nil {
					break
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
			var tl *TooLongError
			if _, want := tt.err.(*TooLongError); want {
				if !errors.As(err, &tl) || tl.Max != tt.max {
					t.Errorf("error %v, want a *TooLongError naming %d", err, tt.max)
				}
			} else if !errors.Is(err, tt.err) {
				t.Errorf("error %v, want %v", err, tt.err)
			}
		})
	}
}

// TestTooLongMessage: the error names the limit.
func TestTooLongMessage(t *testing.T) {
	if got := (&TooLongError{Max: 512}).Error(); got != "line longer than 512 bytes" {
		t.Errorf("Error() = %q", got)
	}
}

// RFC 3977 section 3.1.1: a multi-line block ends with a line holding
// "." alone; a line that begins with "." was stuffed with one more, which
// the reader takes off.
func TestReadBlockLine(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     []string
		err      error
	}{
		{"plain", "a\r\nb\r\n.\r\nafter", []string{"a", "b"}, nil},
		{"stuffed", "..a\r\n...\r\n..\r\n.\r\n", []string{".a", "..", "."}, nil},
		{"one dot taken from any line", ".x\r\n.\r\n", []string{"x"}, nil},
		{"empty block", ".\r\n", nil, nil},
		{"LF alone", "a\n.\n", []string{"a"}, nil},
		{"no end", "a\r\nb\r\n", []string{"a", "b"}, io.ErrUnexpectedEOF},
		{"too long", "a\r\n" + strings.Repeat("x", 17) + "\r\n.\r\n", []string{"a"}, &TooLongError{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.in), 16)
			var got []string
			var err error
			for range 10 {
				line, end, e := r.ReadBlockLine()
				if err = e; e != nil || end {
					break
				}
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
			var tl *TooLongError
			switch {
			case tt.err == nil && err != nil:
				t.Errorf("error %v", err)
			case tt.err != nil && !errors.Is(err, tt.err) && !errors.As(err, &tl):
				t.Errorf("error %v, want %v", err, tt.err)
			}
		})
	}
}

// FuzzReadBlockLine: what Stuff writes, ReadBlockLine reads back line by
// line (RFC 3977 section 3.1.1): every line of the text in order, without
// its line end, none lost or added; then the "." line, and the reader
// stops there, leaving what follows.
func FuzzReadBlockLine(f *testing.F) {
	f.Add([]byte("a\r\n.b\r\n..\r\n.\r\n"))
	f.Add([]byte(".\n..\r"))
	f.Add([]byte("\r\n\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		var want [][]byte
		for l := range bytes.Lines(text) {
			want = append(want, TrimEnd(l))
		}
		r := NewReader(bytes.NewReader(append(Stuff(nil, text), "after"...)), len(text)+len("after"))
		for i := 0; ; i++ {
			line, end, err := r.ReadBlockLine()
			switch {
			case err != nil:
				t.Fatalf("line %d of %q: %v", i, text, err)
			case end != (i == len(want)):
				t.Fatalf("line %d of %q: end %v after %d lines", i, text, end, len(want))
			case end:
				if rest, err := r.ReadRaw(); string(rest) != "after" || err != io.EOF {
					t.Fatalf("after the block: %q, %v", rest, err)
				}
				return
			case !bytes.Equal(line, want[i]):
				t.Fatalf("line %d of %q: %q, want %q", i, text, line, want[i])
			}
		}
	})
}

// TestDotReader: RFC 3977 section 3.1.1 and RFC 1436 section 3.8 (a text
// ends with "." on a line alone, lines beginning with "." doubled).
func TestDotReader(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		s        Stuffing
		want     string
		cut      bool
	}{
		{"raw keeps stuffing and CR LF", "a\r\n..b\r\n.\r\nafter", Raw, "a\r\n..b\r\n", false},
		{"double dots lose one", "a\r\n..b\r\n...\r\n.\r\n", DoubleDots, "a\r\n.b\r\n..\r\n", false},
		{"a lone dot kept whole (.profile)", ".profile\r\n.\r\n", DoubleDots, ".profile\r\n", false},
		{"LF alone ends too", "a\n.\n", Raw, "a\n", false},
		{"a dot inside a line", "a.\r\n.\r\n", Raw, "a.\r\n", false},
		{"a long line's part is no line start", strings.Repeat("x", 16) + ".\r\n.\r\n", Raw, strings.Repeat("x", 16) + ".\r\n", false},
		{"long stuffed line", ".." + strings.Repeat("x", 30) + "\r\n.\r\n", DoubleDots, "." + strings.Repeat("x", 30) + "\r\n", false},
		{"text: CR LF to LF, every leading dot taken", "a\r\n..b\r\n.c\n\r\n.\r\n", Text, "a\n.b\nc\n\n", false},
		{"text: an empty line of LF alone", "a\n\n.\nafter", Text, "a\n\n", false},
		{"text: a bare CR kept", "a\rb\r\r\n.\r\n", Text, "a\rb\r\n", false},
		{"text: CR LF across the buffer's end", strings.Repeat("x", 15) + "\r\n.\r\n", Text, strings.Repeat("x", 15) + "\n", false},
		{"cut", "a\r\nb", Raw, "a\r\nb", true},
		{"cut after a line end", "a\r\n", DoubleDots, "a\r\n", true},
		{"a dot without its end is no end", "a\r\n.", Raw, "a\r\n.", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := io.ReadAll(NewDotReader(bufio.NewReaderSize(strings.NewReader(tt.in), 16), tt.s))
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if cut := errors.Is(err, io.ErrUnexpectedEOF); cut != tt.cut || err != nil && !cut {
				t.Errorf("error %v, want cut %v", err, tt.cut)
			}
		})
	}
}

// TestDotReaderCut: the error of a block cut short is the caller's.
func TestDotReaderCut(t *testing.T) {
	errCut := errors.New("cut")
	d := NewDotReader(bufio.NewReader(strings.NewReader("a\r\n")), Raw)
	d.Cut = errCut
	if _, err := io.ReadAll(d); !errors.Is(err, errCut) {
		t.Errorf("error %v, want %v", err, errCut)
	}
}

// TestDotReaderPrompt: a line is handed on as soon as it has arrived,
// before the block ends.
func TestDotReaderPrompt(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.WriteString(pw, "first\r\n")
	d := NewDotReader(bufio.NewReader(pr), Raw)
	buf := make([]byte, 64)
	n, err := d.Read(buf)
	if err != nil || string(buf[:n]) != "first\r\n" {
		t.Errorf("Read = %q, %v", buf[:n], err)
	}
}

// TestTrace: the transcript hides every password: the argument of PASS
// and ACCT (RFC 959 section 4.1.1), of AUTHINFO PASS (RFC 4643 section
// 2.3), and the password wherever a server echoes it.
func TestTrace(t *testing.T) {
	var b strings.Builder
	tr := Trace{W: &b, Secret: "hunter2"}
	tr.Sent("USER ann")
	tr.Sent("PASS hunter2")
	tr.Sent("pass hunter2")
	tr.Sent("ACCT hunter2")
	tr.Sent("AUTHINFO USER ann")
	tr.Sent("AUTHINFO PASS hunter2")
	tr.Sent("authinfo pass hunter2")
	tr.Sent("AUTHINFO PASSWORD")       // no such command: shown, and the secret still hidden
	tr.SentData("pass the selector")   // a gopher selector is no command
	tr.SentData("a form line hunter2") // yet the secret is hidden
	tr.Received("230 welcome hunter2", 19)
	tr.Received("220 \x1b[2Jclear", 14)
	tr.Received(strings.Repeat("x", TraceMax+1), 9000)
	tr.Note("logged in as %s with %s", "ann", "hunter2")
	want := "> USER ann\n" +
		"> PASS ****\n" +
		"> PASS ****\n" +
		"> ACCT ****\n" +
		"> AUTHINFO USER ann\n" +
		"> AUTHINFO PASS ****\n" +
		"> AUTHINFO PASS ****\n" +
		"> AUTHINFO PASSWORD\n" +
		"> pass the selector\n" +
		"> a form line ****\n" +
		"< 230 welcome ****\n" +
		"< 220 \\x1b[2Jclear\n" +
		"< " + strings.Repeat("x", TraceMax) + "... (9000 bytes)\n" +
		"* logged in as ann with ****\n"
	if b.String() != want {
		t.Errorf("trace:\n%s\nwant:\n%s", b.String(), want)
	}
	if strings.Contains(b.String(), "hunter2") {
		t.Error("the password reached the trace")
	}
	Trace{}.Sent("PASS x") // a nil writer writes nothing
}

// TestShown: commands as errors show them.
func TestShown(t *testing.T) {
	for in, want := range map[string]string{
		"PASS secret":         "PASS ****",
		"PASS":                "PASS ****",
		"Acct x y":            "ACCT ****",
		"AUTHINFO PASS s e c": "AUTHINFO PASS ****",
		"AUTHINFO pass":       "AUTHINFO PASS ****",
		"AUTHINFO USER ann":   "AUTHINFO USER ann",
		"RETR passwords.txt":  "RETR passwords.txt",
		"PASSIVE":             "PASSIVE",
		"AUTHINFO SASL PLAIN": "AUTHINFO SASL PLAIN",
		"AUTHINFO PASSx y":    "AUTHINFO PASSx y",
	} {
		if got := Shown(in); got != want {
			t.Errorf("Shown(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedactShort: a password of fewer than three bytes is not searched
// for, lest it blank out ordinary text.
func TestRedactShort(t *testing.T) {
	if got := (Trace{Secret: "ab"}).Redact("about"); got != "about" {
		t.Errorf("Redact = %q", got)
	}
	if got := (Trace{Secret: "abc"}).Redact("abcd"); got != "****d" {
		t.Errorf("Redact = %q", got)
	}
}

// TestCut: lines in memory, bounded as the Reader bounds them.
func TestCut(t *testing.T) {
	line, rest, err := Cut([]byte("ab\r\ncd"), 2)
	if string(line) != "ab\r\n" || string(rest) != "cd" || err != nil {
		t.Errorf("Cut = %q, %q, %v", line, rest, err)
	}
	line, rest, err = Cut([]byte("cd"), 2)
	if string(line) != "cd" || rest != nil || err != nil {
		t.Errorf("Cut = %q, %q, %v", line, rest, err)
	}
	var tl *TooLongError
	if _, _, err := Cut([]byte("abc\n"), 2); !errors.As(err, &tl) || tl.Max != 2 {
		t.Errorf("Cut over the limit: %v", err)
	}
}

// FuzzDotReader: Raw gives the input up to its first "." line (one that
// begins a line), which follows it, or without one a prefix of the input
// and io.ErrUnexpectedEOF; DoubleDots gives the same lines, those that
// begin with ".." losing one dot.
func FuzzDotReader(f *testing.F) {
	f.Add([]byte("a\r\n..b\r\n.\r\nafter"))
	f.Add([]byte(".\n"))
	f.Add([]byte("xxxxxxxxxxxxxxxxxxxx.\r\n.\r\n"))
	f.Add([]byte("..xxxxxxxxxxxxxxxxxxxxxxxxxx\r\n.\r\n"))
	f.Add([]byte("no end"))
	f.Fuzz(func(t *testing.T, in []byte) {
		raw, err := io.ReadAll(NewDotReader(bufio.NewReaderSize(bytes.NewReader(in), 16), Raw))
		if !bytes.HasPrefix(in, raw) {
			t.Fatalf("output %q is not a prefix of the input %q", raw, in)
		}
		for _, l := range bytes.SplitAfter(raw, []byte("\n")) {
			if string(l) == ".\r\n" || string(l) == ".\n" {
				t.Fatalf("output %q holds a \".\" line", raw)
			}
		}
		if err != nil {
			if !errors.Is(err, io.ErrUnexpectedEOF) || len(raw) != len(in) {
				t.Fatalf("error %v after %d of %d bytes", err, len(raw), len(in))
			}
		} else {
			rest := in[len(raw):]
			if !bytes.HasPrefix(rest, []byte(".\r\n")) && !bytes.HasPrefix(rest, []byte(".\n")) {
				t.Fatalf("output %q is not followed by a \".\" line: %q", raw, rest)
			}
		}
		var want []byte
		for _, l := range bytes.SplitAfter(raw, []byte("\n")) {
			if bytes.HasPrefix(l, []byte("..")) {
				l = l[1:]
			}
			want = append(want, l...)
		}
		got, err2 := io.ReadAll(NewDotReader(bufio.NewReaderSize(bytes.NewReader(in), 16), DoubleDots))
		if !bytes.Equal(got, want) || (err == nil) != (err2 == nil) {
			t.Fatalf("DoubleDots %q, %v; want %q, %v", got, err2, want, err)
		}
	})
}

// TestStuff: RFC 3977 section 3.1.1 and RFC 1436 section 3.8: a line that
// begins with "." gets another, and a "." line ends the block.
func TestStuff(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\n.b\r\n..\r\n": "a\r\n..b\r\n...\r\n.\r\n",
		"a\n.\n":            "a\n..\n.\r\n",
		"no end":            "no end\r\n.\r\n",
		"":                  ".\r\n",
	} {
		if got := string(Stuff([]byte("x"), []byte(in))); got != "x"+want {
			t.Errorf("Stuff(%q) = %q, want %q", in, got, "x"+want)
		}
	}
}

// FuzzStuff: what Stuff writes, Text and DoubleDots read back: the text,
// with CR LF (Text) or as it was (DoubleDots) but for the line end given
// to a last line without one.
func FuzzStuff(f *testing.F) {
	f.Add([]byte("a\r\n.b\r\n..\r\n.\r\n"))
	f.Add([]byte(".\n.."))
	f.Fuzz(func(t *testing.T, text []byte) {
		block := Stuff(nil, text)
		want := text
		if len(text) > 0 && text[len(text)-1] != '\n' {
			want = append(bytes.Clone(text), '\r', '\n')
		}
		got, err := io.ReadAll(NewDotReader(bufio.NewReaderSize(bytes.NewReader(block), 16), DoubleDots))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("DoubleDots read %q, %v; want %q", got, err, want)
		}
		if bytes.IndexByte(text, '\r') >= 0 {
			return // Text changes CR LF, and a CR before it, as textproto does
		}
		got, err = io.ReadAll(NewDotReader(bufio.NewReaderSize(bytes.NewReader(block), 16), Text))
		if want := bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n")); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Text read %q, %v; want %q", got, err, want)
		}
	})
}

// FuzzDotText: Text decodes as net/textproto's DotReader (RFC 3977
// section 3.1.1); of a block cut short, it may keep a CR that textproto
// drops. textproto takes the line after an empty line that ends in LF
// alone for the middle of a line (it would read past "a\n\n.\n"): such
// input is left out.
func FuzzDotText(f *testing.F) {
	f.Add([]byte("a\r\n..b\r\n.\r\nafter"))
	f.Add([]byte("xxxxxxxxxxxxxxx\r\n.\r\n"))
	f.Add([]byte(".x\r\r\n\r.\r\n"))
	f.Add([]byte("a\r"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.HasPrefix(in, []byte("\n")) || bytes.Contains(in, []byte("\n\n")) {
			return
		}
		want, werr := io.ReadAll(textproto.NewReader(bufio.NewReaderSize(bytes.NewReader(in), 16)).DotReader())
		got, err := io.ReadAll(NewDotReader(bufio.NewReaderSize(bytes.NewReader(in), 16), Text))
		if (err == nil) != (werr == nil) || err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("error %v, textproto's %v", err, werr)
		}
		if !bytes.Equal(got, want) && (err == nil || !bytes.Equal(got, append(want, '\r'))) {
			t.Fatalf("%q gives %q, textproto %q", in, got, want)
		}
	})
}

// FuzzReader: the lines read, with their ends, are the input in order,
// none longer than the limit; reading stops at the end of the input or
// at a line over the limit.
func FuzzReader(f *testing.F) {
	f.Add([]byte("200 a\r\n201 b\n"), 8)
	f.Add([]byte("123456789\r\n"), 8)
	f.Add([]byte("x\r"), 1)
	f.Fuzz(func(t *testing.T, in []byte, limit int) {
		limit = 1 + abs(limit)%64
		r := NewReader(bytes.NewReader(in), limit)
		var seen []byte
		for range len(in) + 1 {
			line, err := r.ReadRaw()
			seen = append(seen, line...)
			if len(TrimEnd(line)) > limit {
				t.Fatalf("line %q over the limit %d", line, limit)
			}
			if !bytes.HasPrefix(in, seen) {
				t.Fatalf("read %q, not a prefix of %q", seen, in)
			}
			var tl *TooLongError
			switch {
			case errors.As(err, &tl):
				next, _, found := bytes.Cut(in[len(seen):], []byte("\n"))
				if found {
					next = bytes.TrimSuffix(next, []byte("\r"))
				}
				if len(next) <= limit || tl.Max != limit {
					t.Fatalf("too long at %q, limit %d (%d)", next, limit, tl.Max)
				}
				return
			case err == io.EOF:
				if len(seen) != len(in) {
					t.Fatalf("end after %d of %d bytes", len(seen), len(in))
				}
				return
			case err != nil:
				t.Fatal(err)
			case len(line) == 0 || line[len(line)-1] != '\n':
				t.Fatalf("line %q without its end", line)
			}
		}
		t.Fatal("no end")
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// FuzzTrace: a password of three bytes or more never reaches the
// transcript, whatever the lines around it. Its letters are drawn from
// those no escape (\x1b, \u2028, \U0001f600) and no fixed text of the
// transcript (PASS ****, AUTHINFO, "(9000 bytes)") can make up.
func FuzzTrace(f *testing.F) {
	f.Add("hunter", "230 welcome hunter\x1b[2J")
	f.Add("QQQ", "QQQQQQQ\r\n")
	f.Add("PASS", "AUTHINFO PASS x")
	f.Fuzz(func(t *testing.T, seed, line string) {
		const letters = "GHIJKLMNOPQRSTVWXYZ"
		pw := []byte(seed)
		for i, c := range pw {
			pw[i] = letters[int(c)%len(letters)]
		}
		if len(pw) < 3 || strings.Contains("AUTHINFO PASS ACCT", string(pw)) {
			return
		}
		var b strings.Builder
		tr := Trace{W: &b, Secret: string(pw)}
		for _, l := range []string{line, line + string(pw), string(pw) + line} {
			tr.Sent(l)
			tr.SentData(l)
			tr.Received(l, len(l)+len(line))
			tr.Note("%s %s", l, pw)
		}
		tr.Sent("PASS " + string(pw))
		tr.Sent("AUTHINFO PASS " + string(pw))
		if strings.Contains(b.String(), string(pw)) {
			t.Fatalf("password %q shown in the trace of %q:\n%s", pw, line, b.String())
		}
	})
}
