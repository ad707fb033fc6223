package http

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ safety.Wire    = (*Driver)(nil)
	_ proto.Viewer   = (*Driver)(nil)
	_ proto.Archiver = (*Driver)(nil)
	_ proto.Runner   = (*Driver)(nil)
)

// WireParts returns no part: the path and search are sent in escaped form
// on the request line and never decoded by the client, and the host cannot
// hold an escape. It checks u's syntax (RFC 1738 section 3.3).
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	_, err := u.HTTP()
	return nil, err
}

// SchemeFacts: no line protocol (WireParts), no user information (RFC 1738
// section 3.3; RFC 2818 for https).
func (d *Driver) SchemeFacts(scheme string) safety.Facts {
	if scheme == "https" {
		return safety.Facts{NoUserinfo: true}
	}
	return safety.Facts{NoUserinfo: true, Section: "3.3"}
}

// RedirectTarget: an HTTP redirect may lead to an http or https URL.
func (d *Driver) RedirectTarget() bool { return true }

// View returns the path and search of u (RFC 1738 section 3.3).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.HTTP()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "path", Value: v.Path}, {Key: "search", Value: v.Search}}, nil
}

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

// ForRun returns a driver with d's configuration that keeps connections
// alive, and speaks HTTP/2 to an https server that offers it: an index
// tree is many small files from one server.
func (d *Driver) ForRun(jobs, hostConns int) proto.Driver {
	m := d.Clone()
	m.KeepAlive, m.offerH2 = true, true
	return m
}
