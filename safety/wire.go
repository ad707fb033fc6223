package safety

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// part is one escaped component that a driver decodes and writes onto a
// connection, with the encoded bytes that are dangerous there.
type part struct {
	name string // Component of the findings
	text string // escaped, as written
	off  int    // offset of text in the URL
	crlf bool   // %0D and %0A end the line: encoded-crlf
	nul  bool   // %00: encoded-nul
	tab  bool   // %09 separates fields: encoded-tab
	// where says where the decoded byte would be written, to complete the
	// messages: "on the ftp control connection", ...
	where string
}

// Flags of the components of each scheme.
const (
	lineArg  = iota // crlf, nul, tab: an argument of a command line (ftp, nntp, news)
	lineText        // crlf, nul: text written on a line (telnet, gopher, wais, ...)
	nulOnly         // nul: a local file name
)

func newPart(name, text string, off, kind int, where string) part {
	p := part{name: name, text: text, off: off, where: where}
	switch kind {
	case lineArg:
		p.crlf, p.nul, p.tab = true, true, true
	case lineText:
		p.crlf, p.nul = true, true
	case nulOnly:
		p.nul = true
	}
	return p
}

// wireParts returns the components of u that its scheme's driver decodes and
// writes on a line protocol (see the package documentation). It also runs
// the scheme's view, whose error makes the URL malformed.
func wireParts(u *uri.URL, l layout) ([]part, error) {
	switch u.Scheme {
	case "ftp":
		return ftpParts(u, l)
	case "gopher":
		return gopherParts(u, l)
	case "nntp":
		return nntpParts(u, l)
	case "news":
		return newsParts(u, l)
	case "telnet":
		if _, err := u.Telnet(); err != nil {
			return nil, err
		}
		return userParts(u, l, "telnet", lineText, "in the telnet advice shown to the user"), nil
	case "wais":
		return waisParts(u, l)
	case "prospero":
		return prosperoParts(u, l)
	case "mailto":
		return mailtoParts(u, l)
	case "file":
		return fileParts(u, l)
	case "http", "https":
		// The path and search are sent in escaped form on the request line
		// and never decoded by the client; the host cannot hold an escape.
		_, err := u.HTTP()
		return nil, err
	}
	return nil, nil
}

func userParts(u *uri.URL, l layout, scheme string, kind int, where string) []part {
	if u.User == nil {
		return nil
	}
	ps := []part{newPart(scheme+" user", u.User.EscapedUsername(), l.user, kind, where)}
	if pw, ok := u.User.EscapedPassword(); ok {
		ps = append(ps, newPart(scheme+" password", pw, l.pass, kind, where))
	}
	return ps
}

// ftpParts: USER and PASS, one CWD per directory segment, then RETR, LIST
// or NLST with the name (RFC 1738 section 3.2.2).
func ftpParts(u *uri.URL, l layout) ([]part, error) {
	if _, err := u.FTP(); err != nil {
		return nil, err
	}
	const where = "on the ftp control connection"
	ps := userParts(u, l, "ftp", lineArg, where)
	p, off := urlPath(u, l)
	last := strings.LastIndexByte(p, '/') + 1
	if i := strings.IndexByte(p[last:], ';'); i >= 0 {
		p = p[:last+i] // ;type=a|i|d, checked by the view
	}
	if p == "" {
		return ps, nil
	}
	for i := 1; ; i++ {
		seg, rest, more := strings.Cut(p, "/")
		if !more {
			return append(ps, newPart("ftp name", seg, off, lineArg, where)), nil
		}
		ps = append(ps, newPart("ftp cwd "+strconv.Itoa(i), seg, off, lineArg, where))
		off += len(seg) + 1
		p = rest
	}
}

// gopherParts: the client sends selector TAB search TAB gopher+_string CRLF
// (RFC 1738 section 3.4). The gopher-path is split at its first two %09, so
// the selector and the search can never hold a decoded TAB: a further %09
// lands in the gopher+ string, where it would add a field to the request
// line. The gopher+ string of a filled +ASK form carries CR/LF and a TAB by
// design; see askForm.
func gopherParts(u *uri.URL, l layout) ([]part, error) {
	v, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	p, off := urlPath(u, l)
	if p == "" {
		return nil, nil
	}
	const where = "on the gopher request line"
	fields := uri.GopherFields(p)
	first := fields[0]
	typeLen := 1
	if strings.HasPrefix(first, "%") && len(first) >= 3 {
		typeLen = 3
	}
	// The item type is not sent: only the selector and what follows.
	ps := []part{newPart("gopher selector", first[typeLen:], off+typeLen, lineText, where)}
	off += len(first) + 3
	if len(fields) > 1 {
		ps = append(ps, newPart("gopher search", fields[1], off, lineText, where))
		off += len(fields[1]) + 3
	}
	if len(fields) > 2 {
		pt := newPart("gopher+ string", fields[2], off, lineArg, where)
		if v.Plus != nil && askForm(*v.Plus) {
			pt.crlf, pt.tab = false, false
		}
		ps = append(ps, pt)
	}
	return ps, nil
}

