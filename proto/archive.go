package proto

import "github.com/rfc1738/fetch/uri"

// An Archiver is a driver whose captures an archive (a WARC writer) records
// in its scheme's own terms. It is optional: the capture of a driver
// without it is named by its URL and typed by its media type or name.
type Archiver interface {
	// ArchiveRequest prepares req, a request its caller owns, for a
	// capture (asking the driver for the bytes it will record), and
	// reports whether the control connection's transcript should be kept
	// for a metadata record.
	ArchiveRequest(req *Request) (transcript bool)

	// ArchiveRecord describes the capture of resp, fetched from u.
	ArchiveRecord(u *uri.URL, resp *Response) ArchiveRecord
}

// ArchiveRecord is what an Archiver says of one capture.
type ArchiveRecord struct {
	// Target is the record's URI: the URL without user information when
	// empty.
	Target string
	// ContentType is the record's content type; when empty, the
	// response's media type or the one its name implies.
	ContentType string
	// Metadata records the body as a description of the resource (a
	// metadata record), not as the resource.
	Metadata bool
	// Partial says that a response to a request for part of a resource
	// (Options.HeadersOnly or BodyOnly) is still recorded: an HTTP HEAD
	// is a response without payload.
	Partial bool
}
