package file

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Viewer = (*Driver)(nil)

// View returns the host and path of u (RFC 1738 section 3.10).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.File()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "host", Value: v.Host}, {Key: "path", Value: v.Path}}, nil
}
