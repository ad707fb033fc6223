package http

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Viewer = (*Driver)(nil)

// View returns the path and search of u (RFC 1738 section 3.3).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.HTTP()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "path", Value: v.Path}, {Key: "search", Value: v.Search}}, nil
}
