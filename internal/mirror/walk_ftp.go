package mirror

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// ftpWalker lists FTP directories (RFC 1738 section 3.2: a url-path that
// ends in "/" names the directory) and fetches files with an explicit
// typecode: ;type=i (byte-exact) unless the starting URL said ;type=a.
type ftpWalker struct {
	start    *uri.URL
	typecode string
}

func newFTPWalker(u *uri.URL) (*ftpWalker, error) {
	v, err := u.FTP()
	if err != nil {
		return nil, err
	}
	w := &ftpWalker{typecode: "i"}
	if v.Type == "a" {
		w.typecode = "a"
	}
	p := u.Path
	if i := strings.LastIndex(p, ";"); i >= 0 && strings.LastIndexByte(p, '/') < i {
		p = p[:i]
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	w.start = withPath(u, p)
	return w, nil
}

func (w *ftpWalker) startURL() *uri.URL { return w.start }

func (w *ftpWalker) fileOptions(remoteFile) map[string]string {
	// Sizes and times come from the listing; the driver need not ask again.
	return map[string]string{"ftp-stat": "0"}
}

func (w *ftpWalker) list(ctx context.Context, f Fetcher, req *proto.Request, d dirJob) (*listing, error) {
	resp, _, err := fetchListing(ctx, f, req, d.url)
	if err != nil {
		return nil, err
	}
	if resp.Kind != proto.KindDirectory {
		return nil, fmt.Errorf("mirror: %s is not a directory", d.url.Redacted())
	}
	l := &listing{}
	for _, e := range resp.Entries {
		if e.Name == "." || e.Name == ".." {
			continue
		}
		rel := joinRel(d.rel, e.Name)
		if err := checkName(e.Name); err != nil {
			l.skipped = append(l.skipped, skip(joinRel(d.rel, quoteName(e.Name)), nil, err))
			continue
		}
		if d.rel == "" && e.Name == stateDir {
			l.skipped = append(l.skipped, skip(rel, nil, errNameReserved))
			continue
		}
		esc := uri.Escape(e.Name, "")
		switch e.Type {
		case proto.EntryDir:
			l.dirs = append(l.dirs, dirJob{rel: rel, url: withPath(d.url, d.url.Path+esc+"/")})
		case proto.EntryLink:
			if e.Target == "" {
				l.skipped = append(l.skipped, skip(rel, nil, errors.New("symbolic link without a target in the listing")))
				continue
			}
			l.files = append(l.files, remoteFile{rel: rel, url: withPath(d.url, d.url.Path+esc), size: -1, link: e.Target})
		case proto.EntryFile:
			u := withPath(d.url, d.url.Path+esc+";type="+w.typecode)
			l.files = append(l.files, remoteFile{rel: rel, url: u, size: e.Size, mtime: e.ModTime})
		default:
			l.skipped = append(l.skipped, skip(rel, nil, fmt.Errorf("not a regular file (%s)", e.Type)))
		}
	}
	return l, nil
}
