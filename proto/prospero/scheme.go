package prospero

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

// WireParts returns what a Prospero server or a gateway receives of u,
// decoded: the hsoname and the field values (RFC 1738 section 3.11).
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	if _, err := u.Prospero(); err != nil {
		return nil, err
	}
	const where = "to a Prospero gateway or server"
	fields := strings.Split(safety.URLPath(u), ";")
	ps := []safety.Part{{Name: "prospero hsoname", Text: fields[0], In: safety.InURLPath, Kind: safety.LineText, Where: where}}
	off := len(fields[0]) + 1
	for _, f := range fields[1:] {
		ps = append(ps, safety.Part{Name: "prospero field", Text: f, In: safety.InURLPath, Off: off, Kind: safety.LineText, Where: where})
		off += len(f) + 1
	}
	return ps, nil
}

// SchemeFacts: a line protocol, no user information (RFC 1738 section 3.11).
func (d *Driver) SchemeFacts(string) safety.Facts {
	return safety.Facts{Line: true, NoUserinfo: true, Section: "3.11"}
}

// View returns the hsoname of u and its fields, in order (RFC 1738
// section 3.11).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.Prospero()
	if err != nil {
		return nil, err
	}
	fields := proto.View{}
	for _, f := range v.Fields {
		fields = append(fields, proto.Field{Key: f.Name, Value: f.Value})
	}
	return proto.View{{Key: "hsoname", Value: v.HSOName}, {Key: "fields", Value: fields}}, nil
}
