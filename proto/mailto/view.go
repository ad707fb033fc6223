package mailto

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Viewer = (*Driver)(nil)

// View returns the address of u (RFC 1738 section 3.5).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.Mailto()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "address", Value: v.Address}}, nil
}
