package safety

import (
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// layout holds the byte offset of each escaped component of a URL in its
// written form; -1 when the component is absent.
type layout struct {
	user, pass, host, port, path, query, fragment, opaque int
}

// newLayout places u's components the way (*uri.URL).String writes them.
// raw is the text u was parsed from; it differs from String only by the
// case of the scheme and by an empty port (a ":" with no digits, which
// String drops), and the offsets follow raw.
func newLayout(u *uri.URL, raw string) layout {
	l := layout{-1, -1, -1, -1, -1, -1, -1, -1}
	pos := 0
	if u.Scheme != "" {
		pos += len(u.Scheme) + 1
	}
	if u.Opaque != "" {
		l.opaque = pos
		pos += len(u.Opaque)
	} else {
		if u.HasAuthority || u.Host != "" || u.User != nil || u.Port != "" {
			pos += 2
			if u.User != nil {
				l.user = pos
				pos += len(u.User.EscapedUsername())
				if pw, ok := u.User.EscapedPassword(); ok {
					pos++
					l.pass = pos
					pos += len(pw)
				}
				pos++
			}
			l.host = pos
			pos += len(u.Host)
			if u.Port != "" {
				pos++
				l.port = pos
				pos += len(u.Port)
			} else if pos < len(raw) && raw[pos] == ':' {
				pos++ // an empty port as written
			}
			if u.Path != "" && u.Path[0] != '/' {
				pos++
			}
		} else if strings.HasPrefix(u.Path, "//") {
			pos += 2
		}
		l.path = pos
		pos += len(u.Path)
		if u.RawQuery != "" || u.ForceQuery {
			pos++
			l.query = pos
			pos += len(u.RawQuery)
		}
	}
	if u.HasFragment {
		l.fragment = pos + 1
	}
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
