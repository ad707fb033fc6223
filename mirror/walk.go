package mirror

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// menuName is the file a gopher menu is kept in, in the directory that
// stands for it, so that the hole can be browsed offline.
const menuName = "gophermap"

// dirJob is one remote directory to list.
type dirJob struct {
	rel string
	url *uri.URL
	// above identifies the directories above this one on the walk, from
	// the start down, by what their listings hold (see linkAbove).
	above []listingSum
	// depth is how many directories down from the start it is (the
	// start: 0), by the walk; see bounds.
	depth int
	// ahead: its lister holds the next directory to list (walk), so
	// the listing sends the EPSV of that one ahead.
	ahead bool
}

// listingSum identifies a directory by what its listing holds: by its
// entries' unique facts (unique; ftp: entrySum), else by their names,
// types, sizes and times (likeSum).
type listingSum struct {
	rel    string // the directory, relative to the target ("" for the start)
	unique bool
	sum    [sha256.Size]byte
}

// listing is what one directory holds.
type listing struct {
	dirs    []dirJob
	files   []remoteFile
	skipped []EntryReport
	menu    []byte // gopher: the menu's bytes, kept as a file
	// gopher: how the menu's data ended (gopher.InfoMenuEnd); http: how
	// the index page's did (MenuEndLength or MenuEndClose); ftp:
	// MenuEndClose (nothing gives a listing's length); or "".
	menuEnd string
	// http: the index page's SHA-256; ftp: the listing's likeSum. With
	// Delete, a listing that ended at the close is read again before
	// anything below it is deleted (confirmMenus).
	listSum *[sha256.Size]byte
	// What listSum was taken of, for the report: "listing" (ftp) or
	// "index page" (http).
	listWhat string
	// ftp: the listing's lines that fit no known layout, and whether the
	// names came from the NLST fallback.
	unparsed []string
	fallback bool
	// ftp: why names that begin with a dot may be missing from the
	// listing (the server refused LIST -a), or "".
	dotNames string
	// ftp: the server's completion reply when it said it cut the
	// listing short, or "".
	truncated string
	// ftp: entrySum of the entries, when every one has a unique fact
	// (hasUnique).
	unique    [sha256.Size]byte
	hasUnique bool
	// ftp: likeSum of every entry listed, files left out by the run's
	// Include and Exclude too, which files lacks (hasLike).
	like    [sha256.Size]byte
	hasLike bool
}

// walker knows how one scheme lays out a tree.
type walker interface {
	startURL() *uri.URL
	list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error)
	// fileOptions returns per-request options for a file transfer.
	fileOptions(rf remoteFile) proto.Options
}

// A dirLinker is a walker whose links to files may name directories: an
// HTTP index page links each entry by its path alone, and some servers
// (mini_httpd, micro_httpd) link a directory without its final "/",
// then redirect a request for it to the path with one.
type dirLinker interface {
	// redirected says what the file link rf is, now that fetching it
	// was redirected to loc: a directory of the tree (isDir, d), an
	// entry not to keep (err, the reason it is skipped), or a file, as
	// the link said (neither).
	redirected(rf remoteFile, loc *uri.URL) (d dirJob, isDir bool, err error)
}

// walkers make the walker of a start URL, one per tree form (FTP
// directories, gopher menus, HTTP index pages). Each reads start through
// its scheme's view of package uri, and fails with an error wrapping
// uri.ErrOtherScheme when start is of another scheme.
var walkers = []func(start *uri.URL, opts Options) (walker, error){ftpTree, tree(newGopherWalker), tree(newHTTPWalker)}

// tree is the walker maker of a scheme whose walker takes no options.
func tree[W walker](nw func(*uri.URL) (W, error)) func(*uri.URL, Options) (walker, error) {
	return func(u *uri.URL, _ Options) (walker, error) {
		w, err := nw(u)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
}

func newWalker(start *uri.URL, opts Options) (walker, error) {
	for _, nw := range walkers {
		if w, err := nw(start, opts); !errors.Is(err, uri.ErrOtherScheme) {
			return w, err
		}
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupported, start.Scheme)
}

// fetchListing fetches a listing URL and reads its body: kept (keep), or
// read through (the driver gave the entries). It fails with an error
// wrapping proto.ErrProtocol as soon as more than the request's
// ListingCap bytes arrive.
func fetchListing(ctx context.Context, f Fetcher, req *proto.Request, u *uri.URL, keep bool) (*proto.Response, []byte, error) {
	resp, err := f.Fetch(ctx, u, req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	limit := cmp.Or(max(req.Options.ListingCap, 0), proto.DefaultListingCap)
	body := io.LimitReader(resp.Body, limit+1)
	var b []byte
	var n int64
	if keep {
		b, err = io.ReadAll(body)
		n = int64(len(b))
	} else {
		n, err = io.Copy(io.Discard, body)
	}
	switch {
	case err != nil:
		return nil, nil, err
	case n > limit:
		return nil, nil, fmt.Errorf("mirror: listing of %s is over %d bytes (--max-listing): %w", u.Redacted(), limit, proto.ErrProtocol)
	}
	return resp, b, nil
}

// skip adds to l an entry that is not mirrored, reported under p:
// skipped when it is not an entry of the tree to copy (another server, a
// name that leaves the target), failed when it is one whose name cannot
// be a local name (errNotLocal). rel, when known, is its relative path,
// so that --exclude can leave it out of the report (run.take).
func (l *listing) skip(p, rel string, u *uri.URL, err error) {
	r := EntryReport{Path: p, Status: StatusSkipped, Reason: err.Error(), err: err, rel: rel}
	if errors.Is(err, errNotLocal) {
		r.Status = StatusFailed
	}
	if u != nil {
		r.URL = u.Redacted()
	}
	l.skipped = append(l.skipped, r)
}

// quoteName renders a hostile remote name safely for a report.
func quoteName(name string) string { return fmt.Sprintf("%q", name) }

// sameServer reports whether u is on the same host and port as start.
func sameServer(start, u *uri.URL) bool {
	return strings.EqualFold(start.Scheme, u.Scheme) &&
		start.Hostname() == u.Hostname() && start.PortNumber() == u.PortNumber()
}

// withPath returns a shallow copy of u with a new path and no query.
func withPath(u *uri.URL, p string) *uri.URL {
	c := *u
	c.Path = p
	c.RawQuery, c.ForceQuery = "", false
	c.Fragment, c.HasFragment = "", false
	return &c
}
