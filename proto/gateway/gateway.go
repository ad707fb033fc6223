// Package gateway is the URL-template engine shared by the drivers of
// schemes whose protocol is not built in (wais, prospero). Following RFC
// 1738 section 4 ("the client software have provision for being configured
// to use specific gateway locators for indirect access"), such a driver maps
// a URL onto a configured gateway URL template and returns the result as a
// *proto.Redirect, which the client checks with package safety and fetches.
// Package gateway is not a driver: it makes no connection.
//
// A driver describes its scheme in a [Scheme] (its name, its placeholders
// and a View that decodes its URLs) and delegates to it:
// [Scheme.Fetch] is the whole of the driver's Fetch, [Scheme.Expand] and
// [Scheme.CheckTemplate] back the driver package's Expand and
// CheckTemplate. Package gatewaytest holds the checks every such driver
// passes.
//
// # Templates
//
// A template is an absolute URL (usually http or gopher) with placeholders.
// Every scheme has these three:
//
//	{host}  the server's host (in the server part of the template: as
//	        written in the URL, IPv6 brackets included; elsewhere without
//	        brackets)
//	{port}  its port, the scheme's default port when the URL has none
//	{url}   the whole URL (without user information or fragment)
//
// and a scheme adds its own ([Scheme.Placeholders]): {name}, or {name:ARG}
// for a placeholder that takes an argument.
//
// Each value is percent-encoded for its place in the template, with
// uri.Escape: in the path every octet but the unreserved ones and "/" is
// encoded; after "?" (and "#") "/" and "+" are encoded too, so that a value
// can never add a query parameter, a path segment boundary in a query, or a
// raw CR, LF or space. Only {host} and {port} may stand in the server part.
// An unknown placeholder, "{" without "}" and "}" without "{" are errors
// (*TemplateError); braces cannot be written literally (a URL writes them
// as %7B and %7D).
//
// A gopher gateway needs no special care here: a decoded tab in a value
// becomes %09, which package safety refuses in a gopher selector when the
// client checks the gateway URL.
package gateway

import (
	"context"
	"fmt"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Scheme describes a scheme served through a gateway. A driver keeps one
// in a package variable and calls its methods from its own Fetch, Expand
// and CheckTemplate; it is safe for concurrent use.
type Scheme struct {
	// Name is the URL scheme in lower case ("wais"). It prefixes error
	// messages, and is the key of the gateway URL template in
	// proto.Options.Gateways; an empty or absent template means no
	// gateway.
	Name string
	// Protocol names the access method that is not built in, for the error
	// returned without a gateway: "the WAIS protocol (Z39.50, port 210)".
	Protocol string
	// Placeholders are the scheme's own placeholder names, besides {host},
	// {port} and {url}. A name with a trailing ":" ("field:") is written
	// with a non-empty argument: {field:NAME}.
	Placeholders []string
	// View decodes a URL of the scheme. It returns every decoded part of
	// it (those that hold CR, LF or NUL are refused) and the values of the
	// placeholders, or an error, returned as it is (a *uri.Error for a
	// malformed URL).
	View func(u *uri.URL) ([]Part, Values, error)
}

// Values returns the decoded value of the scheme's placeholder {name}, or
// {name:arg} for a placeholder that takes an argument. It is called only
// for names in [Scheme.Placeholders]; it returns "" for a part the URL
// does not have.
type Values func(name, arg string) string

// Part is a decoded part of a URL, named for error messages.
type Part struct {
	Name  string // "database"
	Value string
}

// Fetch is a gateway driver's Fetch. It returns, for u, a *proto.Redirect
// (Reason "gateway") to the gateway URL that req.Options.Gateways[s.Name]
// expands to, and never a response. It checks ctx; then decodes u with
// s.View and refuses a decoded part, user name or password that holds CR,
// LF or NUL with an error wrapping proto.ErrUnsafeArgument (naming the
// part, not repeating it), whether or not a gateway is configured. Without a
// template (req may be nil) it returns an error wrapping
// proto.ErrNoAccessMethod that names the missing method; with a template
// that cannot be used, a *TemplateError.
func (s *Scheme) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	values, err := s.view(u)
	if err != nil {
		return nil, err
	}
	var tmpl string
	if req != nil {
		tmpl = req.Options.Gateways[s.Name]
	}
	if tmpl == "" {
		return nil, fmt.Errorf("%s: %w: %s is not built in; configure --gateway %s=TEMPLATE", s.Name, proto.ErrNoAccessMethod, s.Protocol, s.Name)
	}
	target, err := s.expand(tmpl, u, values)
	if err != nil {
		return nil, err
	}
	return nil, &proto.Redirect{URL: target, Reason: "gateway"}
}

// Expand returns the gateway URL that tmpl gives for u. It fails like
// Fetch, but for the missing gateway.
func (s *Scheme) Expand(tmpl string, u *uri.URL) (string, error) {
	values, err := s.view(u)
	if err != nil {
		return "", err
	}
	return s.expand(tmpl, u, values)
}

// CheckTemplate reports whether tmpl can serve as a gateway template of s,
// so that a configuration can be refused before any URL is fetched. It
// returns nil or a *TemplateError.
func (s *Scheme) CheckTemplate(tmpl string) error {
	_, err := s.parse(tmpl)
	return err
}

// view decodes u with s.View and refuses a part, or u's user name or
// password, that holds CR, LF or NUL.
func (s *Scheme) view(u *uri.URL) (Values, error) {
	parts, values, err := s.View(u)
	if err != nil {
		return nil, err
	}
	if u.User != nil {
		parts = append(parts, Part{"user name", u.User.Username()})
		if pw, ok := u.User.Password(); ok {
			parts = append(parts, Part{"password", pw})
		}
	}
	for _, p := range parts {
		if err := proto.CheckArg(p.Value); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", s.Name, p.Name, err)
		}
	}
	return values, nil
}

// expand parses tmpl and fills it with values for u.
func (s *Scheme) expand(tmpl string, u *uri.URL, values Values) (string, error) {
	t, err := s.parse(tmpl)
	if err != nil {
		return "", err
	}
	return t.expand(s.Name, u, values)
}