// IsAskForm reports whether plus, a decoded gopher+ string (the Plus of
// uri.GopherPath), is a filled Gopher+ +ASK form exactly as RFC 1738 section
// 3.4 writes it, the only gopher+ string in which Check accepts CR, LF and
// TAB. A gopher driver uses it to decide whether it may write the string's
// CR/LF as they are; any other argument with CR or LF is refused at the wire.
func IsAskForm(plus string) bool { return askForm(plus) }

// askForm reports whether the decoded gopher+ string is a filled Gopher+
// +ASK form exactly as RFC 1738 section 3.4 writes it:
//
//	"+" TAB "1" CRLF "+-1" CRLF *( answer CRLF ) "." CRLF
//
// where no answer contains CR or LF and no answer is "." alone (which would
// end the data block early). A TAB inside an answer is data of the block,
// not a field separator, and is accepted; NUL is never accepted.
func askForm(plus string) bool {
	rest, ok := strings.CutPrefix(plus, "+\t1\r\n+-1\r\n")
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, ".\r\n")
	if !ok {
		return false
	}
	for rest != "" {
		line, after, ok := strings.Cut(rest, "\r\n")
		if !ok || line == "." || strings.ContainsAny(line, "\r\n") {
			return false
		}
		rest = after
	}
	return true
}

// nntpParts: GROUP <group> then ARTICLE <number> (RFC 1738 section 3.7).
// The article number is digits only (the view checks it).
func nntpParts(u *uri.URL, l layout) ([]part, error) {
	if _, err := u.NNTP(); err != nil {
		return nil, err
	}
	p, off := urlPath(u, l)
	group, _, _ := strings.Cut(p, "/")
	return []part{newPart("nntp group", group, off, lineArg, "on the NNTP command line")}, nil
}

// newsParts: GROUP <group>, ARTICLE <message-id> or LIST (RFC 1738 section
// 3.6), on the server from the configuration or, in the news://server/ form
// of RFC 5538, from the URL.
func newsParts(u *uri.URL, l layout) ([]part, error) {
	v, err := u.News()
	if err != nil {
		return nil, err
	}
	text, off := u.Opaque, l.opaque
	if text == "" {
		text, off = urlPath(u, l)
	}
	name := "news group"
	switch {
	case v.Article != "":
		name = "news article"
	case v.All:
		name = "news"
	}
	return []part{newPart(name, text, off, lineArg, "on the NNTP command line")}, nil
}

// waisParts: no access method is built in; a gateway receives the decoded
// database, search, wtype and wpath (RFC 1738 section 3.9).
func waisParts(u *uri.URL, l layout) ([]part, error) {
	if _, err := u.WAIS(); err != nil {
		return nil, err
	}
	const where = "to a WAIS gateway or server"
	p := strings.TrimPrefix(u.Path, "/")
	off := l.path + len(u.Path) - len(p)
	names := []string{"wais database", "wais wtype", "wais wpath"}
	var ps []part
	for i, seg := range strings.Split(p, "/") {
		ps = append(ps, newPart(names[i], seg, off, lineText, where))
		off += len(seg) + 1
	}
	if u.RawQuery != "" || u.ForceQuery {
		ps = append(ps, newPart("wais search", u.RawQuery, l.query, lineText, where))
	}
	return ps, nil
}

// prosperoParts: the decoded hsoname and field values (RFC 1738 section
// 3.11) go to a Prospero server or a gateway.
func prosperoParts(u *uri.URL, l layout) ([]part, error) {
	if _, err := u.Prospero(); err != nil {
		return nil, err
	}
	const where = "to a Prospero gateway or server"
	p, off := urlPath(u, l)
	fields := strings.Split(p, ";")
	ps := []part{newPart("prospero hsoname", fields[0], off, lineText, where)}
	off += len(fields[0]) + 1
	for _, f := range fields[1:] {
		ps = append(ps, newPart("prospero field", f, off, lineText, where))
		off += len(f) + 1
	}
	return ps, nil
}

