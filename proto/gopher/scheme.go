package gopher

import (
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
)

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

// SchemeFacts: a line protocol, no user information (RFC 1738 section 3.4).
func (d *Driver) SchemeFacts(string) safety.Facts {
	return safety.Facts{Line: true, NoUserinfo: true, Section: "3.4"}
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
	rest, ok := strings.CutPrefix(plus, formPrefix)
	if !ok {
		return false
	}
	rest, ok = strings.CutSuffix(rest, formEnd)
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

// View returns the type, selector, search and gopher+ string of u (RFC
// 1738 section 3.4).
func (d *Driver) View(u *uri.URL) (proto.View, error) {
	v, err := u.Gopher()
	if err != nil {
		return nil, err
	}
	return proto.View{{Key: "type", Value: v.Type}, {Key: "selector", Value: v.Selector}, {Key: "search", Value: v.Search}, {Key: "plus", Value: v.Plus}}, nil
}

// ListingForm is FormMenu: a menu's items with their types.
func (d *Driver) ListingForm(*proto.Response) proto.ListingForm { return proto.FormMenu }

// ArchiveRequest asks for nothing more.
func (d *Driver) ArchiveRequest(req *proto.Request) bool { return false }

// ArchiveRecord types a menu as text/x-gopher-menu, and records Gopher+
// attribute blocks as a metadata record of the item they describe.
func (d *Driver) ArchiveRecord(u *uri.URL, resp *proto.Response) proto.ArchiveRecord {
	if _, ok := AttributesOf(resp); ok {
		return proto.ArchiveRecord{ContentType: "text/x-gopher-plus-attributes", Metadata: true}
	}
	if resp.Kind == proto.KindDirectory {
		return proto.ArchiveRecord{ContentType: "text/x-gopher-menu"}
	}
	return proto.ArchiveRecord{}
}

// AttributesOf returns the Gopher+ attribute blocks of resp, the response
// to a "!" or "$" request, and whether resp holds any: its body is then the
// blocks as received.
func AttributesOf(resp *proto.Response) ([]Attributes, bool) {
	a, ok := resp.Info["attributes"].([]Attributes)
	return a, ok
}

// UnparsedOf returns the lines of the menu resp that are no menu line.
func UnparsedOf(resp *proto.Response) []string {
	lines, _ := resp.Info[InfoUnparsed].([]string)
	return lines
}
