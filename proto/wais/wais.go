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
// Each value is percent-encoded for its place in the template, and a
// placeholder not listed here is an error (*TemplateError): see package
// [gateway], which holds the template engine, for the rules. Example:
//
//	http://gateway.example/wais/{host}/{database}?q={search}
//
// Every decoded part of the URL (and a user name or password, which the
// scheme does not have) that holds CR, LF or NUL is refused with an error
// wrapping proto.ErrUnsafeArgument, whether or not a gateway is configured.
package wais

import (
	"context"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway"
	"github.com/rfc1738/fetch/uri"
)

// TemplateError is a gateway template that cannot be used (see
// [gateway.TemplateError]).
type TemplateError = gateway.TemplateError

// Driver is the wais driver. Its zero value is ready to use and it is safe
// for concurrent use. It makes no connection.
type Driver struct{}

var _ proto.Gateway = (*Driver)(nil)

// Fetch returns, for a wais URL u, a *proto.Redirect (Reason "gateway") to
// the gateway URL that req.Options.Gateways["wais"] expands to. It never
// returns a response. Without a gateway it returns an error wrapping
// proto.ErrNoAccessMethod that names the missing method; with a template
// that cannot be used, a *TemplateError; for a malformed wais URL, a
// *uri.Error; for a part that decodes to CR, LF or NUL, an error wrapping
// proto.ErrUnsafeArgument.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return scheme.Fetch(ctx, u, req)
}

// CheckTemplate reports whether tmpl can serve as a wais gateway template,
// so that a configuration can be refused before any URL is fetched. It
// returns nil or a *TemplateError.
func (d *Driver) CheckTemplate(tmpl string) error {
	return scheme.CheckTemplate(tmpl)
}

// Expand returns the gateway URL that tmpl gives for the wais URL u (see
// the package documentation for the placeholders). It fails like Fetch.
func Expand(tmpl string, u *uri.URL) (string, error) {
	return scheme.Expand(tmpl, u)
}

var scheme = &gateway.Scheme{
	Name:         "wais",
	Protocol:     "the WAIS protocol (Z39.50, port 210)",
	Placeholders: []string{"database", "search", "wtype", "wpath"},
	View:         view,
}

// view decodes u, for the template engine: its decoded parts and the values
// of the wais placeholders.
func view(u *uri.URL) ([]gateway.Part, gateway.Values, error) {
	v, err := u.WAIS()
	if err != nil {
		return nil, nil, err
	}
	parts := []gateway.Part{{Name: "database", Value: v.Database}}
	vals := map[string]string{"database": v.Database, "search": deref(v.Search), "wtype": deref(v.WType), "wpath": deref(v.WPath)}
	for _, p := range []struct {
		name string
		val  *string
	}{{"search", v.Search}, {"wtype", v.WType}, {"wpath", v.WPath}} {
		if p.val != nil {
			parts = append(parts, gateway.Part{Name: p.name, Value: *p.val})
		}
	}
	return parts, func(name, _ string) string { return vals[name] }, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
