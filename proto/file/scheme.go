package file

import (
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ safety.Wire  = (*Driver)(nil)
	_ proto.Viewer = (*Driver)(nil)
)

// WireParts returns the path of u (RFC 1738 section 3.10): a local path is
// opened, where a NUL would cut the name short. A file URL for another
// host may be fetched over ftp (--file-via-ftp), so its path is an ftp
// argument.
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	v, err := u.File()
	if err != nil {
		return nil, err
	}
	text := u.Path
	if u.RawQuery != "" || u.ForceQuery {
		text += "?" + u.RawQuery
	}
	if v.IsLocal() {
		return []safety.Part{{Name: "file path", Text: text, In: safety.InPath, Kind: safety.NULOnly, Where: "into a local file name"}}, nil
	}
	return []safety.Part{{Name: "file path", Text: text, In: safety.InPath, Kind: safety.LineArg, Where: "on an ftp control connection (--file-via-ftp)"}}, nil
}

// SchemeFacts: a line protocol (--file-via-ftp), no user information
// (RFC 1738 section 3.10).
func (d *Driver) SchemeFacts(string) safety.Facts {
	return safety.Facts{Line: true, NoUserinfo: true, Section: "3.10"}
}

// Local: a file URL names this machine's files.
func (d *Driver) Local() bool { return true }

// View returns the host and path of u (RFC 1738 section 3.10).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.File()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "host", Value: v.Host}, {Key: "path", Value: v.Path}}, nil
}
