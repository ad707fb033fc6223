// Package netrc reads .netrc files, the per-user file of login names and
// passwords that every driver of this module consults, so that one file
// reads the same way for every scheme.
//
// The format has no RFC. Its reference is the description of the .netrc
// file in the BSD ftp(1) manual page (section "THE .netrc FILE"; netrc(5)
// on some systems): tokens separated by white space, "machine NAME" or
// "default" opening an entry, "login NAME", "password STRING" and
// "account STRING" filling it, and "macdef NAME" introducing a macro whose
// body runs to the next empty line. Where this package deviates from it:
//
//   - As in curl and Python's netrc module, a token may be written in
//     double quotes, with a backslash escaping the byte after it, and a
//     '#' that starts a token starts a comment that runs to the end of the
//     line.
//   - Macro bodies are skipped, never run.
//   - Tokens the manual does not name are ignored, so that files written
//     for newer programs still work.
//   - ftp(1) requires "default" to come after every machine; here it may
//     stand anywhere, and the lookup rules are the caller's.
//   - Read does not check who may read the file; ftp(1) refuses a
//     password in a file that others can read.
package netrc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
)

// MaxSize is the largest file Read accepts, in bytes.
const MaxSize = 1 << 20

// ErrTooLarge is the error, inside an *fs.PathError, of a file larger than
// MaxSize.
var ErrTooLarge = errors.New("file larger than 1 MiB")

// Entry is one "machine" (or the "default") entry of a .netrc file.
type Entry struct {
	Machine  string // empty for the default entry
	Default  bool
	Login    string
	Password string
	Account  string
	// HasPassword reports a password token, even an empty one.
	HasPassword bool
}

// Error reports a malformed .netrc file: the line (counted from 1) and
// what is wrong. It never holds a token's value, so no password leaks
// through it.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse reads the entries of a .netrc file, in the order they appear. A
// malformed file (a keyword without its value, "login", "password" or
// "account" before any entry, an unterminated quoted token) gives an
// *Error and no entries.
func Parse(data string) ([]Entry, error) {
	s := &scanner{s: data, line: 1}
	var entries []Entry
	var cur *Entry
	for {
		tok, ok, err := s.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return entries, nil
		}
		switch tok {
		case "machine":
			name, err := s.value(tok)
			if err != nil {
				return nil, err
			}
			entries = append(entries, Entry{Machine: name})
			cur = &entries[len(entries)-1]
		case "default":
			entries = append(entries, Entry{Default: true})
			cur = &entries[len(entries)-1]
		case "login", "password", "account":
			at := s.line
			v, err := s.value(tok)
			if err != nil {
				return nil, err
			}
			if cur == nil {
				return nil, &Error{at, tok + " before any machine or default"}
			}
			switch tok {
			case "login":
				cur.Login = v
			case "password":
				cur.Password, cur.HasPassword = v, true
			default:
				cur.Account = v
			}
		case "macdef":
			if _, err := s.value(tok); err != nil {
				return nil, err
			}
			s.skipMacro()
		default:
			// Unknown tokens are ignored, as ftp(1) does.
		}
	}
}

// Read reads and parses the file at path. A file that cannot be read
// gives the *fs.PathError of package os (so errors.Is(err,
// fs.ErrNotExist) reports a missing file), one larger than MaxSize an
// *fs.PathError wrapping ErrTooLarge, and a malformed one the *Error of
// Parse, which does not name the file.
func Read(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrTooLarge}
	}
	return Parse(string(b))
}

// scanner splits a .netrc file into tokens and counts its lines.
type scanner struct {
	s    string
	i    int
	line int
}

func (s *scanner) skipSpace() {
	for s.i < len(s.s) && isSpace(s.s[s.i]) {
		if s.s[s.i] == '\n' {
			s.line++
		}
		s.i++
	}
}

// next returns the next token; ok is false at the end of the input.
func (s *scanner) next() (tok string, ok bool, err error) {
	for {
		s.skipSpace()
		if s.i >= len(s.s) {
			return "", false, nil
		}
		if s.s[s.i] != '#' {
			break
		}
		for s.i < len(s.s) && s.s[s.i] != '\n' {
			s.i++
		}
	}
	if s.s[s.i] == '"' {
		open := s.line
		s.i++
		var b strings.Builder
		for s.i < len(s.s) {
			c := s.s[s.i]
			s.i++
			switch c {
			case '"':
				return b.String(), true, nil
			case '\\':
				if s.i < len(s.s) {
					c = s.s[s.i]
					s.i++
				}
			case '\n':
				s.line++
			}
			b.WriteByte(c)
		}
		return "", false, &Error{open, "unterminated quoted string"}
	}
	start := s.i
	for s.i < len(s.s) && !isSpace(s.s[s.i]) {
		s.i++
	}
	return s.s[start:s.i], true, nil
}

// value returns the token that must follow the keyword key. An error
// names the keyword's line (or the line where a quoted value opens), not
// the end of the file where the scanner stopped.
func (s *scanner) value(key string) (string, error) {
	at := s.line
	v, ok, err := s.next()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &Error{at, key + " without a value"}
	}
	return v, nil
}

// skipMacro skips a macdef body: the rest of the macdef line, then every
// line up to and including the next empty line (a lone CR counts as
// empty).
func (s *scanner) skipMacro() {
	for first := true; s.i < len(s.s); first = false {
		line, _, found := strings.Cut(s.s[s.i:], "\n")
		s.i += len(line)
		if found {
			s.i++
			s.line++
		}
		if !first && strings.TrimSuffix(line, "\r") == "" {
			return
		}
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
