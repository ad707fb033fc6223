package mailto

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ safety.Wire  = (*Driver)(nil)
	_ proto.Viewer = (*Driver)(nil)
)

// WireParts returns the address of u: it is shown to the user and may be
// handed to a mail program, where a CR/LF starts a new header line
// (RFC 1738 section 3.5).
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	if _, err := u.Mailto(); err != nil {
		return nil, err
	}
	pt := safety.Part{Name: "mailto address", Text: u.Opaque, In: safety.InOpaque, Kind: safety.LineText, Where: "into a mail header by a mail program"}
	if pt.Text == "" {
		pt.Text, pt.In = u.Path, safety.InPath
		if u.RawQuery != "" || u.ForceQuery {
			pt.Text += "?" + u.RawQuery
		}
	}
	return []safety.Part{pt}, nil
}

// SchemeFacts: no line protocol, no user information (RFC 1738 section 3.5).
func (d *Driver) SchemeFacts(string) safety.Facts {
	return safety.Facts{NoUserinfo: true, Section: "3.5"}
}

// View returns the address of u (RFC 1738 section 3.5).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.Mailto()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "address", Value: v.Address}}, nil
}
