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

// A Viewer is a driver that describes the scheme-specific parts of its
// URLs, the object named after the scheme in `fetch parse` (DESIGN.md,
// "fetch parse --json keys").
type Viewer interface {
	// View returns u's parts, or the error of u's scheme-specific
	// syntax.
	View(u *uri.URL) (View, error)
}

// View is a JSON object that keeps its keys in order. A value that is a
// View is a nested object; a nil *string is null.
type View []Field

// Field is one key of a View.
type Field struct {
	Key   string
	Value any
}

// Nullable is s, or nil (JSON null) when s is empty.
func Nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// A ListingFormer is a driver whose directory responses are printed in a
// form of their own (`fetch get` of a directory, menu or group list).
type ListingFormer interface {
	ListingForm(resp *Response) ListingForm
}

// ListingForm is how a program prints a directory response's entries.
type ListingForm int

// The listing forms; FormLong for a driver that is no ListingFormer.
const (
	FormLong  ListingForm = iota // like ls -l: mode, size, time, name
	FormNames                    // the names alone, one a line
	FormMenu                     // a gopher menu: type, display string, URL
	FormNews                     // a news group list or article summary
)

// A Local driver's URLs name this machine's resources (file, RFC 1738
// section 3.10). A redirect to one from a driver that is not Local is
// refused: it would read this machine's files on a remote server's say.
type Local interface{ Local() bool }

// A RedirectTarget is a driver whose URLs an HTTP redirect may lead to
// unless the client is told otherwise (fetch.Client.RedirectProtocols):
// the schemes curl follows by default, ftp, http and https.
type RedirectTarget interface{ RedirectTarget() bool }

// A Gateway is a driver that fetches its URLs through a gateway template
// of the user's (Options.Gateways). CheckTemplate reports whether tmpl
// can serve, so that a configuration is refused before any fetch.
type Gateway interface{ CheckTemplate(tmpl string) error }

// A Runner is a driver that makes, for a run of many fetches from one
// server by several workers (a mirror), a driver of its own configuration
// tuned for the run: its own connection pool, which the run closes at its
// end (IdleCloser).
type Runner interface {
	// ForRun returns the run's driver, for jobs workers (jobs > 0)
	// holding at most hostConns connections to the server when
	// hostConns > 0.
	ForRun(jobs, hostConns int) Driver
}
