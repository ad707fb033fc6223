// Package proto defines the contract between the fetch client and the
// protocol drivers (one package per URL scheme under proto/), and the wire
// helpers they share: the CR/LF/NUL check every driver applies before it
// writes a command, and a connection wrapper that enforces idle deadlines and
// context cancellation.
//
// Drivers import proto, uri and safety; never package fetch or each other.
package proto

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/rfc1738/fetch/uri"
)

// Driver retrieves the resource named by a URL of the schemes it is
// registered for.
//
// Fetch must be safe for concurrent use by multiple goroutines. A non-nil
// error means no response was obtained; a protocol-level refusal ("not
// found", "permission denied", "login failed") is an error that wraps
// ErrNotFound, ErrPermission or ErrLogin, with the server's reply kept
// (textproto.Error for ftp and nntp). On success the caller must close
// Response.Body.
//
// The caller has already checked u with package safety; a driver still
// refuses to write any argument holding CR, LF or NUL to a wire (see
// CheckArg).
type Driver interface {
	Fetch(ctx context.Context, u *uri.URL, req *Request) (*Response, error)
}

// Lister is implemented by drivers that can list a directory or menu
// without transferring its files; the mirror uses it.
//
// List calls fn with each entry as the listing arrives, so that a caller
// holds only what it keeps of each (a listing of a million lines need not
// be in memory at once), and returns what the listing said besides its
// entries. An error of fn ends the listing and is returned. Entries are
// never taken back: a driver that must read a listing again gives only
// what the first reading did not, or fails.
type Lister interface {
	List(ctx context.Context, u *uri.URL, req *Request, fn func(Entry) error) (*Listing, error)
}

// Listing is what a directory listing said besides its entries: the
// notes that tell a caller (a mirror) whether the entries are the whole
// directory. The zero value says they are.
type Listing struct {
	// Unparsed holds the lines that fit no known layout, as the server
	// sent them: the entries may not be the whole directory.
	Unparsed []string
	// Fallback says that no line fit a known layout and the entries are
	// the names of a name list (FTP NLST), each one's type, size and time
	// learnt one by one.
	Fallback bool
	// DotNames, when not empty, says why names that begin with a dot may
	// be missing (the server refused FTP's LIST -a).
	DotNames string
	// Truncated, when not empty, is the server's reply saying it cut the
	// listing short: entries are missing.
	Truncated string
	// CoarseTimes says that the entries' times are coarser than the
	// server can tell for one file (an FTP LIST gives minutes where its
	// MDTM gives seconds), and that it can.
	CoarseTimes bool
	// Warnings are notes about the session (a TLS downgrade) for the
	// person who asked.
	Warnings []string
}

