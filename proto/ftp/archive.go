package ftp

import (
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Archiver = (*Driver)(nil)

// ArchiveRequest keeps the control connection's transcript for the
// capture's metadata record.
func (d *Driver) ArchiveRequest(req *proto.Request) bool { return true }

// ArchiveRecord names a file's capture by the transfer that was made
// (RFC 1738 section 3.2.2): without a typecode when it was binary, the
// file's own bytes, under the URL web archives and wget give it (a mirror
// asks for every file with ";type=i"); with ";type=a" when it was text
// with its line ends converted (a typecode in the URL, or the guess from
// the name), since those are other bytes. A listing is text/plain.
func (d *Driver) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	if resp.Kind == proto.KindDirectory {
		return proto.ArchiveRecord{ContentType: "text/plain"}
	}
	t, _ := TypeOf(resp)
	if t == "" || resp.Kind != proto.KindData {
		return proto.ArchiveRecord{}
	}
	v := *u
	v.User = nil
	v.Path = WithoutTypecode(v.Path)
	if t == "A" {
		v.Path += ";type=a"
	}
	return proto.ArchiveRecord{Target: v.String()}
}

// WithoutTypecode removes an FTP url-path's ";type=X" (RFC 1738 section
// 3.2.2), if any.
func WithoutTypecode(p string) string {
	if i := strings.LastIndex(p, ";"); i >= 0 && len(p)-i == len(";type=X") && strings.EqualFold(p[i:i+6], ";type=") {
		return p[:i]
	}
	return p
}
