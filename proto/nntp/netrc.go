package nntp

import (
	"strings"

	"github.com/rfc1738/fetch/internal/netrc"
)

// netrcLookup finds the first machine entry for host (compared without
// regard to case). When login is not empty, only an entry with that login
// matches. The "default" entry never matches: a news server is sent only
// the credentials written for it by name.
func netrcLookup(entries []netrc.Entry, host, login string) (netrc.Entry, bool) {
	for _, e := range entries {
		if e.Default || !strings.EqualFold(e.Machine, host) {
			continue
		}
		if login != "" && e.Login != login {
			continue
		}
		return e, true
	}
	return netrc.Entry{}, false
}
