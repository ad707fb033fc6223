package gopher

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ proto.Viewer        = (*Driver)(nil)
	_ proto.ListingFormer = (*Driver)(nil)
)

// View returns the type, selector, search and gopher+ string of u (RFC
// 1738 section 3.4).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "type", Value: v.Type}, {Key: "selector", Value: v.Selector}, {Key: "search", Value: v.Search}, {Key: "plus", Value: v.Plus}}, nil
}

// ListingForm is FormMenu: a menu's items with their types.
func (d *Driver) ListingForm(*proto.Response) proto.ListingForm { return proto.FormMenu }
