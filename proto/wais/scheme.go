package wais

import (
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ safety.Wire  = (*Driver)(nil)
	_ proto.Viewer = (*Driver)(nil)
)

// WireParts returns what a gateway receives of u, decoded: the database,
// wtype, wpath and search (RFC 1738 section 3.9). No access method is
// built in.
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	if _, err := u.WAIS(); err != nil {
		return nil, err
	}
	const where = "to a WAIS gateway or server"
	names := []string{"wais database", "wais wtype", "wais wpath"}
	var ps []safety.Part
	off := 0
	for i, seg := range strings.Split(strings.TrimPrefix(u.Path, "/"), "/") {
		ps = append(ps, safety.Part{Name: names[i], Text: seg, In: safety.InURLPath, Off: off, Kind: safety.LineText, Where: where})
		off += len(seg) + 1
	}
	if u.RawQuery != "" || u.ForceQuery {
		ps = append(ps, safety.Part{Name: "wais search", Text: u.RawQuery, In: safety.InQuery, Kind: safety.LineText, Where: where})
	}
	return ps, nil
}

// SchemeFacts: a line protocol, no user information (RFC 1738 section 3.9).
func (d *Driver) SchemeFacts(string) safety.Facts {
	return safety.Facts{Line: true, NoUserinfo: true, Section: "3.9"}
}

// View returns the database, search, wtype and wpath of u (RFC 1738
// section 3.9).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.WAIS()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "database", Value: v.Database}, {Key: "search", Value: v.Search}, {Key: "wtype", Value: v.WType}, {Key: "wpath", Value: v.WPath}}, nil
}
