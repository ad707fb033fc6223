package nntp

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ proto.Viewer        = (*Driver)(nil)
	_ proto.ListingFormer = (*Driver)(nil)
)

// View returns the group and article of u: for nntp, a number (RFC 1738
// section 3.7); for news, a message-id, or all groups (section 3.6).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	if u.Scheme == "nntp" {
		v, err := u.NNTP()
		if err != nil {
			return nil, err
		}
		return proto.View{{Key: "group", Value: v.Group}, {Key: "article", Value: v.Article}}, nil
	}
	v, err := u.News()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "group", Value: v.Group}, {Key: "article", Value: proto.Nullable(v.Article)}, {Key: "all", Value: v.All}}, nil
}

// ListingForm is FormNews: a group list or an article summary.
func (d *Driver) ListingForm(*proto.Response) proto.ListingForm { return proto.FormNews }
