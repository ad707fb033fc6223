// Package prospero implements the prospero URL scheme of RFC 1738 section
// 3.11: prospero://<host>:<port>/<hsoname>;<field>=<value>.
//
// The Prospero Directory Service protocol (port 1525) is not built in: its
// servers have all but vanished. Following the advice of RFC 1738 section 4
// ("the client software have provision for being configured to use
// specific gateway locators for indirect access"), [Driver.Fetch] maps the
// URL onto a configured gateway URL template and returns it as a
// *proto.Redirect, which the client checks with package safety and fetches;
// without a template it fails with an error wrapping
// proto.ErrNoAccessMethod.
//
// # Gateway templates
//
// A template is an absolute URL (usually http or gopher) with placeholders:
//
//	{host}        the Prospero server's host (in the server part of the
//	              template: as written in the URL, IPv6 brackets included)
//	{port}        its port, 1525 when the URL has none
//	{hsoname}     the decoded host-specific object name, for example
//	              "/pros/name" for prospero://host//pros/name
//	{field:NAME}  the decoded value of the first ";NAME=value" field, NAME
//	              compared without regard to case; empty when absent
//	{url}         the whole prospero URL (without user information or
//	              fragment)
//
// Each value is percent-encoded for its place in the template, with
// uri.Escape: in the path every octet but the unreserved ones and "/" is
// encoded (so an hsoname's slashes stay path separators, and ";" is
// encoded); after "?" (and "#") "/" and "+" are encoded too, so that a value
// can never add a query parameter or a raw CR, LF or space. Only {host} and
// {port} may stand in the server part. A placeholder not listed here, "{"
// without "}" and "}" without "{" are errors (*TemplateError); braces
// cannot be written literally (a URL writes them as %7B and %7D). Example:
//
//	http://gateway.example/prospero/{host}{hsoname}?version={field:OBJECT-VERSION}
//
// RFC 1738 allows no user name or password in a prospero URL; they are
// ignored, but like every decoded part (hsoname, field names and values)
// they are refused with an error wrapping proto.ErrUnsafeArgument when they
// hold CR, LF or NUL, whether or not a gateway is configured.
package prospero

import (
	"context"
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

const scheme = "prospero"

// OptionGateway is the proto.Request.Options key holding the gateway URL
// template; empty or absent means no gateway.
const OptionGateway = "gateway.prospero"

// Driver is the prospero driver. Its zero value is ready to use and it is
// safe for concurrent use. It makes no connection.
type Driver struct{}

var _ proto.Driver = (*Driver)(nil)

// Fetch returns, for a prospero URL u, a *proto.Redirect (Reason
// "gateway") to the gateway URL that req.Options[OptionGateway] expands to.
// It never returns a response. Without a gateway it returns an error
// wrapping proto.ErrNoAccessMethod that names the missing method; with a
// template that cannot be used, a *TemplateError; for a malformed prospero
// URL, a *uri.Error; for a part that decodes to CR, LF or NUL, an error
// wrapping proto.ErrUnsafeArgument.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := u.Prospero()
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
		return nil, fmt.Errorf("prospero: %w: the Prospero directory protocol (port 1525) is not built in; configure --gateway prospero=TEMPLATE", proto.ErrNoAccessMethod)
	}
	target, err := expand(tmpl, u, v)
	if err != nil {
		return nil, err
	}
	return nil, &proto.Redirect{URL: target, Reason: "gateway"}
}

// checkParts refuses decoded parts that hold CR, LF or NUL.
func checkParts(u *uri.URL, v *uri.ProsperoPath) error {
	type part struct{ name, val string }
	parts := []part{{"hsoname", v.HSOName}}
	for _, f := range v.Fields {
		parts = append(parts, part{"field name", f.Name}, part{"field value", f.Value})
	}
	if u.User != nil {
		parts = append(parts, part{"user name", u.User.Username()})
		if pw, ok := u.User.Password(); ok {
			parts = append(parts, part{"password", pw})
		}
	}
	for _, p := range parts {
		if err := proto.CheckArg(p.val); err != nil {
			return fmt.Errorf("prospero: %s: %w", p.name, err)
		}
	}
	return nil
}

func known(name string) bool {
	switch name {
	case "host", "port", "url", "hsoname", "field":
		return true
	}
	return false
}

// CheckTemplate reports whether tmpl can serve as a prospero gateway
// template, so that a configuration can be refused before any URL is
// fetched. It returns nil or a *TemplateError.
func CheckTemplate(tmpl string) error {
	_, err := parseTemplate(tmpl, known)
	return err
}

// Expand returns the gateway URL that tmpl gives for the prospero URL u
// (see the package documentation for the placeholders). It fails like
// Fetch.
func Expand(tmpl string, u *uri.URL) (string, error) {
	v, err := u.Prospero()
	if err != nil {
		return "", err
	}
	if err := checkParts(u, v); err != nil {
		return "", err
	}
	return expand(tmpl, u, v)
}

func expand(tmpl string, u *uri.URL, v *uri.ProsperoPath) (string, error) {
	t, err := parseTemplate(tmpl, known)
	if err != nil {
		return "", err
	}
	return t.expand(func(name, arg string, p place) string {
		if s, ok := commonValue(u, name, p); ok {
			return s
		}
		if name == "hsoname" {
			return v.HSOName
		}
		for _, f := range v.Fields { // "field": parseTemplate let no other name through
			if strings.EqualFold(f.Name, arg) {
				return f.Value
			}
		}
		return ""
	})
}
