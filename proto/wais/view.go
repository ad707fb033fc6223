package wais

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Viewer = (*Driver)(nil)

// View returns the database, search, wtype and wpath of u (RFC 1738
// section 3.9).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.WAIS()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "database", Value: v.Database}, {Key: "search", Value: v.Search}, {Key: "wtype", Value: v.WType}, {Key: "wpath", Value: v.WPath}}, nil
}
