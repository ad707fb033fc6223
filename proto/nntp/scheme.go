package nntp

import (
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ safety.Wire         = (*Driver)(nil)
	_ proto.Viewer        = (*Driver)(nil)
	_ proto.ListingFormer = (*Driver)(nil)
	_ proto.Archiver      = (*Driver)(nil)
)

// WireParts returns what the driver writes of u on the NNTP command line:
// for nntp, GROUP <group> then ARTICLE <number> (RFC 1738 section 3.7; the
// number is digits only, as the view checks); for news, GROUP <group>,
// ARTICLE <message-id> or LIST (section 3.6), on the server from the
// configuration or, in the news://server/ form of RFC 5538, from the URL.
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	const where = "on the NNTP command line"
	if u.Scheme == "nntp" {
		if _, err := u.NNTP(); err != nil {
			return nil, err
		}
		group, _, _ := strings.Cut(safety.URLPath(u), "/")
		return []safety.Part{{Name: "nntp group", Text: group, In: safety.InURLPath, Kind: safety.LineArg, Where: where}}, nil
	}
	v, err := u.News()
	if err != nil {
		return nil, err
	}
	pt := safety.Part{Name: "news group", Text: u.Opaque, In: safety.InOpaque, Kind: safety.LineArg, Where: where}
	if pt.Text == "" {
		pt.Text, pt.In = safety.URLPath(u), safety.InURLPath
	}
	switch {
	case v.Article != "":
		pt.Name = "news article"
	case v.All:
		pt.Name = "news"
	}
	return []safety.Part{pt}, nil
}

// SchemeFacts: a line protocol, no user information (RFC 1738 sections 3.6
// and 3.7); news://server/ (RFC 5538) dials NNTP's port.
func (d *Driver) SchemeFacts(scheme string) safety.Facts {
	if scheme == "news" {
		return safety.Facts{Port: uri.DefaultPort("nntp"), Line: true, NoUserinfo: true, Section: "3.6"}
	}
	return safety.Facts{Line: true, NoUserinfo: true, Section: "3.7"}
}

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

// ArchiveRequest asks for nothing more.
func (d *Driver) ArchiveRequest(req *proto.Request) bool { return false }

// ArchiveRecord types an article as message/news.
func (d *Driver) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	if resp.Kind == proto.KindData {
		return proto.ArchiveRecord{ContentType: "message/news"}
	}
	return proto.ArchiveRecord{}
}
