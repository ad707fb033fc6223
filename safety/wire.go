package safety

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/uri"
)

// A Wire says which components of a URL the driver of its scheme decodes
// and writes on a connection, or hands to another program (see the package
// documentation, "Components"). Each driver of proto implements it for its
// schemes; fetch.Registry implements it for every scheme it holds.
type Wire interface {
	// WireParts returns the escaped components of u that are decoded
	// and written, in URL order. Its error, a *uri.Error of u's
	// scheme-specific syntax (an ftp typecode other than a, i and d,
	// ...), makes the URL malformed.
	WireParts(u *uri.URL) ([]Part, error)
}

// Facts are what a scheme's driver says of it to the port and user
// information rules (see the package documentation, "Ports").
type Facts struct {
	Port       int    // dialled when the URL names none; 0 takes uri.DefaultPort
	Line       bool   // decoded URL text goes on a plain-text line: line services' ports are refused
	NoUserinfo bool   // the syntax has no user name or password,
	Section    string // as this section of RFC 1738 gives it ("" when none does)
}

// A Facter says the Facts of a scheme: each driver of proto for its
// schemes, fetch.Registry for those it holds. A Policy whose Wire is no
// Facter judges every scheme at the strictest, a line protocol of uri's
// default port, and reports no userinfo-not-allowed.
type Facter interface{ SchemeFacts(scheme string) Facts }

// facts returns the Facts of scheme from p's Wire, the port completed.
func (p Policy) facts(scheme string) Facts {
	f := Facts{Line: true}
	if fr, ok := p.Wire.(Facter); ok {
		f = fr.SchemeFacts(scheme)
	}
	f.Port = cmp.Or(f.Port, uri.DefaultPort(scheme))
	return f
}

// Part is one escaped component of a URL that a driver decodes and writes,
// with the decoded bytes that are dangerous where it goes.
type Part struct {
	Name string // the Component of its findings: "ftp cwd 1"
	Text string // escaped, as written in the URL
	In   Place  // the component of the URL that holds Text
	Off  int    // the offset of Text in In's text
	Kind Kind   // what the decoded bytes do where they go
	// Where says where the decoded bytes are written, to complete the
	// messages: "on the ftp control connection", ...
	Where string
	// Note is added to the message of a CR/LF or TAB finding.
	Note string
}

// Place is the component of a URL that holds a Part's text.
type Place int

// The components of a URL that a Part's offset counts in.
const (
	InUser     Place = iota // the escaped user name
	InPassword              // the escaped password
	InPath                  // the escaped path, and the query after it
	InURLPath               // URLPath(u)
	InQuery                 // the escaped query
	InOpaque                // the opaque part
)

// Kind is what the decoded bytes of a Part do where they are written.
type Kind int

// The kinds of Part.
const (
	LineArg  Kind = iota // CR, LF, NUL, TAB: an argument of a command line (ftp, nntp, news)
	LineText             // CR, LF, NUL: text written on a line (telnet, gopher, wais, ...)
	NULOnly              // NUL: a local file name
)

// UserParts returns the parts of u's user name and password, named
// "<scheme> user" and "<scheme> password", written as kind.
func UserParts(u *uri.URL, scheme string, kind Kind, where string) []Part {
	if u.User == nil {
		return nil
	}
	ps := []Part{{Name: scheme + " user", Text: u.User.EscapedUsername(), In: InUser, Kind: kind, Where: where}}
	if pw, ok := u.User.EscapedPassword(); ok {
		ps = append(ps, Part{Name: scheme + " password", Text: pw, In: InPassword, Kind: kind, Where: where})
	}
	return ps
}

// URLPath returns the escaped url-path of RFC 1738 section 3.1: the path
// without its leading "/", with "?" and the query put back, as the ftp,
// gopher, nntp and prospero views read it. A Part's offset in it is InURLPath.
func URLPath(u *uri.URL) string {
	p := strings.TrimPrefix(u.Path, "/")
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	return p
}

// part is a Part placed in the URL as written: off is the offset of its
// Text in the URL.
type part struct {
	Part
	off int
}

// wireParts returns the components of u that w says its scheme's driver
// decodes and writes, placed with l. A nil w takes every escaped
// component for an argument of a command line.
func wireParts(u *uri.URL, l layout, w Wire) ([]part, error) {
	var ps []Part
	if w == nil {
		ps = AnyParts(u)
	} else {
		var err error
		if ps, err = w.WireParts(u); err != nil {
			return nil, err
		}
	}
	out := make([]part, len(ps))
	for i, p := range ps {
		out[i] = part{Part: p, off: l.offset(u, p.In) + p.Off}
	}
	return out, nil
}

// AnyParts returns the parts of u for a policy without a Wire, or for a
// driver that does not say what it writes: its user name, password, path
// and query, or its opaque part, each taken for an argument of a command
// line.
func AnyParts(u *uri.URL) []Part {
	const where = "where a driver may write it on a command line"
	ps := UserParts(u, u.Scheme, LineArg, where)
	if u.Opaque != "" {
		return append(ps, Part{Name: u.Scheme + " opaque part", Text: u.Opaque, In: InOpaque, Kind: LineArg, Where: where})
	}
	text := u.Path
	if u.RawQuery != "" || u.ForceQuery {
		text += "?" + u.RawQuery
	}
	return append(ps, Part{Name: u.Scheme + " path", Text: text, In: InPath, Kind: LineArg, Where: where})
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
	// What the decoded bytes do where the Kind says they go.
	endsLine, tabs := p.Kind == LineArg || p.Kind == LineText, p.Kind == LineArg
	cuts := endsLine || p.Kind == NULOnly
	var crlf, nul, tab [][]escape
	for i := 0; i+2 < len(p.Text); i++ {
		if p.Text[i] != '%' {
			continue
		}
		d, err := uri.Unescape(p.Text[i : i+3])
		if err != nil {
			continue
		}
		b := d[0]
		e := escape{off: p.off + i, text: p.Text[i : i+3], b: b}
		switch {
		case (b == '\r' || b == '\n') && endsLine:
			if n := len(crlf); n > 0 {
				last := crlf[n-1][len(crlf[n-1])-1]
				if last.off+3 == e.off {
					crlf[n-1] = append(crlf[n-1], e)
					break
				}
			}
			crlf = append(crlf, []escape{e})
		case b == 0 && cuts:
			nul = append(nul, []escape{e})
		case b == '\t' && tabs:
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
		what = "decoded, it would end the line " + p.Where + " and what follows would be read as another command"
	case RuleEncodedNUL:
		what = "decoded, a NUL byte would be written " + p.Where + ", where it cuts the text short or is rejected"
	default:
		what = "decoded, a TAB would be written " + p.Where + ", where it starts another field"
	}
	msg := fmt.Sprintf("%s (%s) at offset %d in the %s: %s",
		strings.Join(text, ""), strings.Join(names, " "), first[0].off, p.Name, what)
	if p.Note != "" && rule != RuleEncodedNUL {
		msg += " " + p.Note
	}
	if n := len(runs) - 1; n == 1 {
		msg += "; 1 more occurrence"
	} else if n > 1 {
		msg += fmt.Sprintf("; %d more occurrences", n)
	}
	return Finding{Rule: rule, Level: Error, Component: p.Name, Message: msg}
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
