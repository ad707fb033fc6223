package telnet

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Viewer = (*Driver)(nil)

// View returns an empty object: a telnet URL names only a server (RFC 1738
// section 3.8).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	if _, err := u.Telnet(); err != nil {
		return nil, err
	}
	return proto.View{}, nil
}
