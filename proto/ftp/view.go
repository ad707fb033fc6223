package ftp

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ proto.Viewer        = (*Driver)(nil)
	_ proto.ListingFormer = (*Driver)(nil)
)

// View returns the directories, name and typecode of u (RFC 1738 section
// 3.2.2).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.FTP()
	if err != nil {
		return nil, err
	}
	cwd := v.CWD
	if cwd == nil {
		cwd = []string{}
	}
	return proto.View{{Key: "cwd", Value: cwd}, {Key: "name", Value: v.Name}, {Key: "type", Value: proto.Nullable(v.Type)}}, nil
}

// ListingForm is FormNames for an NLST listing (RFC 959 section 4.1.3:
// names only, nothing is known of their types), else FormLong.
func (d *Driver) ListingForm(resp *proto.Response) proto.ListingForm {
	if NotesOf(resp).Format == formatNLST {
		return proto.FormNames
	}
	return proto.FormLong
}
