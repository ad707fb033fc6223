package gopher

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Item is one line of a gopher menu (RFC 1436 section 3.8):
// <type><display> TAB <selector> TAB <host> TAB <port> [TAB <gopher+ flag>].
// The zero value is an empty info line.
type Item struct {
	// Type is the item type, one byte ("0" text, "1" menu, "7" search,
	// "i" info, ...).
	Type string `json:"type"`
	// Display is the display string, as sent (it may hold any byte but
	// TAB, CR and LF; sanitize it before showing it on a terminal).
	Display string `json:"display"`
	// Selector is the selector string, as sent.
	Selector string `json:"selector"`
	// Host is the server of the item; empty when the line had none.
	Host string `json:"host"`
	// Port is the item's port; 0 when the line had none or it was not a
	// number from 1 to 65535.
	Port int `json:"port"`
	// Plus is the Gopher+ flag of the fifth field: "+" (a Gopher+ item),
	// "?" (a Gopher+ item with an +ASK form), or "" (a plain gopher item).
	Plus string `json:"plus,omitempty"`
}

// Default limits of the menu and attribute parsers; Driver fields override
// them.
const (
	// DefaultMaxLine is the longest menu, header or attribute line
	// accepted, in bytes, line end not counted.
	DefaultMaxLine = 64 << 10
	// DefaultMaxMenuBytes is the largest menu or attribute response read
	// into memory: the listing cap of every scheme.
	DefaultMaxMenuBytes = proto.DefaultListingCap
	// DefaultMaxItems is the largest number of items in one menu (and of
	// attribute records in one "$" response).
	DefaultMaxItems = 200_000
)

// limits bounds what a parser accepts; zero fields take the defaults.
type limits struct {
	maxLine  int
	maxBytes int64
	maxItems int
}

func (l limits) line() int    { return orDefault(l.maxLine, DefaultMaxLine) }
func (l limits) bytes() int64 { return orDefault(l.maxBytes, DefaultMaxMenuBytes) }
func (l limits) items() int   { return orDefault(l.maxItems, DefaultMaxItems) }

