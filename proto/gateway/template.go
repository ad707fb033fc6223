package gateway

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// TemplateError is a gateway template that cannot be used: not an absolute
// URL, an unknown or misplaced placeholder, or an expansion that is not a
// well-formed URL. It is a configuration error (the CLI reports it as a
// usage error); it does not wrap the cause, so that a bad template is not
// mistaken for a malformed URL given by the user.
type TemplateError struct {
	// Scheme is the scheme whose template it is ("wais"); it prefixes the
	// message.
	Scheme string
	// Template is the template as configured.
	Template string
	// Offset is the byte offset in Template where the problem is; -1 when
	// the problem shows only in the expanded URL.
	Offset int
	// Reason says what is wrong.
	Reason string
}

func (e *TemplateError) Error() string {
	prefix := cmp.Or(e.Scheme, "gateway")
	if e.Offset < 0 {
		return fmt.Sprintf("%s: gateway template %q: %s", prefix, e.Template, e.Reason)
	}
	return fmt.Sprintf("%s: gateway template %q: %s at offset %d", prefix, e.Template, e.Reason, e.Offset)
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
	arg   string // ARG of {name:ARG}
	place place
	off   int
}

// tmpl is a parsed template.
type tmpl struct {
	raw    string
	tokens []token
}

// known reports whether {name} (hasArg false) or {name:arg} is a
// placeholder of s.
func (s *Scheme) known(name, arg string, hasArg bool) bool {
	if hasArg {
		return arg != "" && slices.Contains(s.Placeholders, name+":")
	}
	switch name {
	case "host", "port", "url":
		return true
	}
	return name != "" && slices.Contains(s.Placeholders, name)
}

// tmplPart is the part of the URL that parse is in.
type tmplPart int

const (
	inScheme tmplPart = iota
	afterScheme
	inAuthority
	inPath
	inQuery
)

const noScheme = "template has no scheme (it must be an absolute URL)"

// parse splits raw into literals and placeholders and finds the place of
// each placeholder.
func (s *Scheme) parse(raw string) (*tmpl, error) {
	t := &tmpl{raw: raw}
	fail := func(off int, format string, args ...any) (*tmpl, error) {
		return nil, &TemplateError{Scheme: s.Name, Template: raw, Offset: off, Reason: fmt.Sprintf(format, args...)}
	}
	state := inScheme
	lit := 0 // start of the current literal
	flush := func(end int) {
		if end > lit {
			t.tokens = append(t.tokens, token{lit: raw[lit:end]})
		}
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if state == afterScheme {
			if strings.HasPrefix(raw[i:], "//") {
				state = inAuthority
				i++
				continue
			}
			state = inPath
		}
		if c != '{' {
			var why string
			if state, why = nextPart(state, c, i); why != "" {
				return fail(i, "%s", why)
			}
			continue
		}
		tok, end, why := s.placeholder(raw, i, state)
		if why != "" {
			return fail(i, "%s", why)
		}
		flush(i)
		t.tokens = append(t.tokens, tok)
		i += end
		lit = i + 1
	}
	if state == inScheme {
		return fail(len(raw), noScheme)
	}
	flush(len(raw))
	return t, nil
}

// nextPart returns the part of the URL that the byte c at offset i leads to
// from state, or why c is refused there.
func nextPart(state tmplPart, c byte, i int) (tmplPart, string) {
	switch c {
	case '}':
		return state, `"}" without "{"`
	case ':':
		if state == inScheme {
			if i == 0 {
				return state, noScheme
			}
			return afterScheme, ""
		}
	case '/':
		switch state {
		case inScheme:
			return state, noScheme
		case inAuthority:
			return inPath, ""
		}
	case '?', '#':
		switch state {
		case inScheme:
			return state, noScheme
		case inAuthority, inPath:
			return inQuery, ""
		}
	}
	return state, ""
}

// placeholder reads the placeholder that begins at raw[i] ("{") in the
// part state of the URL, and returns its token and the offset of its "}"
// from i, or why it is refused.
func (s *Scheme) placeholder(raw string, i int, state tmplPart) (token, int, string) {
	end := strings.IndexByte(raw[i:], '}')
	if end < 0 {
		return token{}, 0, `"{" without "}"`
	}
	body := raw[i+1 : i+end]
	name, arg, hasArg := strings.Cut(body, ":")
	if !s.known(name, arg, hasArg) {
		return token{}, 0, fmt.Sprintf("unknown placeholder %q", "{"+body+"}")
	}
	var p place
	switch state {
	case inScheme:
		return token{}, 0, fmt.Sprintf("placeholder %q in the scheme", "{"+body+"}")
	case inAuthority:
		if name != "host" && name != "port" {
			return token{}, 0, fmt.Sprintf("placeholder %q in the server part (only {host} and {port} may be there)", "{"+body+"}")
		}
		p = placeAuthority
	case inPath:
		p = placePath
	default:
		p = placeQuery
	}
	return token{name: name, arg: arg, place: p, off: i}, end, ""
}

// expand fills the placeholders with their values for u, each escaped for
// its place, and checks that the result is a well-formed URL. A value in
// the server part is used as it is ({host} and {port} come from an already
// parsed URL).
func (t *tmpl) expand(scheme string, u *uri.URL, values Values) (string, error) {
	var b strings.Builder
	for _, tok := range t.tokens {
		if tok.name == "" {
			b.WriteString(tok.lit)
			continue
		}
		v, ok := commonValue(u, tok.name, tok.place)
		if !ok {
			v = values(tok.name, tok.arg)
		}
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
		return "", &TemplateError{Scheme: scheme, Template: t.raw, Offset: -1, Reason: "the expanded URL is malformed: " + err.Error()}
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
