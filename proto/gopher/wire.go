package gopher

import (
	"strings"

	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

var _ safety.Wire = (*Driver)(nil)

// WireParts returns what the driver writes of u: selector TAB search TAB
// gopher+_string CRLF (RFC 1738 section 3.4). The gopher-path is split at
// its first two %09, so the selector and the search can never hold a
// decoded TAB: a further %09 lands in the gopher+ string, where it would
// add a field to the request line. The gopher+ string of a filled +ASK
// form carries CR/LF and a TAB by design (IsAskForm).
func (d *Driver) WireParts(u *uri.URL) ([]safety.Part, error) {
	v, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	p := safety.URLPath(u)
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
	ps := []safety.Part{{Name: "gopher selector", Text: first[typeLen:], In: safety.InURLPath, Off: typeLen, Kind: safety.LineText, Where: where}}
	off := len(first) + 3
	if len(fields) > 1 {
		ps = append(ps, safety.Part{Name: "gopher search", Text: fields[1], In: safety.InURLPath, Off: off, Kind: safety.LineText, Where: where})
		off += len(fields[1]) + 3
	}
	if len(fields) > 2 {
		pt := safety.Part{Name: "gopher+ string", Text: fields[2], In: safety.InURLPath, Off: off, Kind: safety.LineArg, Where: where,
			Note: "(not the exact structure of a filled +ASK form)"}
		if v.Plus != nil && IsAskForm(*v.Plus) {
			pt.Kind, pt.Note = safety.NULOnly, ""
		}
		ps = append(ps, pt)
	}
	return ps, nil
}

// IsAskForm reports whether plus, a decoded gopher+ string (the Plus of
// uri.GopherPath), is a filled Gopher+ +ASK form exactly as RFC 1738
// section 3.4 writes it, the only gopher+ string whose CR, LF and TAB
// WireParts accepts:
//
//	"+" TAB "1" CRLF "+-1" CRLF *( answer CRLF ) "." CRLF
//
// where no answer contains CR or LF and no answer is "." alone (which would
// end the data block early). A TAB inside an answer is data of the block,
// not a field separator, and is accepted; NUL is never accepted.
func IsAskForm(plus string) bool {
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
