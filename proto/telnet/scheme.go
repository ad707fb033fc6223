package telnet

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ safety.Wire     = (*Driver)(nil)
	_ proto.Viewer    = (*Driver)(nil)
	_ proto.Sessioner = (*Driver)(nil)
)

// WireParts returns the user name and password of u, shown to the user in
// the driver's advice (RFC 1738 section 3.8).
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	if _, err := u.Telnet(); err != nil {
		return nil, err
	}
	return safety.UserParts(u, "telnet", safety.LineText, "in the telnet advice shown to the user"), nil
}

// SchemeFacts: a line protocol with user information (RFC 1738 section 3.8).
func (d *Driver) SchemeFacts(string) safety.Facts { return safety.Facts{Line: true} }

// View returns an empty object: a telnet URL names only a server (RFC 1738
// section 3.8).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	if _, err := u.Telnet(); err != nil {
		return nil, err
	}
	return proto.View{}, nil
}
