// Package wais implements the wais URL scheme of RFC 1738 section 3.9:
//
//	wais://<host>:<port>/<database>
//	wais://<host>:<port>/<database>?<search>
//	wais://<host>:<port>/<database>/<wtype>/<wpath>
//
// The WAIS protocol itself (RFC 1625, based on Z39.50-1988, port 210) is not
// built in: its servers have all but vanished. Following the advice of RFC
// 1738 section 4 ("the client software have provision for being configured
// to use specific gateway locators for indirect access"), [Driver.Fetch]
// maps the URL onto a configured gateway URL template and returns it as a
// *proto.Redirect, which the client checks with package safety and fetches;
// without a template it fails with an error wrapping
// proto.ErrNoAccessMethod.
//
// # Gateway templates
//
// A template is an absolute URL (usually http or gopher) with placeholders:
//
//	{host}      the WAIS server's host (in the server part of the template:
//	            as written in the URL, IPv6 brackets included)
//	{port}      its port, 210 when the URL has none
//	{database}  the decoded database name
//	{search}    the decoded search, empty when the URL has none
//	{wtype}     the decoded document type, empty when absent
//	{wpath}     the decoded document-id, empty when absent
//	{url}       the whole wais URL (without user information or fragment)
//
// Each value is percent-encoded for its place in the template, with
// uri.Escape: in the path every octet but the unreserved ones and "/" is
// encoded; after "?" (and "#") "/" and "+" are encoded too, so that a value
// can never add a query parameter, a path segment boundary in a query, or a
// raw CR, LF or space. Only {host} and {port} may stand in the server part.
// A placeholder not listed here, "{" without "}" and "}" without "{" are
// errors (*TemplateError); braces cannot be written literally (a URL
// writes them as %7B and %7D). Example:
//
//	http://gateway.example/wais/{host}/{database}?q={search}
//
// A gopher gateway needs no special care here: a decoded tab in a value
// becomes %09, which package safety refuses in a gopher selector when the
// client checks the gateway URL.
//
// Every decoded part of the URL (and a user name or password, which the
// scheme does not have) that holds CR, LF or NUL is refused with an error
// wrapping proto.ErrUnsafeArgument, whether or not a gateway is configured.
package wais

import (
	"context"
	"fmt"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

const scheme = "wais"

// OptionGateway is the proto.Request.Options key holding the gateway URL
// template; empty or absent means no gateway.
const OptionGateway = "gateway.wais"

// Driver is the wais driver. Its zero value is ready to use and it is safe
// for concurrent use. It makes no connection.
type Driver struct{}

var _ proto.Driver = (*Driver)(nil)

// Fetch returns, for a wais URL u, a *proto.Redirect (Reason "gateway") to
// the gateway URL that req.Options[OptionGateway] expands to. It never
// returns a response. Without a gateway it returns an error wrapping
// proto.ErrNoAccessMethod that names the missing method; with a template
// that cannot be used, a *TemplateError; for a malformed wais URL, a
// *uri.Error; for a part that decodes to CR, LF or NUL, an error wrapping
// proto.ErrUnsafeArgument.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := u.WAIS()
	if err != nil {
		return nil, err
	}
	if err := checkParts(u, v); err != nil {
		return nil, err
	}
	var tmpl string
	if req != nil {
		tmpl = req.Options[OptionGateway]
	}
	if tmpl == "" {
		return nil, fmt.Errorf("wais: %w: the WAIS protocol (Z39.50, port 210) is not built in; configure --gateway wais=TEMPLATE", proto.ErrNoAccessMethod)
	}
	target, err := expand(tmpl, u, v)
	if err != nil {
		return nil, err
	}
	return nil, &proto.Redirect{URL: target, Reason: "gateway"}
}

// checkParts refuses decoded parts that hold CR, LF or NUL.
func checkParts(u *uri.URL, v *uri.WAISPath) error {
	type part struct{ name, val string }
	parts := []part{{"database", v.Database}}
	for _, p := range []struct {
		name string
		val  *string
	}{{"search", v.Search}, {"wtype", v.WType}, {"wpath", v.WPath}} {
		if p.val != nil {
			parts = append(parts, part{p.name, *p.val})
		}
	}
	if u.User != nil {
		parts = append(parts, part{"user name", u.User.Username()})
		if pw, ok := u.User.Password(); ok {
			parts = append(parts, part{"password", pw})
		}
	}
	for _, p := range parts {
		if err := proto.CheckArg(p.val); err != nil {
			return fmt.Errorf("wais: %s: %w", p.name, err)
		}
	}
	return nil
}

func known(name string) bool {
	switch name {
	case "host", "port", "url", "database", "search", "wtype", "wpath":
		return true
	}
	return false
}

// CheckTemplate reports whether tmpl can serve as a wais gateway template,
// so that a configuration can be refused before any URL is fetched. It
// returns nil or a *TemplateError.
func CheckTemplate(tmpl string) error {
	_, err := parseTemplate(tmpl, known)
	return err
}

// Expand returns the gateway URL that tmpl gives for the wais URL u (see
// the package documentation for the placeholders). It fails like Fetch.
func Expand(tmpl string, u *uri.URL) (string, error) {
	v, err := u.WAIS()
	if err != nil {
		return "", err
	}
	if err := checkParts(u, v); err != nil {
		return "", err
	}
	return expand(tmpl, u, v)
}

func expand(tmpl string, u *uri.URL, v *uri.WAISPath) (string, error) {
	t, err := parseTemplate(tmpl, known)
	if err != nil {
		return "", err
	}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return t.expand(func(name, _ string, p place) string {
		if s, ok := commonValue(u, name, p); ok {
			return s
		}
		switch name {
		case "database":
			return v.Database
		case "search":
			return deref(v.Search)
		case "wtype":
			return deref(v.WType)
		default: // "wpath": parseTemplate let no other name through
			return deref(v.WPath)
		}
	})
}
