package prospero

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var _ proto.Viewer = (*Driver)(nil)

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
