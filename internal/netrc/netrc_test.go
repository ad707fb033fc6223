package netrc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// parseTests: the format is the one the BSD ftp(1) manual page describes
// in "THE .netrc FILE" (there is no RFC); rows marked curl/Python cover
// the extensions this package shares with curl and Python's netrc module.
var parseTests = []struct {
	name string
	in   string
	want []Entry
}{
	// ftp(1): tokens separated by spaces, tabs or newlines.
	{"one line", "machine ftp.example.org login alice password secret",
		[]Entry{{Machine: "ftp.example.org", Login: "alice", Password: "secret", HasPassword: true}}},
	// ftp(1): an entry runs to the next machine or default; account is kept.
	{"several lines", "machine a\n\tlogin u\n\tpassword p\n\naccount acc\ndefault login anonymous password me@",
		[]Entry{{Machine: "a", Login: "u", Password: "p", HasPassword: true, Account: "acc"}, {Default: true, Login: "anonymous", Password: "me@", HasPassword: true}}},
	// ftp(1): default is an entry of its own, whose values do not leak
	// into the machine before it.
	{"values after default do not leak into the previous machine", "machine a login u\ndefault password leak",
		[]Entry{{Machine: "a", Login: "u"}, {Default: true, Password: "leak", HasPassword: true}}},
	// ftp(1): the other white space that separates tokens here.
	{"form feed and vertical tab", "machine\fa\vlogin\r\nu",
		[]Entry{{Machine: "a", Login: "u"}}},
	// ftp(1): macdef's body runs to the next empty line and is skipped.
	{"macdef", "machine a login u password p\nmacdef init\nmachine evil password x\nbin\n\nmachine b login v password q",
		[]Entry{{Machine: "a", Login: "u", Password: "p", HasPassword: true}, {Machine: "b", Login: "v", Password: "q", HasPassword: true}}},
	// ftp(1): a macro body ends at an empty line even with CR LF line ends.
	{"macdef with CR LF", "macdef init\r\nmachine fake\r\n\r\nmachine real login yes\r\n",
		[]Entry{{Machine: "real", Login: "yes"}}},
	// ftp(1): a macro body without an empty line runs to the end.
	{"macdef to the end", "machine a password p\nmacdef init\ncd /pub\nmachine b password q",
		[]Entry{{Machine: "a", Password: "p", HasPassword: true}}},
	// curl/Python: quoted tokens with backslash escapes; comments.
	{"quoted", "# my hosts\nmachine a login \"u s\" password \"p\\\"w d\" # trailing",
		[]Entry{{Machine: "a", Login: "u s", Password: "p\"w d", HasPassword: true}}},
	// curl/Python: any token may be quoted, the machine name too.
	{"quoted tokens", `machine "a b" login "x\"y" password "p w"`,
		[]Entry{{Machine: "a b", Login: `x"y`, Password: "p w", HasPassword: true}}},
	// curl/Python: a '#' inside a token is part of it.
	{"hash inside a token", "machine a password p#q",
		[]Entry{{Machine: "a", Password: "p#q", HasPassword: true}}},
	// ftp(1): a password token, even an empty one, is a password.
	{"empty password", `machine a login u password ""`,
		[]Entry{{Machine: "a", Login: "u", Password: "", HasPassword: true}}},
	// ftp(1) ignores tokens it does not know.
	{"unknown tokens", "machine a port 21 login u password p",
		[]Entry{{Machine: "a", Login: "u", Password: "p", HasPassword: true}}},
	{"empty", "", nil},
	{"only a comment", "# nothing here", nil},
}