// ListAll lists u with l and returns the entries in one slice, for a
// caller that wants them all at once.
func ListAll(ctx context.Context, l Lister, u *uri.URL, req *Request) ([]Entry, *Listing, error) {
	var entries []Entry
	notes, err := l.List(ctx, u, req, func(e Entry) error {
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return entries, notes, nil
}

// ListEntries hands the entries of a directory response to fn, as
// Lister.List would, and returns its notes: for a driver whose List reads
// the listing whole (Fetch) before it has any entry.
func ListEntries(resp *Response, fn func(Entry) error) (*Listing, error) {
	for _, e := range resp.Entries {
		if err := fn(e); err != nil {
			return nil, err
		}
	}
	if resp.Listing == nil {
		return &Listing{}, nil
	}
	return resp.Listing, nil
}

// IdleCloser is implemented by drivers that keep connections between
// calls. CloseIdleConnections closes every connection not in use.
type IdleCloser interface {
	CloseIdleConnections()
}

// DialFunc opens a connection. The client passes one that enforces its
// timeouts and its private-address policy on the resolved address.
type DialFunc func(ctx context.Context, network, address string) (net.Conn, error)

// Prompter asks the person at the terminal. A nil Prompter means there is
// no terminal: drivers then fail with a clear error instead of asking.
type Prompter interface {
	// Ask shows prompt and returns the answer; echo false hides the input
	// (passwords).
	Ask(ctx context.Context, prompt string, echo bool) (string, error)
}

// A Sessioner is a driver whose URLs name an interactive service (telnet,
// RFC 1738 section 3.8), which Session connects to the terminal in and
// out, of type termType (RFC 1091), instead of a fetch, writing its
// notices (where to log in) to notice.
type Sessioner interface {
	Session(ctx context.Context, u *uri.URL, req *Request, in, out *os.File, termType string, notice io.Writer) error
}

// Request carries the per-call settings of one Fetch. The zero value is
// valid: default dialer, no trace, no prompts, whole resource.
type Request struct {
	// Dial opens connections. Nil means a net.Dialer with ConnectTimeout.
	Dial DialFunc

	// ConnectTimeout bounds each connection attempt. Zero means 30 s.
	ConnectTimeout time.Duration

	// IdleTimeout bounds each wait for the peer (a reply, the next bytes of
	// a body). Zero means 60 s.
	IdleTimeout time.Duration

	// Offset asks for the resource from this byte on (resume). Zero means
	// from the start. A driver that cannot resume sets Response.Offset to 0.
	Offset int64

	// Trace receives the protocol transcript, one line per command or reply,
	// passwords redacted. Nil means no transcript.
	Trace io.Writer

	// Prompt asks the person at the terminal; nil when there is none.
	Prompt Prompter

	// Search answers a gopher type 7 item whose URL has no search string.
	// Empty means none given.
	Search string

	// Form holds Gopher+ +ASK answers by question text or index ("1", "2",
	// ...). Nil means none given.
	Form map[string]string

	// Raw asks for the bytes as the server sent them (a gopher menu not
	// parsed, text not unstuffed). False means the driver's usual decoding.
	Raw bool

	// Options holds the scheme-specific settings (see Options). The zero
	// value is every driver's default.
	Options Options
}

// Kind says what a Response holds.
type Kind int

const (
	// KindData is a file or document: Body holds its bytes.
	KindData Kind = iota
	// KindDirectory is a directory listing or menu: Entries holds the
	// parsed entries; Body holds the raw listing as the server sent it.
	KindDirectory
	// KindAdvisory is information about a service that is not a data object
	// (telnet, mailto): Info holds it as fields, and Body as text for people.
	KindAdvisory
)

// Response is the result of a successful Fetch.
type Response struct {
	// Kind says what the response holds.
	Kind Kind

	// Body streams the bytes. It is never nil; the caller must close it.
	// Close may be called more than once.
	Body io.ReadCloser

	// Size is the length of the whole resource in bytes, or -1 if unknown.
	Size int64

	// Offset is the byte at which Body starts: Request.Offset when the
	// driver resumed, 0 when it sends from the start.
	Offset int64

	// ModTime is the modification time, zero if unknown.
	ModTime time.Time

	// MediaType is the MIME type when known ("text/plain"); empty otherwise.
	MediaType string

	// ItemType is the gopher item type of the resource; empty otherwise.
	ItemType string

	// Name is the remote file name suggested for -O; empty if none.
	Name string

	// Entries lists a directory or menu (KindDirectory).
	Entries []Entry

	// Listing holds what a directory listing said besides its entries
	// (KindDirectory), when the driver tells; nil otherwise.
	Listing *Listing

	// Info holds advisory fields (KindAdvisory) and scheme-specific
	// metadata (Gopher+ attributes, article headers) for --json output.
	Info map[string]any

	// Exchange holds the bytes of an HTTP exchange as they passed on the
	// connection, when Request.Options.HTTP.Exchange asked for them (an
	// archive record, package warc); nil otherwise.
	Exchange *Exchange

	// NotModified reports that the server said the resource did not
	// change since Request.Options.IfModifiedSince (HTTP 304).
	// Body is then empty and Size -1.
	NotModified bool

	// Location is the URL the response came from when the fetch followed
	// redirects to get it (fetch.Client sets it); nil when it came from
	// the URL asked for. Drivers leave it nil: they answer a redirect
	// with a *Redirect. A mirror learns from it that an HTTP link without
	// a final "/" names a directory (the server redirected it to the
	// path with one).
	Location *uri.URL
}

// Exchange is an HTTP exchange as it passed on the connection (see
// Response.Exchange).
type Exchange struct {
	// Request is the request as written.
	Request []byte
	// Response is the final response's status line and header, through
	// the empty line that ends it, as received (interim 1xx responses
	// left out).
	Response []byte
	// Status is the final response's status code.
	Status int
	// Framed, when not nil, says that the body came transfer-coded
	// (chunked): the body the caller reads is decoded, and Framed sends
	// the body as received, its framing included, to w: what arrived so
	// far at once, the rest as it is read. It must be called before the
	// body is read; it fails when part of the body was not kept.
	Framed func(w io.Writer) error
}

// EntryType classifies a directory entry.
type EntryType string

const (
	EntryFile    EntryType = "file"
	EntryDir     EntryType = "dir"
	EntryLink    EntryType = "link"
	EntryInfo    EntryType = "info" // a gopher info line or message
	EntryOther   EntryType = "other"
	EntryService EntryType = "service" // telnet and similar gopher items
)

// Entry is one item of a directory listing or menu.
type Entry struct {
	// Name is the entry's name as the server gave it; for gopher, the
	// display string. It may hold any byte: never use it as a local path
	// without checking it.
	Name string `json:"name"`
	// Type classifies the entry.
	Type EntryType `json:"type"`
	// Size in bytes; -1 if unknown.
	Size int64 `json:"size"`
	// ModTime is the modification time; zero if unknown.
	ModTime time.Time `json:"time,omitzero"`
	// Target is a symbolic link's target; empty otherwise.
	Target string `json:"target,omitempty"`
	// URL is the entry's own URL, ready to fetch; empty when it has none.
	URL string `json:"url,omitempty"`
	// ItemType is the gopher item type; empty otherwise.
	ItemType string `json:"item_type,omitempty"`
	// Extra holds scheme-specific fields (gopher selector, host, port,
	// Gopher+ flag; ftp permissions).
	Extra map[string]string `json:"extra,omitempty"`
}

// Sentinel errors. Drivers wrap them (with %w) around the server's reply, so
// that both errors.Is and the server's own text survive.
var (
	// ErrNotFound: the server says the resource does not exist
	// (FTP 550, NNTP 411/423/430, HTTP 404, gopher error item).
	ErrNotFound = errors.New("not found")
	// ErrPermission: the server refuses access (FTP 550 permission, 553, HTTP 403).
	ErrPermission = errors.New("permission denied")
	// ErrLogin: authentication failed or is required (FTP 530, NNTP 480/481, HTTP 401).
	ErrLogin = errors.New("login failed")
	// ErrNoAccessMethod: no way to reach this resource from here (wais and
	// prospero without a gateway, file: on another host).
	ErrNoAccessMethod = errors.New("no access method")
	// ErrUnsafeArgument: an argument would put CR, LF or NUL on a wire.
	ErrUnsafeArgument = errors.New("argument contains CR, LF or NUL")
	// ErrBusy: the server refused the connection because it has too many
	// (FTP 421 as its greeting, or 530 saying "too many" to the login);
	// the connections already open still serve, and a later attempt may.
	ErrBusy = errors.New("server busy: too many connections")
	// ErrNeedInput: the request needs an answer (a password, a search
	// string, a form) and there is no terminal to ask.
	ErrNeedInput = errors.New("input needed")
	// ErrProtocol: the server broke the protocol: a malformed, over-long
	// or impossible reply, or a listing over the configured cap.
	// *ProtocolError matches it.
	ErrProtocol = errors.New("the server broke the protocol")
)

// DefaultListingCap is the most bytes of one directory listing, gopher
// menu, HTTP index page or news list that is read, the same for every
// scheme, where neither Options.ListingCap nor a driver's field says
// otherwise. 64 MiB holds some 600,000 lines of an ls -l listing.
const DefaultListingCap = 64 << 20

// ProtocolError is a peer that broke the protocol: a malformed reply, an
// over-long line, a reply that does not fit the command.
type ProtocolError struct {
	Proto string // "ftp", "gopher", ...
	Msg   string
}

func (e *ProtocolError) Error() string { return e.Proto + ": protocol error: " + e.Msg }

// Is reports target == ErrProtocol, so that errors.Is(err, ErrProtocol)
// holds for every ProtocolError.
func (e *ProtocolError) Is(target error) bool { return target == ErrProtocol }

// Redirect is returned by a driver that cannot serve a URL itself but knows
// another URL that names the resource: an HTTP 3xx Location, a wais or
// prospero gateway, file://host/ retried over ftp. The client parses URL,
// checks it with package safety, and fetches it (a bounded number of hops).
// A driver never follows such a URL on its own.
type Redirect struct {
	// URL is the target, absolute.
	URL string
	// Reason says why, for the trace ("301 Moved Permanently", "gateway").
	Reason string
	// Limited says that the caller's list of redirect protocols (curl's
	// --proto-redir) bounds the target's scheme: a server's redirect
	// from HTTP.
	Limited bool
}

func (r *Redirect) Error() string { return "redirect to " + r.URL + " (" + r.Reason + ")" }
