package uri

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/probe"
)

// DefaultPort returns the default port of scheme (case-insensitive), or 0
// when the scheme has none (file, mailto, news) or is unknown: ftp 21,
// http 80, gopher 70, nntp 119, telnet 23, wais 210, prospero 1525 (RFC 1738
// sections 3.2 to 3.11), and https 443 (RFC 2818).
func DefaultPort(scheme string) int { return defaultPorts[strings.ToLower(scheme)] }

var defaultPorts = map[string]int{
	"ftp": 21, "http": 80, "https": 443, "gopher": 70, "nntp": 119, "telnet": 23, "wais": 210, "prospero": 1525,
}

// IsHTTP reports whether scheme, in lower case as Parse gives it, is http
// (RFC 1738 section 3.3) or https (RFC 2818), the schemes of the HTTP
// view.
func IsHTTP(scheme string) bool { return scheme == "http" || scheme == "https" }

// PortNumber returns the URL's port as a number, or the scheme's default
// port when the URL has none (0 when there is no default either).
func (u *URL) PortNumber() int {
	if u.Port == "" {
		return DefaultPort(u.Scheme)
	}
	n, _ := strconv.Atoi(u.Port)
	return n
}

// urlPath returns the escaped url-path of RFC 1738 section 3.1, what
// follows the "/" after host:port, with a "?" and the query put back for
// the schemes whose path grammar treats "?" as data (ftp, gopher, prospero,
// nntp, file), and the byte offset at which it starts in the URL as parsed.
func (u *URL) urlPath() (string, int) {
	off := u.prefixLen()
	p := u.Path
	if p != "" && p[0] == '/' {
		p = p[1:]
		off++
	}
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p, off
}

func (u *URL) needScheme(names ...string) error {
	if slices.Contains(names, u.Scheme) {
		return nil
	}
	return errAt(0, "scheme", otherScheme("scheme "+strconv.Quote(u.Scheme)+" is not "+strings.Join(names, " or ")))
}

// needServer checks the scheme, as needScheme does, and then the
// "scheme://" form that RFC 1738 section 3.1 gives every scheme with a
// server part.
func (u *URL) needServer(names ...string) error {
	if err := u.needScheme(names...); err != nil {
		return err
	}
	if u.Opaque != "" || !u.hasServer() {
		return errAt(len(u.Scheme)+1, "server", reasonf("%s URL must start with %q", u.Scheme, u.Scheme+"://"))
	}
	return nil
}

// unescapeAt decodes s, found at offset off, for component comp.
func unescapeAt(s string, off int, comp string) (string, error) {
	d, bad := unescape(s)
	if bad >= 0 {
		return "", errAt(off+bad, comp, EscapeError(s[bad:min(bad+3, len(s))]))
	}
	return d, nil
}

// FTPPath is the decoded url-path of an ftp URL (RFC 1738 section 3.2.2):
// <cwd1>/<cwd2>/.../<cwdN>/<name>;type=<typecode>.
type FTPPath struct {
	// CWD holds each directory segment, decoded, one CWD command each. An
	// empty string is an empty segment ("CWD" with a null argument); a
	// decoded "/" stays inside its segment ("%2Fetc" is "/etc").
	CWD []string
	// Name is the decoded last segment; empty when the path ends in "/"
	// or is absent (the directory itself is meant).
	Name string
	// Type is the typecode in lower case: "a", "i", "d", or "" when absent.
	Type string
}

// FTP returns the ftp view of u. It fails when u is not an ftp URL with a
// server part, when the last segment has a parameter other than
// ";type=a", ";type=i" or ";type=d" (either case), when a cwd segment holds
// an unencoded ";" (reserved, RFC 1738 section 3.2.2), or when a segment has
// a bad escape. A "?" is data in an ftp path (fsegment, seed 002 section 5).
// Decoded CR, LF and NUL are returned as they are; package safety and the
// driver refuse them.
func (u *URL) FTP() (*FTPPath, error) {
	probe.FTPView()
	if err := u.needServer("ftp"); err != nil {
		return nil, err
	}
	p, base := u.urlPath()
	v := &FTPPath{}
	last := strings.LastIndexByte(p, '/') + 1
	if i := strings.IndexByte(p[last:], ';'); i >= 0 {
		i += last
		key, val, ok := strings.Cut(p[i+1:], "=")
		if !ok || !strings.EqualFold(key, "type") {
			return nil, errAt(base+i, "ftp typecode", Reason("unknown parameter (only ;type= is defined)"))
		}
		switch t := strings.ToLower(val); t {
		case "a", "i", "d":
			v.Type = t
		default:
			return nil, errAt(base+i+len(key)+2, "ftp typecode", reasonf("typecode %q is not a, i or d", val))
		}
		p = p[:i]
	}
	if p == "" {
		return v, nil
	}
	off := base
	for {
		seg, rest, more := strings.Cut(p, "/")
		if j := strings.IndexByte(seg, ';'); more && j >= 0 {
			return nil, errAt(off+j, "ftp path", Reason(`unencoded ";" in a directory segment (write it as %3B)`))
		}
		d, err := unescapeAt(seg, off, "ftp path")
		if err != nil {
			return nil, err
		}
		if !more {
			v.Name = d
			return v, nil
		}
		v.CWD = append(v.CWD, d)
		off += len(seg) + 1
		p = rest
	}
}

