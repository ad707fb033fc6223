package safety

import (
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// layout holds the byte offset of each escaped component of a URL in its
// written form; -1 when the component is absent.
type layout struct {
	user, pass, host, path, query, fragment, opaque int
}

// newLayout places u's components in raw, the text u was parsed from or
// its String form: the two differ only by the case of the scheme and by
// an empty port (a ":" with no digits). What follows the server part is
// placed from the end of raw, where it stands as written; the server part
// from the start.
func newLayout(u *uri.URL, raw string) layout {
	l := layout{-1, -1, -1, -1, -1, -1, -1}
	end := len(raw)
	if u.HasFragment {
		l.fragment = end - len(u.Fragment)
		end = l.fragment - 1
	}
	if u.Opaque != "" {
		l.opaque = end - len(u.Opaque)
		return l
	}
	if u.RawQuery != "" || u.ForceQuery {
		l.query = end - len(u.RawQuery)
		end = l.query - 1
	}
	l.path = end - len(u.Path)
	if !u.HasAuthority && u.Host == "" && u.User == nil && u.Port == "" {
		return l // no server part
	}
	pos := 2 // "//"
	if u.Scheme != "" {
		pos += len(u.Scheme) + 1
	}
	if u.User != nil {
		l.user = pos
		pos += len(u.User.EscapedUsername()) + 1 // and ":" or "@"
		if pw, ok := u.User.EscapedPassword(); ok {
			l.pass = pos
			pos += len(pw) + 1
		}
	}
	l.host = pos
	return l
}

// offset returns the offset of the component in of u, as l places it.
func (l layout) offset(u *uri.URL, in Place) int {
	switch in {
	case InUser:
		return l.user
	case InPassword:
		return l.pass
	case InPath:
		return l.path
	case InURLPath:
		return l.path + len(u.Path) - len(strings.TrimPrefix(u.Path, "/"))
	case InQuery:
		return l.query
	}
	return l.opaque
}
