package main

import (
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// -u/--user USER[:PASSWORD] gives the login of every URL on the command
// line, as curl, wget and lftp take it: it replaces the user and password
// written in the URL (RFC 1738 section 3.1's <user>:<password>@), so that
// the password need not be in the URL, the shell history or a listing of
// processes when it is left out. Without ":PASSWORD" the password comes
// as for a URL with a user and no password: --netrc, else a prompt on the
// terminal without echo, else the login fails. FTP uses the login; HTTP
// sends no user name from a URL (RFC 1738 section 3.3), nor from -u.

// validateUser checks -u: a user name is needed before the colon.
func (o *getOptions) validateUser() error {
	if o.user == "" {
		return nil
	}
	if name, _, _ := strings.Cut(o.user, ":"); name == "" {
		return flagErrorf("-u: no user name before the colon (want USER[:PASSWORD])")
	}
	return nil
}

// withUser returns raw with the -u login in place of its own (an
// abbreviated URL completed first, as parseURL would), or raw as it is
// without -u, or when it is not a URL with a server part (the command
// reports the malformed ones as usual).
func (o *getOptions) withUser(raw string) string {
	if o.user == "" {
		return raw
	}
	u, _, err := parseURL(raw)
	if err != nil || !o.setUser(u) {
		return raw
	}
	return u.String()
}

// setUser puts the -u login into u in place of its own, and reports
// whether it did: not without -u, nor in a URL without a server part.
func (o *getOptions) setUser(u *uri.URL) bool {
	if o.user == "" || !u.HasAuthority || u.Host == "" {
		return false
	}
	name, pass, hasPass := strings.Cut(o.user, ":")
	name = uri.EscapePart(name, uri.PartUser)
	if hasPass {
		u.User = uri.UserPassword(name, uri.EscapePart(pass, uri.PartUser))
	} else {
		u.User = uri.User(name)
	}
	return true
}
