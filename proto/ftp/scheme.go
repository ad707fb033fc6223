package ftp

import (
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var (
	_ safety.Wire         = (*Driver)(nil)
	_ proto.Viewer        = (*Driver)(nil)
	_ proto.ListingFormer = (*Driver)(nil)
	_ proto.Archiver      = (*Driver)(nil)
	_ proto.Runner        = (*Driver)(nil)
)

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

// SchemeFacts: a line protocol with user information (RFC 1738 section 3.2).
func (d *Driver) SchemeFacts(string) safety.Facts { return safety.Facts{Line: true} }

// RedirectTarget: an HTTP redirect may lead to an ftp URL.
func (d *Driver) RedirectTarget() bool { return true }

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
	if resp.Info["ftp_listing"] == formatNLST {
		return proto.FormNames
	}
	return proto.FormLong
}

// ArchiveRequest keeps the control connection's transcript for the
// capture's metadata record.
func (d *Driver) ArchiveRequest(req *proto.Request) bool { return true }

// ArchiveRecord names a file's capture by the transfer that was made
// (RFC 1738 section 3.2.2): without a typecode when it was binary, the
// file's own bytes, under the URL web archives and wget give it (a mirror
// asks for every file with ";type=i"); with ";type=a" when it was text
// with its line ends converted (a typecode in the URL, or the guess from
// the name), since those are other bytes. A listing is text/plain.
func (d *Driver) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	if resp.Kind == proto.KindDirectory {
		return proto.ArchiveRecord{ContentType: "text/plain"}
	}
	t, _ := TypeOf(resp)
	if t == "" || resp.Kind != proto.KindData {
		return proto.ArchiveRecord{}
	}
	v := *u
	v.User = nil
	v.Path = WithoutTypecode(v.Path)
	if t == "A" {
		v.Path += ";type=a"
	}
	return proto.ArchiveRecord{Target: v.String()}
}

// WithoutTypecode removes an FTP url-path's ";type=X" (RFC 1738 section
// 3.2.2), if any.
func WithoutTypecode(p string) string {
	if i := strings.LastIndex(p, ";"); i >= 0 && len(p)-i == len(";type=X") && strings.EqualFold(p[i:i+6], ";type=") {
		return p[:i]
	}
	return p
}

// TypeOf returns the representation type of the data resp's body carries,
// "A" (text, line ends converted) or "I" (the stored bytes), and whether
// the driver chose "A" from the file's name (RFC 1738 section 3.2.2: no
// ;type= in the URL). typ is "" when resp is not FTP data.
func TypeOf(resp *proto.Response) (typ string, guessed bool) {
	typ, _ = resp.Info["ftp_type"].(string)
	guessed, _ = resp.Info["ftp_type_guessed"].(bool)
	return typ, guessed
}

// ForRun returns a driver with d's configuration (all of it: TLS, listing
// commands, bounds) that keeps a logged-in connection idle for each of the
// run's jobs, since each worker keeps its own control connection: with
// the default of two, the workers of a run of eight would log in again
// and again. It holds at most hostConns connections to a server when that
// is set. Its workers retrieve file after file on each connection, so it
// pipelines the passive-mode commands (PipelinePassive).
func (d *Driver) ForRun(jobs, hostConns int) proto.Driver {
	m := d.Clone()
	if m.MaxIdleConnsPerHost >= 0 {
		m.MaxIdleConnsPerHost = max(m.MaxIdleConnsPerHost, jobs)
	}
	if hostConns > 0 && (m.MaxConnsPerHost <= 0 || m.MaxConnsPerHost > hostConns) {
		m.MaxConnsPerHost = hostConns
	}
	m.PipelinePassive = true
	return m
}
