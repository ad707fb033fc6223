// Package mailto implements the mailto URL scheme of RFC 1738 section 3.5:
// mailto:<rfc822-addr-spec>.
//
// A mailto URL designates an Internet mailing address; "there is no sense
// in which it designates an object". [Driver.Fetch] therefore returns the
// decoded address as advice and sends no mail. Within mailto URLs there are
// no reserved characters, so "?" and "&" are part of the address (the
// header fields of RFC 2368 and RFC 6068 are not interpreted).
package mailto

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Driver is the mailto driver. Its zero value is ready to use and it is
// safe for concurrent use. It makes no connection.
type Driver struct{}

var _ proto.Driver = (*Driver)(nil)

// Fetch returns an advisory response for the mailto URL u: Kind
// proto.KindAdvisory, Info {"address": the decoded address} and a Body
// holding one line for a person, "mail address: x@y (fetch does not send
// mail)". An address shown with bytes that could drive a terminal is
// quoted. An address that decodes to CR, LF or NUL is refused with an error
// wrapping proto.ErrUnsafeArgument (it could forge lines of output or, in a
// mail program, header lines).
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	v, err := u.Mailto()
	if err != nil {
		return nil, err
	}
	if err := proto.CheckArg(v.Address); err != nil {
		return nil, fmt.Errorf("mailto: address: %w", err)
	}
	text := "mail address: " + termtext.Quote(v.Address) + " (fetch does not send mail)\n"
	return &proto.Response{
		Kind:      proto.KindAdvisory,
		Body:      io.NopCloser(strings.NewReader(text)),
		Size:      int64(len(text)),
		MediaType: "text/plain",
		Info:      map[string]any{"address": v.Address},
	}, nil
}
