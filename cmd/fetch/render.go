package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gopher"
)

// document is the --json form of a listing, menu, advice or attribute set.
type document struct {
	URL     string        `json:"url"`
	Kind    string        `json:"kind"`             // "directory", "advisory", "data"
	Entries []proto.Entry `json:"entries,omitzero"` // non-nil for a directory
	// Unparsed: the lines of an FTP listing that fit no known layout
	// (empty, not absent, for an FTP listing that had none), or of a
	// gopher menu that are no menu line (absent when there are none).
	Unparsed []string `json:"unparsed,omitzero"`
	// NLSTFallback: not one line of the FTP listing fit a known layout;
	// the entries are NLST's names, probed with CWD, SIZE and MDTM.
	NLSTFallback bool `json:"nlst_fallback,omitzero"`
	// Truncated: the FTP server's completion reply, when it said it cut
	// the listing short ("226 Output truncated to 10000 matches").
	Truncated string         `json:"truncated,omitzero"`
	Info      map[string]any `json:"info,omitempty"`
}

func writeJSON(w io.Writer, v any) error {
	if err := encodeJSON(w, v); err != nil {
		return &writeError{err}
	}
	return nil
}

// encodeJSON writes v as indented JSON, with the runes that reorder a
// terminal's text (termtext.Reorders) escaped as \uXXXX: the same string to a JSON
// reader, and shown as it is on a terminal. (encoding/json escapes U+2028
// and U+2029 by itself, not the bidirectional controls.)
func encodeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(escapeReorders(b), '\n'))
	return err
}