// HTTPPath is the http view (RFC 1738 section 3.3): the escaped path and
// search part, as they are sent in the request line.
type HTTPPath struct {
	// Path is the escaped path with its leading "/" ("/" when empty).
	Path string
	// Search is the escaped searchpart after "?"; nil when there is no "?".
	Search *string
}

// HTTP returns the http (or https) view of u. A user name or password is
// not rejected here (RFC 1738 section 3.3 allows none; package safety
// reports it).
func (u *URL) HTTP() (*HTTPPath, error) {
	if err := u.needServer("http", "https"); err != nil {
		return nil, err
	}
	v := &HTTPPath{Path: u.Path}
	if !strings.HasPrefix(v.Path, "/") {
		v.Path = "/" + v.Path
	}
	if u.RawQuery != "" || u.ForceQuery {
		q := u.RawQuery
		v.Search = &q
	}
	return v, nil
}

// GopherPath is the decoded gopher-path (RFC 1738 section 3.4):
// <gophertype><selector>%09<search>%09<gopher+_string>.
type GopherPath struct {
	// Type is the gopher item type, one character; "1" for an empty path.
	Type string
	// Selector is the decoded selector. No character is reserved in it: "?"
	// and ";" are part of the selector.
	Selector string
	// Search is the decoded search string; nil when the path has no %09.
	Search *string
	// Plus is the decoded gopher+_string after the second %09 (for example
	// "+", "!", "$", "+text/plain En_US", or a filled +ASK form, which may
	// hold further tabs); nil when absent.
	Plus *string
}

// Gopher returns the gopher view of u. It fails when u is not a gopher URL
// with a server part, when the gopher-path starts with %09 (a search with
// no item type), or when a part has a bad escape.
func (u *URL) Gopher() (*GopherPath, error) {
	if err := u.needServer("gopher"); err != nil {
		return nil, err
	}
	p, base := u.urlPath()
	v := &GopherPath{Type: "1"}
	if p == "" {
		return v, nil
	}
	parts := GopherFields(p)
	first := parts[0]
	switch {
	case first == "":
		return nil, errAt(base, "gopher type", Reason("gopher-path with a search but no item type"))
	case first[0] == '%':
		n := min(3, len(first))
		t, err := unescapeAt(first[:n], base, "gopher type")
		if err != nil {
			return nil, err
		}
		v.Type, first = t, first[n:]
		base += n
	default:
		v.Type, first = first[:1], first[1:]
		base++
	}
	sel, err := unescapeAt(first, base, "gopher selector")
	if err != nil {
		return nil, err
	}
	v.Selector = sel
	base += len(first) + 3
	if len(parts) > 1 {
		s, err := unescapeAt(parts[1], base, "gopher search")
		if err != nil {
			return nil, err
		}
		v.Search = &s
		base += len(parts[1]) + 3
	}
	if len(parts) > 2 {
		s, err := unescapeAt(parts[2], base, "gopher+ string")
		if err != nil {
			return nil, err
		}
		v.Plus = &s
	}
	return v, nil
}

// GopherFields splits an escaped gopher-path at its first two "%09" into
// at most three fields: the type and selector, the search, and the
// gopher+ string (RFC 1738 section 3.4). A further "%09" stays in the
// last field. The safety layer splits the path so too, to check each
// field as the request line will carry it.
func GopherFields(p string) []string {
	var fields []string
	for len(fields) < 2 {
		i := strings.Index(p, "%09")
		if i < 0 {
			break
		}
		fields = append(fields, p[:i])
		p = p[i+3:]
	}
	return append(fields, p)
}

// NewsPath is the news view (RFC 1738 section 3.6): news:<newsgroup-name>,
// news:<message-id> or news:*.
type NewsPath struct {
	// Group is the decoded newsgroup name; empty for an article or for "*".
	Group string
	// Article is the decoded Message-ID without "<" and ">"; empty otherwise.
	Article string
	// All reports news:*, "all available news groups".
	All bool
	// Server is the host[:port] of a "news://server/..." URL (RFC 5538, not
	// RFC 1738); empty for the RFC 1738 form, which names no server.
	Server string
}

