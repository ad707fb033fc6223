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
// Each value is percent-encoded for its place in the template (in the path
// an hsoname's slashes stay path separators, and ";" is encoded), and a
// placeholder not listed here is an error (*TemplateError): see package
// [gateway], which holds the template engine, for the rules. Example:
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
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway"
	"github.com/rfc1738/fetch/uri"
)

// TemplateError is a gateway template that cannot be used (see
// [gateway.TemplateError]).
type TemplateError = gateway.TemplateError

// Driver is the prospero driver. Its zero value is ready to use and it is
// safe for concurrent use. It makes no connection.
type Driver struct{}

var _ proto.Gateway = (*Driver)(nil)

// Fetch returns, for a prospero URL u, a *proto.Redirect (Reason
// "gateway") to the gateway URL that req.Options.Gateways["prospero"]
// expands to. It never returns a response. Without a gateway it returns an error
// wrapping proto.ErrNoAccessMethod that names the missing method; with a
// template that cannot be used, a *TemplateError; for a malformed prospero
// URL, a *uri.Error; for a part that decodes to CR, LF or NUL, an error
// wrapping proto.ErrUnsafeArgument.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return scheme.Fetch(ctx, u, req)
}

// CheckTemplate reports whether tmpl can serve as a prospero gateway
// template, so that a configuration can be refused before any URL is
// fetched. It returns nil or a *TemplateError.
func (d *Driver) CheckTemplate(tmpl string) error {
	return scheme.CheckTemplate(tmpl)
}

// Expand returns the gateway URL that tmpl gives for the prospero URL u
// (see the package documentation for the placeholders). It fails like
// Fetch.
func Expand(tmpl string, u *uri.URL) (string, error) {
	return scheme.Expand(tmpl, u)
}

var scheme = &gateway.Scheme{
	Name:         "prospero",
	Protocol:     "the Prospero directory protocol (port 1525)",
	Placeholders: []string{"hsoname", "field:"},
	View:         view,
}

// view decodes u, for the template engine: its decoded parts and the values
// of the prospero placeholders.
func view(u *uri.URL) ([]gateway.Part, gateway.Values, error) {
	v, err := u.Prospero()
	if err != nil {
		return nil, nil, err
	}
	parts := []gateway.Part{{Name: "hsoname", Value: v.HSOName}}
	for _, f := range v.Fields {
		parts = append(parts, gateway.Part{Name: "field name", Value: f.Name}, gateway.Part{Name: "field value", Value: f.Value})
	}
	return parts, func(name, arg string) string {
		if name == "hsoname" {
			return v.HSOName
		}
		for _, f := range v.Fields { // "field": the template engine lets no other name through
			if strings.EqualFold(f.Name, arg) {
				return f.Value
			}
		}
		return ""
	}, nil
}