// escapeReorders writes each rune of b that termtext.Reorders (JSON text: such a
// rune can stand only inside a string) as \uXXXX.
func escapeReorders(b []byte) []byte {
	if !bytes.ContainsFunc(b, termtext.Reorders) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if termtext.Reorders(r) {
			out = fmt.Appendf(out, "\\u%04x", r)
		} else {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// renderListing writes a directory listing or menu: as JSON, as a gopher
// menu (one item per line with its type, display string and URL), as a
// news summary, as names one per line (an FTP name list, ;type=d), or like
// ls -l.
func renderListing(w io.Writer, resp *fetch.Response, asJSON bool) error {
	if asJSON {
		entries := resp.Entries
		if entries == nil {
			entries = []proto.Entry{}
		}
		doc := document{URL: resp.URL.Redacted(), Kind: "directory", Entries: entries}
		doc.Unparsed = unparsedLines(resp)
		if l := resp.Listing; l != nil {
			// A listing with notes says each of them, unparsed lines
			// even when there are none.
			doc.Unparsed = append([]string{}, doc.Unparsed...)
			doc.NLSTFallback, doc.Truncated = l.Fallback, l.Truncated
		}
		return writeJSON(w, doc)
	}
	bw := bufio.NewWriter(&errWriter{w: w})
	switch listingForm(resp) {
	case proto.FormMenu:
		renderMenu(bw, resp.Entries)
	case proto.FormNews:
		renderNews(bw, resp.Entries)
	case proto.FormNames:
		// Names only, as DESIGN.md says of ;type=d.
		for _, e := range resp.Entries {
			fmt.Fprintln(bw, termtext.Listing(e.Name))
		}
	default:
		renderLong(bw, resp.Entries)
	}
	return bw.Flush()
}

// renderLong writes entries like ls -l: permissions, size, modification
// time, name, and "-> target" for links.
func renderLong(w io.Writer, entries []proto.Entry) {
	width := 1
	for _, e := range entries {
		width = max(width, len(sizeText(e.Size)))
	}
	for _, e := range entries {
		fmt.Fprintf(w, "%s %*s %s %s", termtext.Listing(lsMode(e)), width, sizeText(e.Size), timeText(e.ModTime), termtext.Listing(e.Name))
		if e.Target != "" {
			fmt.Fprintf(w, " -> %s", termtext.Listing(e.Target))
		}
		fmt.Fprintln(w)
	}
}

// lsMode is the ls-style mode column of e: Extra["perm"] when it is one
// (Unix and EPLF listings), else one made from an MLSD UNIX.mode fact
// (octal permission bits), else the type letter and "?" for each bit. An
// MLSD listing's own perm fact (RFC 3659 section 7.5.5, such as "adfr")
// says what the login may do, not the mode, and is not shown here.
func lsMode(e proto.Entry) string {
	if p := e.Extra["perm"]; isLsMode(p) {
		return p
	}
	if m, err := strconv.ParseUint(e.Extra["unix.mode"], 8, 32); err == nil {
		const bits = "rwxrwxrwx"
		b := []byte(typeLetter(e.Type) + "---------")
		for i := range 9 {
			if m&(1<<(8-i)) != 0 {
				b[1+i] = bits[i]
			}
		}
		return string(b)
	}
	return typeLetter(e.Type) + "?????????"
}

// isLsMode reports whether p looks like the first column of ls -l: a type
// letter, then nine permission letters (and perhaps an ACL mark).
func isLsMode(p string) bool {
	if len(p) < 10 || !strings.ContainsRune("-dlcbpsD", rune(p[0])) {
		return false
	}
	for _, c := range p[1:10] {
		if !strings.ContainsRune("rwxsStTl-", c) {
			return false
		}
	}
	return true
}

func typeLetter(t proto.EntryType) string {
	switch t {
	case proto.EntryDir:
		return "d"
	case proto.EntryLink:
		return "l"
	case proto.EntryFile:
		return "-"
	}
	return "?"
}

func sizeText(n int64) string {
	if n < 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

// timeText is a modification time in a fixed, sortable form.
func timeText(t time.Time) string {
	if t.IsZero() {
		return "????-??-?? ??:??"
	}
	return t.Format("2006-01-02 15:04")
}

// renderMenu writes a gopher menu: info lines as text, other items as
// "TYPE  display  URL".
func renderMenu(w io.Writer, entries []proto.Entry) {
	for _, e := range entries {
		if e.Type == proto.EntryInfo && e.URL == "" {
			fmt.Fprintf(w, "     %s\n", termtext.Listing(e.Name))
			continue
		}
		fmt.Fprintf(w, "%-4s %s  %s\n", termtext.Listing(e.ItemType), termtext.Listing(e.Name), termtext.Listing(e.URL))
	}
}

// renderNews writes a group list (name, article range, description) or an
// article summary (number, date, sender, subject), with each URL.
func renderNews(w io.Writer, entries []proto.Entry) {
	for _, e := range entries {
		x := e.Extra
		if e.Type == proto.EntryDir {
			fmt.Fprintf(w, "%s %s-%s %s  %s\n", termtext.Listing(e.Name), termtext.Listing(x["low"]), termtext.Listing(x["high"]), termtext.Listing(x["description"]), termtext.Listing(e.URL))
			continue
		}
		fmt.Fprintf(w, "%6s %s %s: %s  %s\n", termtext.Listing(x["number"]), timeText(e.ModTime), termtext.Listing(x["from"]), termtext.Listing(e.Name), termtext.Listing(e.URL))
	}
}

// renderAdvisory writes the advice about a service (telnet, mailto): the
// driver's text, or its fields one per line.
func renderAdvisory(w io.Writer, resp *fetch.Response, asJSON bool) error {
	if asJSON {
		return writeJSON(w, document{URL: resp.URL.Redacted(), Kind: "advisory", Info: resp.Info})
	}
	var text strings.Builder
	if _, err := io.Copy(&text, io.LimitReader(resp.Body, 1<<20)); err != nil {
		return &fetch.Error{Op: "read", URL: resp.URL.Redacted(), Err: err}
	}
	if text.Len() == 0 {
		for _, k := range slices.Sorted(maps.Keys(resp.Info)) {
			fmt.Fprintf(&text, "%s: %v\n", k, resp.Info[k])
		}
	}
	_, err := io.WriteString(w, termtext.Listing(text.String()))
	if err != nil {
		return &writeError{err}
	}
	return nil
}

// errWriter marks the errors of the writer below a bufio.Writer as write
// errors.
type errWriter struct{ w io.Writer }

func (e *errWriter) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil {
		return n, &writeError{err}
	}
	return n, nil
}

// unparsedLines returns the lines of a listing that fit no known layout
// (proto.Listing), or of a gopher menu that are no menu line.
func unparsedLines(resp *fetch.Response) []string {
	if l := resp.Listing; l != nil && len(l.Unparsed) > 0 {
		return l.Unparsed
	}
	return gopher.UnparsedOf(&resp.Response)
}