func TestParse(t *testing.T) {
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

// TestParseCommentedMachine: a commented-out entry is no entry (curl and
// Python; the lenient parser proto/nntp once had read it as one).
func TestParseCommentedMachine(t *testing.T) {
	for _, in := range []string{
		"# machine x login y password z",
		"# machine x login y password z\n",
		"#machine x login y password z\n",
		"  # machine x login y password z\r\n",
	} {
		got, err := Parse(in)
		if err != nil || got != nil {
			t.Errorf("Parse(%q) = %+v, %v, want no entries", in, got, err)
		}
	}
}

var parseErrorTests = []struct {
	name string
	in   string
	line int
}{
	// ftp(1): machine, login, password, account and macdef take a value.
	{"machine without a name", "machine", 1},
	{"login without a value", "machine a login", 1},
	{"value missing on a later line", "machine a\nlogin u\npassword", 3},
	// A missing value is reported on its keyword's line, not at the end
	// of the file where the scanner stopped.
	{"value missing before empty lines", "machine a\npassword\n\n", 2},
	{"login before any machine, value on the next line", "# x\nlogin\nu", 2},
	{"macdef without a name", "machine a\nmacdef", 2},
	// ftp(1): login and the rest belong to a machine or default.
	{"login before any machine", "login u password p", 1},
	{"after a comment", "# hosts\n\nlogin u", 3},
	// curl/Python: a quoted token must end.
	{"unterminated quote", `machine a password "unfinished`, 1},
	// The line where the quote opens.
	{"unterminated quote over lines", "machine a password \"un\nfinished\n", 1},
	// The line count goes on after a macro body.
	{"after a macro", "machine a password p\nmacdef m\nx\ny\n\nlogin", 6},
	// A parse error after a password token does not give the password away.
	{"after a password", "machine a login u password hunter2\nmachine", 2},
	{"quoted password then bad token", "machine a password \"hunter2 x\" account", 1},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			var e *Error
			if !errors.As(err, &e) || got != nil {
				t.Fatalf("Parse(%q) = %+v, %v, want an *Error", tt.in, got, err)
			}
			if e.Line != tt.line {
				t.Errorf("Parse(%q) error on line %d, want %d", tt.in, e.Line, tt.line)
			}
			// Not a match against the error's text: the text is the
			// thing under test, and it must not carry the password.
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Parse(%q) error %q shows the password", tt.in, err)
			}
		})
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}

	t.Run("file", func(t *testing.T) {
		path := write("good", "machine a login u password p\n")
		got, err := Read(path)
		want := []Entry{{Machine: "a", Login: "u", Password: "p", HasPassword: true}}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("Read(%q) = %+v, %v, want %+v", path, got, err, want)
		}
	})
	t.Run("missing", func(t *testing.T) {
		path := filepath.Join(dir, "absent")
		if _, err := Read(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Read(%q) = %v, want fs.ErrNotExist", path, err)
		}
	})
	t.Run("malformed", func(t *testing.T) {
		path := write("bad", "machine a password hunter2\n\nlogin")
		_, err := Read(path)
		var e *Error
		if !errors.As(err, &e) || e.Line != 3 {
			t.Fatalf("Read(%q) = %v, want an *Error on line 3", path, err)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Read(%q) error %q shows the password", path, err)
		}
	})
	t.Run("MaxSize bytes", func(t *testing.T) {
		path := write("max", "machine a password p\n"+strings.Repeat(" ", MaxSize-21))
		if got, err := Read(path); err != nil || len(got) != 1 {
			t.Errorf("Read of %d bytes = %+v, %v, want one entry", MaxSize, got, err)
		}
	})
	t.Run("too large", func(t *testing.T) {
		path := write("big", strings.Repeat(" ", MaxSize)+"machine a password p\n")
		got, err := Read(path)
		if !errors.Is(err, ErrTooLarge) || got != nil {
			t.Errorf("Read of %d bytes = %+v, %v, want ErrTooLarge", MaxSize+21, got, err)
		}
	})
}

// write writes entries back as a .netrc file, every token quoted.
func write(entries []Entry) string {
	q := func(s string) string {
		return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	var b strings.Builder
	for _, e := range entries {
		if e.Default {
			b.WriteString("default")
		} else {
			b.WriteString("machine " + q(e.Machine))
		}
		if e.Login != "" {
			b.WriteString(" login " + q(e.Login))
		}
		if e.HasPassword {
			b.WriteString(" password " + q(e.Password))
		}
		if e.Account != "" {
			b.WriteString(" account " + q(e.Account))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// FuzzParse: parsing never panics; an error names a line of the input and
// none of its values; entries are consistent (a default has no machine
// name, a value only with its token); a parsed file written back (every
// token quoted) parses to the same entries; and a commented-out entry in
// front changes nothing but the error's line.
func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.in)
	}
	for _, tt := range parseErrorTests {
		f.Add(tt.in)
	}
	// Escapes inside quotes, after a macro body of empty lines.
	f.Add("macdef x\n\n\nmachine \"a\\\\b\" password \"\\\"\"")
	// The seed of proto/nntp's FuzzParseReplies, from when it parsed .netrc.
	f.Add("machine a login b password \"c\\\"d\"\nmacdef x\nm\n\ndefault login e")
	// The messages an *Error may hold: none carries a byte of the input.
	fixedMsgs := map[string]bool{"unterminated quoted string": true}
	for _, k := range []string{"machine", "login", "password", "account", "macdef"} {
		fixedMsgs[k+" without a value"] = true
		fixedMsgs[k+" before any machine or default"] = k != "machine" && k != "macdef"
	}
	f.Fuzz(func(t *testing.T, in string) {
		entries, err := Parse(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || entries != nil {
				t.Fatalf("Parse(%q) = %+v, %v, want an *Error and no entries", in, entries, err)
			}
			if lines := strings.Count(in, "\n") + 1; e.Line < 1 || e.Line > lines {
				t.Errorf("Parse(%q) error on line %d of %d", in, e.Line, lines)
			}
			if !fixedMsgs[e.Msg] {
				t.Errorf("Parse(%q) error message %q is not one of the fixed ones", in, e.Msg)
			}
		}
		for _, e := range entries {
			if e.Default && e.Machine != "" || !e.HasPassword && e.Password != "" {
				t.Errorf("Parse(%q) gave the inconsistent entry %+v", in, e)
			}
		}
		if err == nil {
			again := write(entries)
			got, err := Parse(again)
			if err != nil || !reflect.DeepEqual(got, entries) {
				t.Errorf("Parse(%q) = %+v; written back as %q it parses to %+v, %v", in, entries, again, got, err)
			}
		}
		got, err2 := Parse("# machine x login y password z\n" + in)
		if !reflect.DeepEqual(got, entries) || (err == nil) != (err2 == nil) {
			t.Fatalf("Parse(%q) = %+v, %v; with a commented-out entry in front: %+v, %v", in, entries, err, got, err2)
		}
		var e, e2 *Error
		if errors.As(err, &e) && errors.As(err2, &e2) && (e2.Line != e.Line+1 || e2.Msg != e.Msg) {
			t.Errorf("Parse(%q) error %v; with a comment line in front: %v", in, err, err2)
		}
	})
}