// mailtoParts: the decoded address is shown to the user and may be handed
// to a mail program, where a CR/LF starts a new header line.
func mailtoParts(u *uri.URL, l layout) ([]part, error) {
	if _, err := u.Mailto(); err != nil {
		return nil, err
	}
	text, off := u.Opaque, l.opaque
	if text == "" {
		text, off = u.Path, l.path
		if u.RawQuery != "" || u.ForceQuery {
			text += "?" + u.RawQuery
		}
	}
	return []part{newPart("mailto address", text, off, lineText, "into a mail header by a mail program")}, nil
}

// fileParts: a local path is opened; a NUL would cut the name short. A file
// URL for another host may be fetched over ftp (--file-via-ftp), so its path
// is an ftp argument.
func fileParts(u *uri.URL, l layout) ([]part, error) {
	v, err := u.File()
	if err != nil {
		return nil, err
	}
	text := u.Path
	if u.RawQuery != "" || u.ForceQuery {
		text += "?" + u.RawQuery
	}
	if v.IsLocal() {
		return []part{newPart("file path", text, l.path, nulOnly, "into a local file name")}, nil
	}
	return []part{newPart("file path", text, l.path, lineArg, "on an ftp control connection (--file-via-ftp)")}, nil
}

// escape is one "%XX" in an escaped component.
type escape struct {
	off  int // in the URL
	text string
	b    byte
}

// findings reports the dangerous escapes of p: one finding per rule, naming
// the first occurrence (a run of adjacent CR/LF escapes counts as one) and
// how many more there are.
func (p part) findings() []Finding {
	var crlf, nul, tab [][]escape
	for i := 0; i+2 < len(p.text); i++ {
		if p.text[i] != '%' {
			continue
		}
		b, ok := unhex2(p.text[i+1], p.text[i+2])
		if !ok {
			continue
		}
		e := escape{off: p.off + i, text: p.text[i : i+3], b: b}
		switch {
		case (b == '\r' || b == '\n') && p.crlf:
			if n := len(crlf); n > 0 {
				last := crlf[n-1][len(crlf[n-1])-1]
				if last.off+3 == e.off {
					crlf[n-1] = append(crlf[n-1], e)
					break
				}
			}
			crlf = append(crlf, []escape{e})
		case b == 0 && p.nul:
			nul = append(nul, []escape{e})
		case b == '\t' && p.tab:
			tab = append(tab, []escape{e})
		}
		i += 2
	}
	var fs []Finding
	if len(crlf) > 0 {
		fs = append(fs, p.finding(RuleEncodedCRLF, crlf))
	}
	if len(nul) > 0 {
		fs = append(fs, p.finding(RuleEncodedNUL, nul))
	}
	if len(tab) > 0 {
		fs = append(fs, p.finding(RuleEncodedTab, tab))
	}
	return fs
}

func (p part) finding(rule string, runs [][]escape) Finding {
	first := runs[0]
	var text, names []string
	for _, e := range first {
		text = append(text, e.text)
		names = append(names, ctlName(e.b))
	}
	var what string
	switch rule {
	case RuleEncodedCRLF:
		what = "decoded, it would end the line " + p.where + " and what follows would be read as another command"
	case RuleEncodedNUL:
		what = "decoded, a NUL byte would be written " + p.where + ", where it cuts the text short or is rejected"
	default:
		what = "decoded, a TAB would be written " + p.where + ", where it starts another field"
	}
	msg := fmt.Sprintf("%s (%s) at offset %d in the %s: %s",
		strings.Join(text, ""), strings.Join(names, " "), first[0].off, p.name, what)
	if p.name == "gopher+ string" && rule != RuleEncodedNUL {
		msg += " (not the exact structure of a filled +ASK form)"
	}
	if n := len(runs) - 1; n == 1 {
		msg += "; 1 more occurrence"
	} else if n > 1 {
		msg += fmt.Sprintf("; %d more occurrences", n)
	}
	return Finding{Rule: rule, Level: Error, Component: p.name, Message: msg}
}

func ctlName(b byte) string {
	switch b {
	case '\r':
		return "CR"
	case '\n':
		return "LF"
	case 0:
		return "NUL"
	case '\t':
		return "TAB"
	}
	return fmt.Sprintf("0x%02X", b)
}

func unhex2(a, b byte) (byte, bool) {
	x, ok1 := unhex(a)
	y, ok2 := unhex(b)
	return x<<4 | y, ok1 && ok2
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
