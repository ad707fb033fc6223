package prospero

// This file is the gateway template engine; proto/wais/template.go is
// the same code (drivers may not import each other).

import (
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// TemplateError is a gateway template that cannot be used: not an absolute
// URL, an unknown or misplaced placeholder, or an expansion that is not a
// well-formed URL. It is a configuration error (the CLI reports it as a
// usage error); it does not wrap the cause, so that a bad template is not
// mistaken for a malformed URL given by the user.
type TemplateError struct {
	// Template is the template as configured.
	Template string
	// Offset is the byte offset in Template where the problem is; -1 when
	// the problem shows only in the expanded URL.
	Offset int
	// Reason says what is wrong.
	Reason string
}

func (e *TemplateError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%s: gateway template %q: %s", scheme, e.Template, e.Reason)
	}
	return fmt.Sprintf("%s: gateway template %q: %s at offset %d", scheme, e.Template, e.Reason, e.Offset)
}

// place is where in the expanded URL a placeholder sits; it decides how the
// value is escaped.
type place int

const (
	placeAuthority place = iota + 1 // between "//" and the path: {host} and {port} only
	placePath                       // the path (or the opaque part): "/" kept, the rest escaped
	placeQuery                      // after "?" or "#": everything escaped, "+" too
)

// token is a literal run of the template or a placeholder.
type token struct {
	lit   string // literal text when name is empty
	name  string // placeholder name: "host", "field", ...
	arg   string // NAME of {field:NAME}
	place place
	off   int
}

// tmpl is a parsed template.
type tmpl struct {
	raw    string
	tokens []token
}

// parseTemplate splits s into literals and placeholders and finds the place
// of each placeholder. known reports whether a placeholder name (and, for
// "field", its argument) is defined for this scheme.
func parseTemplate(s string, known func(name string) bool) (*tmpl, error) {
	t := &tmpl{raw: s}
	fail := func(off int, format string, args ...any) (*tmpl, error) {
		return nil, &TemplateError{Template: s, Offset: off, Reason: fmt.Sprintf(format, args...)}
	}
	const (
		inScheme = iota
		afterScheme
		inAuthority
		inPath
		inQuery
	)
	state := inScheme
	lit := 0 // start of the current literal
	flush := func(end int) {
		if end > lit {
			t.tokens = append(t.tokens, token{lit: s[lit:end]})
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if state == afterScheme {
			if strings.HasPrefix(s[i:], "//") {
				state = inAuthority
				i++
				continue
			}
			state = inPath
		}
		switch c {
		case '{':
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return fail(i, `"{" without "}"`)
			}
			body := s[i+1 : i+end]
			name, arg, hasArg := strings.Cut(body, ":")
			if hasArg && (name != "field" || arg == "") || !hasArg && name == "field" || !known(name) {
				return fail(i, "unknown placeholder %q", "{"+body+"}")
			}
			var p place
			switch state {
			case inScheme:
				return fail(i, "placeholder %q in the scheme", "{"+body+"}")
			case inAuthority:
				if name != "host" && name != "port" {
					return fail(i, "placeholder %q in the server part (only {host} and {port} may be there)", "{"+body+"}")
				}
				p = placeAuthority
			case inPath:
				p = placePath
			default:
				p = placeQuery
			}
			flush(i)
			t.tokens = append(t.tokens, token{name: name, arg: arg, place: p, off: i})
			i += end
			lit = i + 1
		case '}':
			return fail(i, `"}" without "{"`)
		case ':':
			if state == inScheme {
				if i == 0 {
					return fail(0, "template has no scheme (it must be an absolute URL)")
				}
				state = afterScheme
			}
		case '/':
			if state == inScheme {
				return fail(i, "template has no scheme (it must be an absolute URL)")
			}
			if state == inAuthority {
				state = inPath
			}
		case '?', '#':
			switch state {
			case inScheme:
				return fail(i, "template has no scheme (it must be an absolute URL)")
			case inAuthority, inPath:
				state = inQuery
			}
		}
	}
	if state == inScheme {
		return fail(len(s), "template has no scheme (it must be an absolute URL)")
	}
	flush(len(s))
	return t, nil
}

// expand fills the placeholders with value(name, arg), each escaped for its
// place, and checks that the result is a well-formed URL. value returns the
// decoded value; for placeAuthority it is used as it is ({host} and
// {port} come from an already parsed URL).
func (t *tmpl) expand(value func(name, arg string, p place) string) (string, error) {
	var b strings.Builder
	for _, tok := range t.tokens {
		if tok.name == "" {
			b.WriteString(tok.lit)
			continue
		}
		v := value(tok.name, tok.arg, tok.place)
		switch tok.place {
		case placeAuthority:
			b.WriteString(v)
		case placePath:
			b.WriteString(uri.Escape(v, "/"))
		default:
			b.WriteString(strings.ReplaceAll(uri.Escape(v, ""), "+", "%2B"))
		}
	}
	out := b.String()
	if _, err := uri.Parse(out); err != nil {
		return "", &TemplateError{Template: t.raw, Offset: -1, Reason: "the expanded URL is malformed: " + err.Error()}
	}
	return out, nil
}

// commonValue returns the value of the placeholders every scheme has:
// {host}, {port} and {url}.
func commonValue(u *uri.URL, name string, p place) (string, bool) {
	switch name {
	case "host":
		if p == placeAuthority {
			return u.Host, true
		}
		return u.Hostname(), true
	case "port":
		return fmt.Sprint(u.PortNumber()), true
	case "url":
		c := *u
		c.User, c.Fragment, c.HasFragment = nil, "", false
		return c.String(), true
	}
	return "", false
}
