package nntp

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Archiver = (*Driver)(nil)

// ArchiveRequest asks for nothing more.
func (d *Driver) ArchiveRequest(req *proto.Request) bool { return false }

// ArchiveRecord types an article as message/news.
func (d *Driver) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	if resp.Kind == proto.KindData {
		return proto.ArchiveRecord{ContentType: "message/news"}
	}
	return proto.ArchiveRecord{}
}
