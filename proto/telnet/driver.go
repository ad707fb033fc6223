package telnet

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Driver is the telnet driver. Its zero value is ready to use and it is
// safe for concurrent use. Fetch never connects: a telnet URL names an
// interactive service (RFC 1738 section 3.8), which [Interactive] opens.
type Driver struct{}

var _ proto.Driver = (*Driver)(nil)

// Service is what a telnet URL says about its service.
type Service struct {
	// Host is the host name without IPv6 brackets; Port the port number
	// (23 when the URL has none).
	Host string
	Port int
	// User is the suggested user name; empty when the URL suggests none.
	User string
	// PasswordSuggested reports a password in the URL. The password itself
	// is not kept here, so that it cannot be printed by accident.
	PasswordSuggested bool
}

// Addr returns host:port for dialling.
func (s *Service) Addr() string { return net.JoinHostPort(s.Host, strconv.Itoa(s.Port)) }

// String is the advice shown to a person, for example
// "telnet service at host:23; suggested user: guest; a password was
// suggested (not shown)". A user name with non-printable characters is
// shown quoted.
func (s *Service) String() string {
	var b strings.Builder
	b.WriteString("telnet service at " + s.Addr())
	if s.User != "" {
		b.WriteString("; suggested user: " + termtext.Quote(s.User))
	}
	if s.PasswordSuggested {
		b.WriteString("; a password was suggested (not shown)")
	}
	return b.String()
}

// ParseService returns the service a telnet URL names. It fails with a
// *uri.Error when u is not a well-formed telnet URL (a path other than "/",
// no host), and with an error wrapping proto.ErrUnsafeArgument when the
// user name or password decodes to CR, LF or NUL.
func ParseService(u *uri.URL) (*Service, error) {
	if _, err := u.Telnet(); err != nil {
		return nil, err
	}
	if u.Host == "" {
		return nil, &uri.Error{Offset: len("telnet://"), Component: "host", Err: uri.Reason("telnet URL names no host")}
	}
	s := &Service{Host: u.Hostname(), Port: u.PortNumber()}
	if u.User != nil {
		s.User = u.User.Username()
		if err := proto.CheckArg(s.User); err != nil {
			return nil, fmt.Errorf("telnet: user name: %w", err)
		}
		if pw, ok := u.User.Password(); ok {
			if err := proto.CheckArg(pw); err != nil {
				// The offset CheckArg reports says nothing of the
				// password's content beyond the bad byte's position.
				return nil, fmt.Errorf("telnet: password: %w", err)
			}
			s.PasswordSuggested = true
		}
	}
	return s, nil
}

// Fetch returns an advisory response for the telnet URL u: Kind
// proto.KindAdvisory, Info with "service" ("telnet"), "host", "port",
// "user" (absent when none is suggested) and "password_suggested", and a
// Body holding the advice as one line of text. It opens no connection.
// The password is never part of the response.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s, err := ParseService(u)
	if err != nil {
		return nil, err
	}
	info := map[string]any{
		"service":            "telnet",
		"host":               s.Host,
		"port":               s.Port,
		"password_suggested": s.PasswordSuggested,
	}
	if s.User != "" {
		info["user"] = s.User
	}
	text := s.String() + "\n"
	return &proto.Response{
		Kind:      proto.KindAdvisory,
		Body:      io.NopCloser(strings.NewReader(text)),
		Size:      int64(len(text)),
		MediaType: "text/plain",
		Info:      info,
	}, nil
}
