package ftp

import (
	"strings"

	"github.com/rfc1738/fetch/internal/netrc"
)

// NetrcError reports a malformed .netrc file: the line (counted from 1)
// and what is wrong, never a token's value. The Driver's error wraps it
// and names the file ("ftp: netrc PATH: line N: ..."). It is an alias of
// the module's one .netrc parser's error type.
type NetrcError = netrc.Error

// lookupNetrc returns the password for user on host: from the first
// "machine host" entry with a password whose login is user (or which names
// no login), else from a "default" entry that fits the same way. Host
// names compare without regard to case.
func lookupNetrc(entries []netrc.Entry, host, user string) (string, bool) {
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

// loginFor returns the login of the first "machine host" entry that names
// one, else that of a "default" entry that names one, else "": the user
// that curl and ftp(1) log in as when the URL names none. Host names
// compare without regard to case.
func loginFor(entries []netrc.Entry, host string) string {
	for _, def := range []bool{false, true} {
		for _, e := range entries {
			if e.Default == def && (def || strings.EqualFold(e.Machine, host)) && e.Login != "" {
				return e.Login
			}
		}
	}
	return ""
}