// News returns the news view of u. A message-id is told from a group name
// by its "@" (RFC 1738 section 3.6). It fails when u is not a news URL or
// names nothing.
func (u *URL) News() (*NewsPath, error) {
	if err := u.needScheme("news"); err != nil {
		return nil, err
	}
	v := &NewsPath{}
	raw, off := u.Opaque, len(u.Scheme)+1
	if raw == "" {
		raw, off = u.urlPath()
		if u.hasServer() {
			v.Server = u.Host
			if u.Port != "" {
				v.Server += ":" + u.Port
			}
		}
	}
	d, err := unescapeAt(raw, off, "news")
	if err != nil {
		return nil, err
	}
	switch {
	case d == "":
		return nil, errAt(off, "news", Reason("news URL names no group, article or *"))
	case d == "*":
		v.All = true
	case strings.Contains(d, "@"):
		v.Article = strings.TrimSuffix(strings.TrimPrefix(d, "<"), ">")
	default:
		v.Group = d
	}
	return v, nil
}

// NNTPPath is the nntp view (RFC 1738 section 3.7):
// nntp://<host>:<port>/<newsgroup-name>/<article-number>.
type NNTPPath struct {
	// Group is the decoded newsgroup name.
	Group string
	// Article is the article number; nil when the URL names only the group.
	Article *int64
}

// NNTP returns the nntp view of u. It fails when u is not an nntp URL with
// a server part, names no group, has an article "number" that is not
// decimal digits, or has segments after it.
func (u *URL) NNTP() (*NNTPPath, error) {
	if err := u.needServer("nntp"); err != nil {
		return nil, err
	}
	p, base := u.urlPath()
	group, art, hasArt := strings.Cut(p, "/")
	if group == "" {
		return nil, errAt(base, "nntp group", Reason("nntp URL names no newsgroup"))
	}
	g, err := unescapeAt(group, base, "nntp group")
	if err != nil {
		return nil, err
	}
	v := &NNTPPath{Group: g}
	if !hasArt || art == "" {
		return v, nil
	}
	aoff := base + len(group) + 1
	if i := strings.IndexByte(art, '/'); i >= 0 {
		return nil, errAt(aoff+i, "nntp path", Reason("nntp URL has segments after the article number"))
	}
	n := int64(0)
	for i := 0; i < len(art); i++ {
		c := art[i]
		if !isDigit(c) || n > (1<<62)/10 {
			return nil, errAt(aoff, "nntp article", Reason("article number is not a decimal number"))
		}
		n = n*10 + int64(c-'0')
	}
	v.Article = &n
	return v, nil
}

// TelnetPath is the telnet view (RFC 1738 section 3.8). The URL designates
// an interactive service, not a data object; the user name and password in
// the URL are advisory. They are in URL.User.
type TelnetPath struct{}

