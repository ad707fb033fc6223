package ftp

import (
	"fmt"
	"os"
	"strings"
)

// netrcEntry is one machine (or the default) of a .netrc file.
type netrcEntry struct {
	Machine  string // empty for the default entry
	Default  bool
	Login    string
	Password string
	Account  string
	// HasPassword reports a password token, even an empty one.
	HasPassword bool
}

// NetrcError reports a malformed .netrc file: the line and what is wrong.
type NetrcError struct {
	Line int
	Msg  string
}

func (e *NetrcError) Error() string { return fmt.Sprintf("ftp: netrc line %d: %s", e.Line, e.Msg) }

// parseNetrc reads a .netrc file as the BSD ftp(1) manual describes it:
// whitespace-separated tokens "machine NAME", "default", "login NAME",
// "password PASSWORD", "account PASSWORD" and "macdef NAME" (whose macro
// body, the lines up to the next empty line, is skipped). As in curl and
// Python's netrc module, a token may be written in double quotes with
// backslash escapes, and a '#' that starts a token starts a comment that
// runs to the end of the line.
func parseNetrc(data string) ([]netrcEntry, error) {
	s := &netrcScanner{s: data, line: 1}
	var entries []netrcEntry
	var cur *netrcEntry
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
			entries = append(entries, netrcEntry{Machine: name})
			cur = &entries[len(entries)-1]
		case "default":
			entries = append(entries, netrcEntry{Default: true})
			cur = &entries[len(entries)-1]
		case "login", "password", "account":
			v, err := s.value(tok)
			if err != nil {
				return nil, err
			}
			if cur == nil {
				return nil, &NetrcError{s.line, tok + " before any machine or default"}
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
			// Unknown tokens are ignored, as ftp(1) does, so that files
			// written for newer programs still work.
		}
	}
}

// lookupNetrc returns the password for user on host: from the first
// "machine host" entry with a password whose login is user (or which names
// no login), else from a "default" entry that fits the same way. Host names compare without
// regard to case.
func lookupNetrc(entries []netrcEntry, host, user string) (string, bool) {
	for _, def := range []bool{false, true} {
		for _, e := range entries {
			if e.Default != def || !def && !strings.EqualFold(e.Machine, host) {
				continue
			}
			if e.Login != "" && e.Login != user {
				continue
			}
			if !e.HasPassword {
				continue
			}
			return e.Password, true
		}
	}
	return "", false
}

// readNetrc loads and parses the file at path.
func readNetrc(path string) ([]netrcEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("ftp: netrc: %w", err)
	}
	return parseNetrc(string(b))
}

type netrcScanner struct {
	s    string
	i    int
	line int
}

func (s *netrcScanner) skipSpace() {
	for s.i < len(s.s) {
		switch s.s[s.i] {
		case '\n':
			s.line++
		case ' ', '\t', '\r', '\f', '\v':
		default:
			return
		}
		s.i++
	}
}

// next returns the next token; ok is false at the end of the input.
func (s *netrcScanner) next() (tok string, ok bool, err error) {
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
		return "", false, &NetrcError{s.line, "unterminated quoted string"}
	}
	start := s.i
	for s.i < len(s.s) && !isNetrcSpace(s.s[s.i]) {
		s.i++
	}
	return s.s[start:s.i], true, nil
}

// value returns the token that must follow the keyword key.
func (s *netrcScanner) value(key string) (string, error) {
	v, ok, err := s.next()
	if err != nil {
		return "", err
	}
	if !ok {
		return "", &NetrcError{s.line, key + " without a value"}
	}
	return v, nil
}

// skipMacro skips a macdef body: the rest of the macdef line, then every
// line up to and including the next empty line.
func (s *netrcScanner) skipMacro() {
	if j := strings.IndexByte(s.s[s.i:], '\n'); j >= 0 {
		s.i += j + 1
		s.line++
	} else {
		s.i = len(s.s)
		return
	}
	for s.i < len(s.s) {
		j := strings.IndexByte(s.s[s.i:], '\n')
		if j < 0 {
			s.i = len(s.s)
			return
		}
		line := strings.TrimSuffix(s.s[s.i:s.i+j], "\r")
		s.i += j + 1
		s.line++
		if line == "" {
			return
		}
	}
}

func isNetrcSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
