package safety

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// unsafeChars are the printable characters RFC 1738 section 2.2 calls
// unsafe, which must always be encoded, less "%" and "#": those two are
// structural in an escaped URL (the parser has checked every "%"), except
// that a second "#" inside the fragment is data.
const unsafeChars = " <>\"{}|\\^~[]`"

// maxNamed bounds the characters listed in one unsafe-character message.
const maxNamed = 5

// unsafeFindings reports raw unsafe characters and non-ASCII bytes in each
// escaped component, one finding per component. Characters of a password
// are not named, only counted and placed.
func unsafeFindings(u *uri.URL, l layout) []Finding {
	type comp struct {
		name, text string
		off        int
		extra      string // characters unsafe in this component only
		secret     bool
		asciiOK    bool // only non-ASCII bytes count (the host)
		advice     string
	}
	var cs []comp
	if u.User != nil {
		cs = append(cs, comp{name: "user", text: u.User.EscapedUsername(), off: l.user})
		if pw, ok := u.User.EscapedPassword(); ok {
			cs = append(cs, comp{name: "password", text: pw, off: l.pass, secret: true})
		}
	}
	if u.Host != "" && !strings.HasPrefix(u.Host, "[") {
		cs = append(cs, comp{name: "host", text: u.Host, off: l.host, asciiOK: true,
			advice: "host names are ASCII (RFC 1738 section 3.1); an internationalised name is looked up in its ASCII (IDNA) form, check that it is the host you mean"})
	}
	cs = append(cs,
		comp{name: "opaque part", text: u.Opaque, off: l.opaque},
		comp{name: "path", text: u.Path, off: l.path},
		comp{name: "query", text: u.RawQuery, off: l.query},
		comp{name: "fragment", text: u.Fragment, off: l.fragment, extra: "#"})
	var fs []Finding
	for _, c := range cs {
		type hit struct {
			c   byte
			off int
		}
		var first []hit
		seen := map[byte]bool{}
		total := 0
		for i := 0; i < len(c.text); i++ {
			b := c.text[i]
			bad := b >= 0x80 || !c.asciiOK && (strings.IndexByte(unsafeChars, b) >= 0 || strings.IndexByte(c.extra, b) >= 0)
			if !bad {
				continue
			}
			total++
			if !seen[b] {
				seen[b] = true
				first = append(first, hit{b, c.off + i})
			}
		}
		if total == 0 {
			continue
		}
		var msg string
		if c.secret {
			msg = fmt.Sprintf("%d unencoded unsafe or non-ASCII %s in the password, the first at offset %d (not shown); RFC 1738 section 2.2 says they must be encoded",
				total, plural(total, "byte", "bytes"), first[0].off)
		} else {
			var named []string
			for i, h := range first {
				if i == maxNamed {
					named = append(named, fmt.Sprintf("%d more", len(first)-maxNamed))
					break
				}
				named = append(named, describe(h.c)+fmt.Sprintf(" at offset %d", h.off))
			}
			advice := cmp.Or(c.advice, "RFC 1738 section 2.2 says they must be encoded")
			msg = fmt.Sprintf("unencoded %s in the %s: %s; %s",
				plural(total, "unsafe character", "unsafe characters"), c.name, strings.Join(named, ", "), advice)
			if total > len(first) {
				msg += fmt.Sprintf(" (%d in all)", total)
			}
		}
		fs = append(fs, Finding{Rule: RuleUnsafeCharacter, Level: Warning, Component: c.name, Message: msg})
	}
	return fs
}

func describe(b byte) string {
	switch {
	case b == ' ':
		return "' ' (space, %20)"
	case b >= 0x80:
		return fmt.Sprintf("byte 0x%02X (non-ASCII, %%%02X)", b, b)
	}
	return fmt.Sprintf("'%c' (%%%02X)", b, b)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
