package uri

import (
	"strconv"
	"strings"
)

// Default ports of the schemes of RFC 1738 section 3, plus https.
var defaultPorts = map[string]int{
	"ftp":      21,
	"http":     80,
	"https":    443,
	"gopher":   70,
	"nntp":     119,
	"telnet":   23,
	"wais":     210,
	"prospero": 1525,
}

// DefaultPort returns the default port of scheme (case-insensitive), or 0
// when the scheme has none (file, mailto, news) or is unknown.
func DefaultPort(scheme string) int { return defaultPorts[strings.ToLower(scheme)] }

// PortNumber returns the URL's port as a number, or the scheme's default
// port when the URL has none (0 when there is no default either).
func (u *URL) PortNumber() int {
	if u.Port == "" {
		return DefaultPort(u.Scheme)
	}
	n, _ := strconv.Atoi(u.Port)
	return n
}

// urlPath returns the escaped url-path of RFC 1738 section 3.1: what follows
// the "/" after host:port, with a "?" and the query put back, for the schemes
// whose path grammar treats "?" as data (ftp, gopher, prospero).
func (u *URL) urlPath() string {
	p := strings.TrimPrefix(u.Path, "/")
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p
}

func (u *URL) needScheme(names ...string) error {
	for _, n := range names {
		if u.Scheme == n {
			return nil
		}
	}
	return errAt(0, "scheme", reasonf("scheme %q is not %s", u.Scheme, strings.Join(names, " or ")))
}

// pathOffset is the byte offset at which the path starts in u.String(); it
// lets a view report offsets into the URL as the user wrote it (for URLs in
// canonical form, which is what Parse keeps).
func (u *URL) pathOffset() int {
	s := u.String()
	if u.Path == "" {
		return len(s)
	}
	return strings.Index(s, u.Path)
}

