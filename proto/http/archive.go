package http

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Archiver = (*Driver)(nil)

// ArchiveRequest asks for the exchange's bytes as they pass on the
// connection (Response.Exchange), which the capture records.
func (d *Driver) ArchiveRequest(req *proto.Request) bool {
	req.Options.HTTP.Exchange = true
	return false
}

// ArchiveRecord records a HEAD or a body alone too: the exchange's header
// is in the record.
func (d *Driver) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	return proto.ArchiveRecord{Partial: true}
}
