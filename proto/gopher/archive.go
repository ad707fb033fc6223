package gopher

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Archiver = (*Driver)(nil)

// ArchiveRequest asks for nothing more.
func (d *Driver) ArchiveRequest(req *proto.Request) bool { return false }

// ArchiveRecord types a menu as text/x-gopher-menu, and records Gopher+
// attribute blocks as a metadata record of the item they describe.
func (d *Driver) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	if _, ok := AttributesOf(resp); ok {
		return proto.ArchiveRecord{ContentType: "text/x-gopher-plus-attributes", Metadata: true}
	}
	if resp.Kind == proto.KindDirectory {
		return proto.ArchiveRecord{ContentType: "text/x-gopher-menu"}
	}
	return proto.ArchiveRecord{}
}
