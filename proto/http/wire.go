package http

import (
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var _ safety.Wire = (*Driver)(nil)

// WireParts returns no part: the path and search are sent in escaped form
// on the request line and never decoded by the client, and the host cannot
// hold an escape. It checks u's syntax (RFC 1738 section 3.3).
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	_, err := u.HTTP()
	return nil, err
}
