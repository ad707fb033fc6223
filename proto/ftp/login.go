package ftp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/rfc1738/fetch/internal/netrc"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// DefaultEmail is the anonymous password used when Request.Options.Email
// is empty (RFC 1738 section 3.2.1: "the user name 'anonymous' is supplied,
// and the password is supplied as the Internet e-mail address of the end
// user accessing the resource").
const DefaultEmail = "anonymous@"

// creds are the user name and password one login uses.
type creds struct {
	user, pass string
	prompted   bool // the password came from the terminal
}

// credentials decides the login for u (RFC 1738 section 3.2.1): without
// a user, the login of the host's .netrc entry (netrcLogin), as curl and
// ftp(1) do, else "anonymous" with the e-mail address; a user and a
// password (even an empty one): those; a user alone: userCredentials.
func (d *Driver) credentials(ctx context.Context, u *uri.URL, req *proto.Request, addr string) (creds, error) {
	email := cmp.Or(req.Options.Email, DefaultEmail)
	user := u.User.Username()
	if user == "" {
		login, err := netrcLogin(req.Options.Netrc, u.Hostname())
		if err != nil {
			return creds{}, err
		}
		if login == "" {
			return creds{user: "anonymous", pass: email}, nil
		}
		return d.userCredentials(ctx, u, req, addr, login, email)
	}
	if p, ok := u.User.Password(); ok {
		if err := proto.CheckArg(user); err != nil {
			return creds{}, fmt.Errorf("ftp: user name: %w", err)
		}
		return creds{user: user, pass: p}, nil
	}
	return d.userCredentials(ctx, u, req, addr, user, email)
}

// userCredentials finds the password of user on u's server: the e-mail
// address for "anonymous" or "ftp"; else the .netrc file (lookupNetrc; a
// missing, unreadable or malformed file, or one over 1 MiB, is an error),
// a password typed earlier for the same server and user on this Driver,
// a prompt (no echo), or an error wrapping proto.ErrLogin. It is asked
// for before connecting, so that one answer serves every URL.
func (d *Driver) userCredentials(ctx context.Context, u *uri.URL, req *proto.Request, addr, user, email string) (creds, error) {
	if err := proto.CheckArg(user); err != nil {
		return creds{}, fmt.Errorf("ftp: user name: %w", err)
	}
	if anonymous(user) {
		return creds{user: user, pass: email}, nil
	}
	if path := req.Options.Netrc; path != "" {
		entries, err := readNetrc(path)
		if err != nil {
			return creds{}, err
		}
		if p, ok := lookupNetrc(entries, u.Hostname(), user); ok {
			return creds{user: user, pass: p}, nil
		}
	}
	if p, ok := d.pool().password(addr, user); ok {
		return creds{user: user, pass: p, prompted: true}, nil
	}
	if req.Prompt == nil {
		return creds{}, fmt.Errorf("ftp: user %q on %s has no password: none in the URL or .netrc, and no terminal to ask: %w", user, addr, proto.ErrLogin)
	}
	p, err := req.Prompt.Ask(ctx, fmt.Sprintf("Password for %s on %s: ", user, addr), false)
	if err != nil {
		return creds{}, fmt.Errorf("ftp: password for %q on %s: %w", user, addr, err)
	}
	return creds{user: user, pass: p, prompted: true}, nil
}

// netrcLogin returns the login of host's entry in the .netrc file at
// path, or "" when there is none, or no file: an anonymous URL still
// works for a user who names a .netrc file they do not have. An
// unreadable or malformed file is an error.
func netrcLogin(path, host string) (string, error) {
	if path == "" {
		return "", nil
	}
	entries, err := readNetrc(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return loginFor(entries, host), nil
}

// readNetrc reads the .netrc file at path. A malformed file gives an error
// wrapping the *NetrcError that names the path and the line; a file that
// cannot be read, one wrapping the *fs.PathError.
func readNetrc(path string) ([]netrc.Entry, error) {
	entries, err := netrc.Read(path)
	var ne *netrc.Error
	if errors.As(err, &ne) {
		return nil, fmt.Errorf("ftp: netrc %s: %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("ftp: netrc: %w", err)
	}
	return entries, nil
}

// anonymous reports whether user is a name of the anonymous login, whose
// password is an e-mail address (RFC 1635).
func anonymous(user string) bool {
	lu := strings.ToLower(user)
	return lu == "anonymous" || lu == "ftp"
}