// orDefault is v, or def when v is not above zero.
func orDefault[T int | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// ParseMenu parses a gopher menu (RFC 1436 section 3.8, with the Gopher+
// fifth field of gopherplus.txt section 2.2). It is lenient where servers
// differ: lines may end in LF alone, fields may be missing (they are left
// empty), extra fields after the fifth are ignored, empty lines are skipped,
// and the menu may end with a "." line (anything after it is ignored) or
// without one (pygopherd simply closes). A line without any TAB is an info
// line holding the whole line, unless it starts with "i" or "3".
//
// Lines that are no menu line at all (see ParseMenuLines) are left out.
// A line longer than DefaultMaxLine or more than DefaultMaxItems lines give
// a *proto.ProtocolError.
func ParseMenu(b []byte) ([]Item, error) {
	items, _, err := parseMenu(b, limits{})
	return items, err
}

// ParseMenuLines parses a menu as ParseMenu does, and returns apart, as
// sent but for their line ends, the lines that are no menu line:
//
//   - a line holding a NUL byte, which no field may hold (RFC 1436,
//     appendix: DisplayString, Selector and Host are made of UNASCII,
//     "ASCII - [Tab CR-LF NUL]"); a menu of binary garbage is all such lines;
//   - a line that begins with a TAB: it has no type (RFC 1436 section 3.8:
//     the type is the line's first character, the display string follows);
//   - an item (not "i" or "3") whose port field is there but is not a
//     number from 1 to 65535 (RFC 1436, appendix: Port ::= DigitSeq), such
//     as "abc"; this is also what a display string holding a TAB gives, the
//     fields after it being shifted by one ("0a\tb\t/sel\thost\t70" has the
//     port "host"). An "h" item whose selector is "URL:..." is exempt: its
//     port is never used.
//
// Such a line was often an item: counting it, a caller can say that the
// menu may lack entries instead of losing them without a word.
func ParseMenuLines(b []byte) (items []Item, unparsed []string, err error) {
	return parseMenu(b, limits{})
}

func parseMenu(b []byte, lim limits) (items []Item, unparsed []string, err error) {
	maxLine, maxItems := lim.line(), lim.items()
	for len(b) > 0 {
		var line []byte
		if line, b, err = lineproto.Cut(b, maxLine); err != nil {
			return nil, nil, protoErr("menu %v", err)
		}
		line = trimEOL(line)
		if len(line) == 0 {
			continue
		}
		if len(line) == 1 && line[0] == '.' {
			break
		}
		if len(items)+len(unparsed) >= maxItems {
			return nil, nil, protoErr("menu has more than %d items", maxItems)
		}
		it := parseItem(string(line))
		if !menuLine(string(line), it) {
			unparsed = append(unparsed, string(line))
			continue
		}
		items = append(items, it)
	}
	return items, unparsed, nil
}

// menuLine reports whether line, parsed as it, is a menu line by the rules
// of ParseMenuLines.
func menuLine(line string, it Item) bool {
	if strings.IndexByte(line, 0) >= 0 || line[0] == '\t' {
		return false
	}
	if it.IsInfo() || it.Type == "h" && (strings.HasPrefix(it.Selector, "URL:") || strings.HasPrefix(it.Selector, "/URL:")) {
		return true
	}
	fields := strings.SplitN(line, "\t", 5)
	if len(fields) < 4 {
		return true // no port field: lenient, the default port
	}
	port := strings.TrimSpace(fields[3])
	return port == "" || it.Port != 0 && strings.Trim(port, "0123456789") == "" // no sign
}

// ParseItem parses one menu line (without its line end) as ParseMenu does.
// It is also the parser of the item descriptor on a Gopher+ +INFO line.
func ParseItem(line string) Item {
	return parseItem(strings.TrimRight(line, "\r\n"))
}

func parseItem(line string) Item {
	if line == "" {
		return Item{Type: "i"}
	}
	if !strings.Contains(line, "\t") {
		if line[0] == 'i' || line[0] == '3' {
			return Item{Type: line[:1], Display: line[1:]}
		}
		return Item{Type: "i", Display: line}
	}
	it := Item{Type: line[:1]}
	rest := line[1:]
	for i := 0; i < 5; i++ {
		f, after, more := strings.Cut(rest, "\t")
		switch i {
		case 0:
			it.Display = f
		case 1:
			it.Selector = f
		case 2:
			it.Host = strings.TrimSpace(f)
		case 3:
			if n, err := strconv.Atoi(strings.TrimSpace(f)); err == nil && n > 0 && n <= 65535 {
				it.Port = n
			}
		case 4:
			switch p := strings.TrimSpace(f); {
			case strings.HasPrefix(p, "+"):
				it.Plus = "+"
			case strings.HasPrefix(p, "?"):
				it.Plus = "?"
			}
		}
		if !more {
			break
		}
		rest = after
	}
	return it
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// IsInfo reports whether the item is not a link: an info line ("i") or an
// error line ("3").
func (it Item) IsInfo() bool { return it.Type == "i" || it.Type == "3" }

// URL returns the URL the item points to, or "" when it has none (info and
// error lines, or a host that cannot be written in a URL):
//
//   - "h" items whose selector is "URL:<url>" (or "/URL:<url>"): <url>;
//   - "8" (telnet) and "T" (tn3270): telnet://[selector@]host[:port]/ and
//     tn3270://..., the selector being the suggested login name (RFC 1436
//     section 3.8);
//   - every other type: gopher://host[:port]/<type><selector>, the selector
//     escaped so that uri.URL.Gopher gives it back exactly (a TAB becomes
//     %09, "?" becomes %3F, ...), port 70 left out (RFC 1738 section 3.4);
//     an item flagged "?" gets the gopher+_string "?" (%09%09?) so that
//     fetching it runs its +ASK form.
func (it Item) URL() string {
	if it.IsInfo() || len(it.Type) != 1 || it.Type == "\t" {
		return "" // a TAB type (a line starting with TAB) has no URL form
	}
	if it.Type == "h" {
		for _, p := range []string{"URL:", "/URL:"} {
			if strings.HasPrefix(it.Selector, p) {
				return it.Selector[len(p):]
			}
		}
	}
	host, ok := urlHost(it.Host)
	if !ok {
		return ""
	}
	switch it.Type {
	case "8", "T":
		scheme := "telnet"
		if it.Type == "T" {
			scheme = "tn3270"
		}
		if it.Selector != "" {
			host = uri.Escape(it.Selector, "") + "@" + host
		}
		if it.Port != 0 && it.Port != 23 {
			host += ":" + strconv.Itoa(it.Port)
		}
		return scheme + "://" + host + "/"
	}
	sel := uri.Escape(it.Selector, selectorSafe)
	var b strings.Builder
	b.Grow(len("gopher://") + len(host) + len(":65535/") + 3 + len(sel) + len("%09%09?"))
	b.WriteString("gopher://")
	b.WriteString(host)
	if it.Port != 0 && it.Port != 70 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(it.Port))
	}
	b.WriteByte('/')
	b.WriteString(uri.Escape(it.Type, selectorSafe))
	b.WriteString(sel)
	if it.Plus == "?" {
		b.WriteString("%09%09?")
	}
	return b.String()
}

// selectorSafe are the characters left unescaped in a selector besides the
// unreserved ones: RFC 1738 section 3.4 reserves nothing in the gopher-path,
// but "?" (a query to other parsers), "#", "%", TAB and the unsafe
// characters are escaped.
const selectorSafe = "/;:@=&"

