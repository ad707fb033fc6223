package nntp

import "strings"

// netrcEntry is one "machine" block of a .netrc file.
type netrcEntry struct {
	machine  string
	login    string
	password string
	hasPass  bool
}

// parseNetrc reads the machine entries of a .netrc file (the format of
// ftp(1) and curl): tokens separated by white space, "machine NAME" opening
// an entry, "login", "password" and "account" followed by their value,
// "macdef NAME" followed by a macro that runs to the next empty line.
// Tokens may be double-quoted with backslash escapes. The "default" entry
// is deliberately not returned: a news server is sent only the credentials
// written for it by name.
func parseNetrc(data string) []netrcEntry {
	var entries []netrcEntry
	var cur *netrcEntry
	inDefault := false
	s := data
	next := func() (string, bool) {
		var tok string
		tok, s = netrcToken(s)
		return tok, tok != "" || s != ""
	}
	for {
		tok, ok := next()
		if !ok {
			break
		}
		switch tok {
		case "machine":
			name, _ := next()
			entries = append(entries, netrcEntry{machine: name})
			cur, inDefault = &entries[len(entries)-1], false
		case "default":
			cur, inDefault = nil, true
		case "login", "password", "account":
			val, _ := next()
			if cur == nil || inDefault {
				continue
			}
			switch tok {
			case "login":
				cur.login = val
			case "password":
				cur.password, cur.hasPass = val, true
			}
		case "macdef":
			next()
			s = skipMacro(s)
		}
	}
	return entries
}

// skipMacro drops the rest of the macdef line and the macro body, which
// runs to the first empty line (or the end of the file).
func skipMacro(s string) string {
	_, s, _ = strings.Cut(s, "\n")
	for s != "" {
		var line string
		line, s, _ = strings.Cut(s, "\n")
		if strings.TrimRight(line, "\r") == "" {
			break
		}
	}
	return s
}

// netrcToken returns the next token of s and the rest after it.
func netrcToken(s string) (tok, rest string) {
	s = strings.TrimLeft(s, " \t\r\n")
	if s == "" {
		return "", ""
	}
	if s[0] != '"' {
		i := strings.IndexAny(s, " \t\r\n")
		if i < 0 {
			return s, ""
		}
		return s[:i], s[i:]
	}
	var b strings.Builder
	i := 1
	for ; i < len(s) && s[i] != '"'; i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	if i < len(s) {
		i++
	}
	return b.String(), s[i:]
}

// netrcLookup finds the entry for host (case-insensitive). When login is
// not empty, only an entry with that login matches.
func netrcLookup(entries []netrcEntry, host, login string) (netrcEntry, bool) {
	for _, e := range entries {
		if !strings.EqualFold(e.machine, host) {
			continue
		}
		if login != "" && e.login != login {
			continue
		}
		return e, true
	}
	return netrcEntry{}, false
}