// Telnet returns the telnet view of u. It fails when u is not a telnet URL
// with a server part, or has a path other than "/" or a query.
func (u *URL) Telnet() (*TelnetPath, error) {
	if err := u.needServer("telnet"); err != nil {
		return nil, err
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.ForceQuery {
		return nil, errAt(u.prefixLen(), "telnet path", Reason("telnet URL has a path (RFC 1738 section 3.8 allows only a final /)"))
	}
	return &TelnetPath{}, nil
}

// WAISPath is the wais view (RFC 1738 section 3.9): wais://host/database,
// wais://host/database?search or wais://host/database/wtype/wpath.
type WAISPath struct {
	// Database is the decoded database name.
	Database string
	// Search is the decoded search; nil when absent.
	Search *string
	// WType and WPath are the decoded type and document-id; nil unless the
	// URL has the /wtype/wpath form.
	WType *string
	WPath *string
}

// WAIS returns the wais view of u. It fails when u is not a wais URL with a
// server part, names no database, or has a path of two or more than three
// segments, or both a search and a wtype/wpath.
func (u *URL) WAIS() (*WAISPath, error) {
	if err := u.needServer("wais"); err != nil {
		return nil, err
	}
	hasSearch := u.RawQuery != "" || u.ForceQuery
	p, base := u.urlPath()
	if hasSearch {
		p = p[:len(p)-len(u.RawQuery)-1] // the path alone
	}
	segs := strings.Split(p, "/")
	if segs[0] == "" {
		return nil, errAt(base, "wais database", Reason("wais URL names no database"))
	}
	if len(segs) != 1 && len(segs) != 3 {
		return nil, errAt(base+len(segs[0]), "wais path", Reason("wais path is database, database?search or database/wtype/wpath"))
	}
	db, err := unescapeAt(segs[0], base, "wais database")
	if err != nil {
		return nil, err
	}
	v := &WAISPath{Database: db}
	if len(segs) == 3 {
		if hasSearch {
			return nil, errAt(base+len(p), "wais path", Reason("wais URL has both a search and a wtype/wpath"))
		}
		t, err := unescapeAt(segs[1], base+len(segs[0])+1, "wais wtype")
		if err != nil {
			return nil, err
		}
		w, err := unescapeAt(segs[2], base+len(segs[0])+len(segs[1])+2, "wais wpath")
		if err != nil {
			return nil, err
		}
		v.WType, v.WPath = &t, &w
	}
	if hasSearch {
		s, err := unescapeAt(u.RawQuery, base+len(p)+1, "wais search")
		if err != nil {
			return nil, err
		}
		v.Search = &s
	}
	return v, nil
}

// FilePath is the file view (RFC 1738 section 3.10): file://<host>/<path>.
type FilePath struct {
	// Host is the host as written; "" and "localhost" mean this machine.
	Host string
	// Path is the decoded path with its leading "/" ("/" when empty).
	Path string
}

// IsLocal reports whether the file URL names this machine.
func (f *FilePath) IsLocal() bool { return f.Host == "" || strings.EqualFold(f.Host, "localhost") }

// File returns the file view of u: file://host/path, file:///path, and
// file:/path (no server part, seed 001 section 1.1). It fails when u is not
// a file URL, is opaque ("file:name"), or has a bad escape. A "?" is data
// in a file path (fpath, seed 002 section 5).
func (u *URL) File() (*FilePath, error) {
	if err := u.needScheme("file"); err != nil {
		return nil, err
	}
	if u.Opaque != "" {
		return nil, errAt(len(u.Scheme)+1, "file path", Reason("file URL must be file://host/path or file:///path"))
	}
	off := u.prefixLen()
	p := u.Path
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	d, err := unescapeAt(p, off, "file path")
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(d, "/") {
		d = "/" + d
	}
	return &FilePath{Host: u.Host, Path: d}, nil
}

// ProsperoPath is the prospero view (RFC 1738 section 3.11):
// prospero://host:port/hsoname;field=value.
type ProsperoPath struct {
	// HSOName is the decoded host-specific object name. A "/" in it has no
	// significance to the client.
	HSOName string
	// Fields are the decoded ";field=value" pairs in URL order.
	Fields []Field
}

// Field is one prospero ";field=value" pair, decoded.
type Field struct{ Name, Value string }

// Prospero returns the prospero view of u. It fails when u is not a
// prospero URL with a server part, when a field is not name=value with a
// non-empty name, or on a bad escape.
func (u *URL) Prospero() (*ProsperoPath, error) {
	if err := u.needServer("prospero"); err != nil {
		return nil, err
	}
	p, base := u.urlPath()
	hso, fields, _ := strings.Cut(p, ";")
	h, err := unescapeAt(hso, base, "prospero hsoname")
	if err != nil {
		return nil, err
	}
	v := &ProsperoPath{HSOName: h}
	off := base + len(hso) + 1
	for len(hso) < len(p) {
		f, rest, more := strings.Cut(fields, ";")
		name, val, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, errAt(off, "prospero field", Reason("field is not name=value"))
		}
		dn, err := unescapeAt(name, off, "prospero field")
		if err != nil {
			return nil, err
		}
		dv, err := unescapeAt(val, off+len(name)+1, "prospero field")
		if err != nil {
			return nil, err
		}
		v.Fields = append(v.Fields, Field{Name: dn, Value: dv})
		if !more {
			break
		}
		off += len(f) + 1
		fields = rest
	}
	return v, nil
}

// MailtoPath is the mailto view (RFC 1738 section 3.5): mailto:<rfc822-addr-spec>.
type MailtoPath struct {
	// Address is the decoded address. No character is reserved in it
	// (RFC 1738 section 3.5), so a "?" is part of the address.
	Address string
}

// Mailto returns the mailto view of u. It fails when u is not a mailto URL,
// has no address, or has a bad escape.
func (u *URL) Mailto() (*MailtoPath, error) {
	if err := u.needScheme("mailto"); err != nil {
		return nil, err
	}
	raw, off := u.Opaque, len(u.Scheme)+1
	if raw == "" && !u.hasServer() {
		raw, off = u.Path, u.prefixLen()
		if u.RawQuery != "" || u.ForceQuery {
			raw += "?" + u.RawQuery
		}
	}
	if raw == "" {
		return nil, errAt(off, "mailto address", Reason("mailto URL has no address"))
	}
	d, err := unescapeAt(raw, off, "mailto address")
	if err != nil {
		return nil, err
	}
	return &MailtoPath{Address: d}, nil
}