// urlHost returns host as it is written in a URL (IPv6 in brackets), and
// false when it cannot be: empty, or holding a byte no host name has.
func urlHost(host string) (string, bool) {
	if host == "" || len(host) > 255 {
		return "", false
	}
	if strings.Contains(host, ":") {
		if a, err := netip.ParseAddr(host); err != nil || !a.Is6() || a.Zone() != "" {
			return "", false
		}
		return "[" + host + "]", true
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_') {
			return "", false
		}
	}
	return host, true
}

// EntryType classifies the item for a directory listing: "1" is a
// directory, "i" and "3" are info, "8" and "T" are services, "h" items
// pointing to a URL are links, "7" (search) is other, anything else a file.
func (it Item) EntryType() proto.EntryType {
	switch it.Type {
	case "1":
		return proto.EntryDir
	case "i", "3":
		return proto.EntryInfo
	case "8", "T":
		return proto.EntryService
	case "7", "2":
		return proto.EntryOther
	case "h":
		if strings.HasPrefix(it.Selector, "URL:") || strings.HasPrefix(it.Selector, "/URL:") {
			return proto.EntryLink
		}
	}
	return proto.EntryFile
}

// Entry converts the item to a directory entry: Name is the display
// string, URL the item's own URL, ItemType its type, and Extra holds
// "selector", "host", "port" and (when set) "plus" for every item that is
// not an info line.
func (it Item) Entry() proto.Entry {
	e := proto.Entry{
		Name:     it.Display,
		Type:     it.EntryType(),
		Size:     -1,
		URL:      it.URL(),
		ItemType: it.Type,
	}
	if e.Type == proto.EntryLink {
		e.Target = e.URL
	}
	if !it.IsInfo() {
		e.Extra = make(map[string]string, 4)
		e.Extra["selector"] = it.Selector
		e.Extra["host"] = it.Host
		e.Extra["port"] = strconv.Itoa(it.Port)
		if it.Plus != "" {
			e.Extra["plus"] = it.Plus
		}
	}
	return e
}

// typeLabels name the item types for people (the labels of RFC 1436
// section 3.8 and the common extensions).
var typeLabels = map[string]string{
	"0": "TXT", "1": "DIR", "2": "CSO", "3": "ERR", "4": "HQX", "5": "DOS",
	"6": "UUE", "7": "SRCH", "8": "TEL", "9": "BIN", "+": "MIRR", "g": "GIF",
	"I": "IMG", "T": "3270", "h": "HTML", "s": "SND", "d": "DOC", "p": "PNG",
	";": "MOV", ":": "IMG", "<": "SND", "P": "PDF", "M": "MIME", "c": "CAL",
	"e": "EVNT", "r": "RTF", "X": "XML", "w": "WWW",
}

// TypeLabel returns a short label for a gopher item type ("TXT", "DIR",
// ...), or the type itself in parentheses when it has none. Info lines
// have an empty label.
func TypeLabel(t string) string {
	if t == "i" {
		return ""
	}
	if l, ok := typeLabels[t]; ok {
		return l
	}
	return "(" + termtext.Mask(t) + ")"
}

// FormatMenu writes entries (as returned in proto.Response.Entries for a
// gopher menu) for people, one per line: the item type's label, the display
// string and the URL to follow; info lines show their text only, indented.
// Control characters in display strings and URLs are shown as "?" so that
// a hostile menu cannot drive the terminal.
func FormatMenu(w io.Writer, entries []proto.Entry) error {
	width := 0
	for _, e := range entries {
		if e.URL != "" {
			width = max(width, utf8.RuneCountInString(termtext.Mask(e.Name)))
		}
	}
	width = min(width, 50)
	bw := bufio.NewWriter(w)
	for _, e := range entries {
		name := termtext.Mask(e.Name)
		label := TypeLabel(e.ItemType)
		switch {
		case e.Type == proto.EntryInfo && e.ItemType != "3":
			if name == "" {
				bw.WriteString("\n")
			} else {
				fmt.Fprintf(bw, "%-6s %s\n", "", name)
			}
		case e.URL == "":
			fmt.Fprintf(bw, "%-6s %s\n", label, name)
		default:
			pad := max(width-utf8.RuneCountInString(name), 0)
			fmt.Fprintf(bw, "%-6s %s%s  %s\n", label, name, strings.Repeat(" ", pad), termtext.Mask(e.URL))
		}
	}
	return bw.Flush()
}

func protoErr(format string, args ...any) *proto.ProtocolError {
	return &proto.ProtocolError{Proto: "gopher", Msg: fmt.Sprintf(format, args...)}
}