func unescapeAt(u *URL, s string, off int, comp string) (string, error) {
	d, err := Unescape(s)
	if err != nil {
		return "", errAt(off, comp, err)
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
	// (the directory itself is meant).
	Name string
	// Type is the typecode in lower case: "a", "i", "d", or "" when absent.
	Type string
}

// FTP returns the ftp view of u. It fails when u is not an ftp URL, when the
// typecode is not one of a, i and d, or when a segment has a bad escape.
func (u *URL) FTP() (*FTPPath, error) {
	if err := u.needScheme("ftp"); err != nil {
		return nil, err
	}
	p := u.urlPath()
	base := u.pathOffset() + 1
	v := &FTPPath{}
	if i := strings.LastIndex(p, ";"); i >= 0 && strings.LastIndexByte(p, '/') < i {
		param := p[i+1:]
		key, val, ok := strings.Cut(param, "=")
		if !ok || !strings.EqualFold(key, "type") {
			return nil, errAt(base+i, "ftp typecode", reasonf("unknown parameter %q (only ;type= is defined)", param))
		}
		switch t := strings.ToLower(val); t {
		case "a", "i", "d":
			v.Type = t
		default:
			return nil, errAt(base+i+6, "ftp typecode", reasonf("typecode %q is not a, i or d", val))
		}
		p = p[:i]
	}
	if p == "" {
		return v, nil
	}
	segs := strings.Split(p, "/")
	off := base
	for i, seg := range segs {
		d, err := unescapeAt(u, seg, off, "ftp path")
		if err != nil {
			return nil, err
		}
		if i == len(segs)-1 {
			v.Name = d
		} else {
			v.CWD = append(v.CWD, d)
		}
		off += len(seg) + 1
	}
	return v, nil
}

// HTTPPath is the http view (RFC 1738 section 3.3): the escaped path and
// search part, as they are sent in the request line.
type HTTPPath struct {
	// Path is the escaped path with its leading "/" ("/" when empty).
	Path string
	// Search is the escaped searchpart after "?"; nil when there is no "?".
	Search *string
}

// HTTP returns the http (or https) view of u.
func (u *URL) HTTP() (*HTTPPath, error) {
	if err := u.needScheme("http", "https"); err != nil {
		return nil, err
	}
	v := &HTTPPath{Path: u.Path}
	if v.Path == "" {
		v.Path = "/"
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
	// "+", "!", "$", "+text/plain En_US", or a filled +ASK form); nil when
	// absent.
	Plus *string
}

// Gopher returns the gopher view of u.
func (u *URL) Gopher() (*GopherPath, error) {
	if err := u.needScheme("gopher"); err != nil {
		return nil, err
	}
	p := u.urlPath()
	base := u.pathOffset() + 1
	v := &GopherPath{Type: "1"}
	if p == "" {
		return v, nil
	}
	parts := splitTab(p, 3)
	first := parts[0]
	if strings.HasPrefix(first, "%") && len(first) >= 3 {
		t, err := unescapeAt(u, first[:3], base, "gopher type")
		if err != nil {
			return nil, err
		}
		v.Type, first = t, first[3:]
		base += 3
	} else if first != "" {
		v.Type, first = first[:1], first[1:]
		base++
	} else {
		return nil, errAt(base, "gopher type", Reason("gopher-path with a search but no item type"))
	}
	sel, err := unescapeAt(u, first, base, "gopher selector")
	if err != nil {
		return nil, err
	}
	v.Selector = sel
	base += len(first) + 3
	if len(parts) > 1 {
		s, err := unescapeAt(u, parts[1], base, "gopher search")
		if err != nil {
			return nil, err
		}
		v.Search = &s
		base += len(parts[1]) + 3
	}
	if len(parts) > 2 {
		s, err := unescapeAt(u, parts[2], base, "gopher+ string")
		if err != nil {
			return nil, err
		}
		v.Plus = &s
	}
	return v, nil
}

// splitTab splits an escaped gopher-path at "%09" into at most n parts.
func splitTab(p string, n int) []string {
	var parts []string
	for len(parts) < n-1 {
		i := indexTab(p)
		if i < 0 {
			break
		}
		parts = append(parts, p[:i])
		p = p[i+3:]
	}
	return append(parts, p)
}

func indexTab(p string) int {
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '%' && p[i+1] == '0' && p[i+2] == '9' {
			return i
		}
	}
	return -1
}

// NewsPath is the news view (RFC 1738 section 3.6): news:<newsgroup-name>,
// news:<message-id> or news:*.
type NewsPath struct {
	// Group is the decoded newsgroup name; empty for an article or for "*".
	Group string
	// Article is the decoded Message-ID without "<" and ">"; empty otherwise.
	Article string
	// All reports news:*, every group.
	All bool
	// Server is the host:port of a "news://server/..." URL (RFC 5538, not
	// RFC 1738); empty for the RFC 1738 form, which names no server.
	Server string
}

// News returns the news view of u.
func (u *URL) News() (*NewsPath, error) {
	if err := u.needScheme("news"); err != nil {
		return nil, err
	}
	raw := u.Opaque
	off := len("news:")
	v := &NewsPath{}
	if raw == "" {
		if !u.HasAuthority && u.Path == "" {
			return nil, errAt(off, "news", Reason("news: URL names no group, article or *"))
		}
		raw = strings.TrimPrefix(u.urlPath(), "/")
		off = u.pathOffset() + 1
		v.Server = u.Host
		if u.Port != "" {
			v.Server += ":" + u.Port
		}
	}
	d, err := unescapeAt(u, raw, off, "news")
	if err != nil {
		return nil, err
	}
	switch {
	case d == "*":
		v.All = true
	case strings.Contains(d, "@"):
		v.Article = strings.TrimSuffix(strings.TrimPrefix(d, "<"), ">")
	case d == "":
		return nil, errAt(off, "news", Reason("news: URL names no group, article or *"))
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

// NNTP returns the nntp view of u.
func (u *URL) NNTP() (*NNTPPath, error) {
	if err := u.needScheme("nntp"); err != nil {
		return nil, err
	}
	p := u.urlPath()
	base := u.pathOffset() + 1
	segs := strings.Split(p, "/")
	if p == "" || segs[0] == "" {
		return nil, errAt(base, "nntp group", Reason("nntp URL names no newsgroup"))
	}
	if len(segs) > 2 {
		return nil, errAt(base+len(segs[0])+len(segs[1])+1, "nntp path", Reason("nntp URL has segments after the article number"))
	}
	g, err := unescapeAt(u, segs[0], base, "nntp group")
	if err != nil {
		return nil, err
	}
	v := &NNTPPath{Group: g}
	if len(segs) == 2 && segs[1] != "" {
		n, err := strconv.ParseInt(segs[1], 10, 64)
		if err != nil || n < 0 || strings.HasPrefix(segs[1], "+") {
			return nil, errAt(base+len(segs[0])+1, "nntp article", reasonf("article number %q is not a decimal number", segs[1]))
		}
		v.Article = &n
	}
	return v, nil
}

// TelnetPath is the telnet view (RFC 1738 section 3.8). The URL designates
// an interactive service, not a data object; the user name and password in
// the URL are advisory. They are in URL.User.
type TelnetPath struct{}

// Telnet returns the telnet view of u. It fails when the URL has a path
// other than "/".
func (u *URL) Telnet() (*TelnetPath, error) {
	if err := u.needScheme("telnet"); err != nil {
		return nil, err
	}
	if u.Path != "" && u.Path != "/" || u.RawQuery != "" || u.ForceQuery {
		return nil, errAt(u.pathOffset(), "telnet path", Reason("telnet URL has a path (RFC 1738 section 3.8 allows only a final /)"))
	}
	return &TelnetPath{}, nil
}

// WAISPath is the wais view (RFC 1738 section 3.9): wais://host/database,
// wais://host/database?search or wais://host/database/wtype/wpath.
type WAISPath struct {
	Database string
	// Search is the decoded search; nil when absent.
	Search *string
	// WType and WPath are nil unless the URL has the /wtype/wpath form.
	WType *string
	WPath *string
}

// WAIS returns the wais view of u.
func (u *URL) WAIS() (*WAISPath, error) {
	if err := u.needScheme("wais"); err != nil {
		return nil, err
	}
	p := strings.TrimPrefix(u.Path, "/")
	base := u.pathOffset() + 1
	segs := strings.Split(p, "/")
	if segs[0] == "" {
		return nil, errAt(base, "wais database", Reason("wais URL names no database"))
	}
	if len(segs) != 1 && len(segs) != 3 {
		return nil, errAt(base, "wais path", Reason("wais path is database, database?search or database/wtype/wpath"))
	}
	db, err := unescapeAt(u, segs[0], base, "wais database")
	if err != nil {
		return nil, err
	}
	v := &WAISPath{Database: db}
	if len(segs) == 3 {
		if u.RawQuery != "" || u.ForceQuery {
			return nil, errAt(base, "wais path", Reason("wais URL has both a search and a wtype/wpath"))
		}
		t, err := unescapeAt(u, segs[1], base+len(segs[0])+1, "wais wtype")
		if err != nil {
			return nil, err
		}
		w, err := unescapeAt(u, segs[2], base+len(segs[0])+len(segs[1])+2, "wais wpath")
		if err != nil {
			return nil, err
		}
		v.WType, v.WPath = &t, &w
	}
	if u.RawQuery != "" || u.ForceQuery {
		s, err := unescapeAt(u, u.RawQuery, base+len(p)+1, "wais search")
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
	// Path is the decoded path with its leading "/".
	Path string
}

// IsLocal reports whether the file URL names this machine.
func (f *FilePath) IsLocal() bool { return f.Host == "" || strings.EqualFold(f.Host, "localhost") }

// File returns the file view of u.
func (u *URL) File() (*FilePath, error) {
	if err := u.needScheme("file"); err != nil {
		return nil, err
	}
	if u.Opaque != "" {
		return nil, errAt(len("file:"), "file path", Reason("file URL must be file://host/path or file:///path"))
	}
	p := u.Path
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	d, err := unescapeAt(u, p, u.pathOffset(), "file path")
	if err != nil {
		return nil, err
	}
	if d == "" {
		d = "/"
	}
	return &FilePath{Host: u.Host, Path: d}, nil
}

// ProsperoPath is the prospero view (RFC 1738 section 3.11):
// prospero://host:port/hsoname;field=value.
type ProsperoPath struct {
	// HSOName is the decoded host-specific object name.
	HSOName string
	// Fields are the decoded ";field=value" pairs in URL order.
	Fields []Field
}

// Field is one prospero ";field=value" pair, decoded.
type Field struct{ Name, Value string }

// Prospero returns the prospero view of u.
func (u *URL) Prospero() (*ProsperoPath, error) {
	if err := u.needScheme("prospero"); err != nil {
		return nil, err
	}
	p := u.urlPath()
	base := u.pathOffset() + 1
	parts := strings.Split(p, ";")
	h, err := unescapeAt(u, parts[0], base, "prospero hsoname")
	if err != nil {
		return nil, err
	}
	v := &ProsperoPath{HSOName: h}
	off := base + len(parts[0]) + 1
	for _, f := range parts[1:] {
		name, val, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, errAt(off, "prospero field", reasonf("field %q is not name=value", f))
		}
		dn, err := unescapeAt(u, name, off, "prospero field")
		if err != nil {
			return nil, err
		}
		dv, err := unescapeAt(u, val, off+len(name)+1, "prospero field")
		if err != nil {
			return nil, err
		}
		v.Fields = append(v.Fields, Field{Name: dn, Value: dv})
		off += len(f) + 1
	}
	return v, nil
}

// MailtoPath is the mailto view (RFC 1738 section 3.5): mailto:<rfc822-addr-spec>.
type MailtoPath struct {
	// Address is the decoded address.
	Address string
}

// Mailto returns the mailto view of u.
func (u *URL) Mailto() (*MailtoPath, error) {
	if err := u.needScheme("mailto"); err != nil {
		return nil, err
	}
	raw := u.Opaque
	if raw == "" {
		raw = u.Path
	}
	if raw == "" {
		return nil, errAt(len("mailto:"), "mailto address", Reason("mailto URL has no address"))
	}
	d, err := unescapeAt(u, raw, len("mailto:"), "mailto address")
	if err != nil {
		return nil, err
	}
	return &MailtoPath{Address: d}, nil
}
