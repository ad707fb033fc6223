package ftp

import (
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var _ safety.Wire = (*Driver)(nil)

// WireParts returns what the driver writes of u on the control connection
// (RFC 1738 section 3.2.2): USER and PASS, one CWD per directory segment,
// then RETR, LIST or NLST with the name.
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	if _, err := u.FTP(); err != nil {
		return nil, err
	}
	const where = "on the ftp control connection"
	ps := safety.UserParts(u, "ftp", safety.LineArg, where)
	p := safety.URLPath(u)
	last := strings.LastIndexByte(p, '/') + 1
	if i := strings.IndexByte(p[last:], ';'); i >= 0 {
		p = p[:last+i] // ;type=a|i|d, checked by the view
	}
	if p == "" {
		return ps, nil
	}
	part := func(name, seg string, off int) safety.Part {
		return safety.Part{Name: name, Text: seg, In: safety.InURLPath, Off: off, Kind: safety.LineArg, Where: where}
	}
	off := 0
	for i := 1; ; i++ {
		seg, rest, more := strings.Cut(p, "/")
		if !more {
			return append(ps, part("ftp name", seg, off)), nil
		}
		ps = append(ps, part("ftp cwd "+strconv.Itoa(i), seg, off))
		off += len(seg) + 1
		p = rest
	}
}
