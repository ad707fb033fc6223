package nntp

import (
	"mime"
	"net/mail"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/proto"
)

// This file holds the parsers of the server's replies; it does no I/O.

// overview is one article of a group summary: a line of an OVER or XOVER
// reply (RFC 3977 section 8.3.2; RFC 2980 section 2.8), or the same fields
// taken from the article's headers when the server has no overview.
type overview struct {
	Number     int64
	Subject    string
	From       string
	Date       string
	MessageID  string
	References string
	Bytes      int64 // -1 when absent or not a number
	Lines      int64 // -1 when absent or not a number
}

// syntaxError is a reply line this package could not parse; it holds the
// line (at most 80 bytes of it).
type syntaxError struct {
	what string
	line string
}

func (e *syntaxError) Error() string {
	return "nntp: malformed " + e.what + " " + strconv.Quote(e.line)
}

func badLine(what, line string) *syntaxError {
	if len(line) > 80 {
		line = line[:80]
	}
	return &syntaxError{what: what, line: line}
}

// parseOverview parses one overview line: the article number, then Subject,
// From, Date, Message-ID, References, :bytes and :lines separated by TAB
// (RFC 3977 section 8.3.2). Fields after :lines (LIST OVERVIEW.FMT extras)
// are ignored. Missing trailing fields are taken as empty, as some servers
// drop them; the number must be a positive decimal.
func parseOverview(line string) (overview, error) {
	f := strings.SplitN(line, "\t", 9)
	n, ok := articleNumber(f[0])
	if !ok {
		return overview{}, badLine("overview line", line)
	}
	field := func(i int) string {
		if i < len(f) {
			return strings.TrimSpace(f[i])
		}
		return ""
	}
	return overview{
		Number:     n,
		Subject:    field(1),
		From:       field(2),
		Date:       field(3),
		MessageID:  field(4),
		References: field(5),
		Bytes:      count(field(6)),
		Lines:      count(field(7)),
	}, nil
}

// articleNumber parses an article number: 1 to 2^63-1 in decimal
// (RFC 3977 section 6 allows 1 to 2,147,483,647; larger numbers from
// servers with 64-bit numbering are accepted).
func articleNumber(s string) (int64, bool) {
	n := count(s)
	return n, n >= 1
}

// parseListGroupLine parses one line of a LISTGROUP reply (RFC 3977
// section 6.1.2; RFC 2980 section 2.6): an article number as
// articleNumber reads it; white space around it (servers that pad) is
// dropped.
func parseListGroupLine(line string) (int64, error) {
	n, ok := articleNumber(strings.TrimSpace(line))
	if !ok {
		return 0, badLine("LISTGROUP line", line)
	}
	return n, nil
}

// count parses a non-negative decimal, or gives -1.
func count(s string) int64 {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return -1
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// overviewFromHeader builds the summary of article n from its header
// fields as mbox.Fields reads them (the first value of each, under its
// canonical name, continuation lines unfolded: RFC 5536 section 2.1, RFC
// 5322 section 2.2.3); the fallback for servers without OVER/XOVER.
func overviewFromHeader(n int64, h map[string]string) overview {
	return overview{
		Number:     n,
		Subject:    h["Subject"],
		From:       h["From"],
		Date:       h["Date"],
		MessageID:  h["Message-Id"],
		References: h["References"],
		Bytes:      count(h["Bytes"]),
		Lines:      count(h["Lines"]),
	}
}

// line renders o as an overview line (RFC 3977 section 8.3.2), with TAB,
// CR and LF inside fields replaced by spaces.
func (o overview) line() string {
	clean := strings.NewReplacer("\t", " ", "\r", " ", "\n", " ")
	return strings.Join([]string{
		strconv.FormatInt(o.Number, 10),
		clean.Replace(o.Subject), clean.Replace(o.From), clean.Replace(o.Date),
		clean.Replace(o.MessageID), clean.Replace(o.References),
		decimal(o.Bytes), decimal(o.Lines),
	}, "\t")
}

// decimal is n in decimal, "" for a count not known (below zero).
func decimal(n int64) string {
	if n < 0 {
		return ""
	}
	return strconv.FormatInt(n, 10)
}

var wordDecoder = mime.WordDecoder{}

// decodeWords decodes RFC 2047 encoded-words for display; text that does
// not decode (an unknown charset, a malformed word) is kept as it is.
func decodeWords(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	d, err := wordDecoder.DecodeHeader(s)
	if err != nil {
		return s
	}
	return d
}

// entry turns an overview into a directory entry: Name is the decoded
// subject, Size the byte count (-1 when unknown), ModTime the parsed date,
// URL the article's own URL, and Extra every field as a string.
func (o overview) entry(url string) proto.Entry {
	e := proto.Entry{
		Name: decodeWords(o.Subject),
		Type: proto.EntryFile,
		Size: o.Bytes,
		URL:  url,
		Extra: map[string]string{
			"number":     strconv.FormatInt(o.Number, 10),
			"subject":    decodeWords(o.Subject),
			"from":       decodeWords(o.From),
			"date":       o.Date,
			"message_id": o.MessageID,
			"references": o.References,
			"bytes":      decimal(o.Bytes),
			"lines":      decimal(o.Lines),
		},
	}
	if t, err := mail.ParseDate(o.Date); err == nil {
		e.ModTime = t.UTC()
	}
	return e
}

// parseGroupReply reads the text of a 211 reply to GROUP (RFC 3977
// section 6.1.1): "number low high group", number being the server's
// estimate of the count.
func parseGroupReply(msg string) (GroupInfo, error) {
	f := strings.Fields(msg)
	if len(f) < 3 {
		return GroupInfo{}, badLine("GROUP reply", msg)
	}
	var g GroupInfo
	for i, p := range []*int64{&g.Count, &g.Low, &g.High} {
		n := count(f[i])
		if n < 0 {
			return GroupInfo{}, badLine("GROUP reply", msg)
		}
		*p = n
	}
	return g, nil
}

// parseArticleReply reads "n <message-id>" from a 220, 221 or 222 reply
// (RFC 3977 section 6.2.1). Either part may be missing from a sloppy
// server: n is then 0 and the id empty.
func parseArticleReply(msg string) (int64, string) {
	f := strings.Fields(msg)
	var n int64
	id := ""
	if len(f) > 0 {
		n = max(count(f[0]), 0)
	}
	if len(f) > 1 && strings.HasPrefix(f[1], "<") && strings.HasSuffix(f[1], ">") {
		id = f[1]
	}
	return n, id
}

// parseActive reads one line of LIST ACTIVE (RFC 3977 section 7.6.3):
// "group high low status".
func parseActive(line string) (ActiveGroup, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return ActiveGroup{}, badLine("LIST ACTIVE line", line)
	}
	g := ActiveGroup{Name: f[0], High: count(f[1]), Low: count(f[2])}
	if g.High < 0 || g.Low < 0 {
		return ActiveGroup{}, badLine("LIST ACTIVE line", line)
	}
	if len(f) > 3 {
		g.Status = f[3]
	}
	return g, nil
}

// parseNewsgroups splits a LIST NEWSGROUPS line (RFC 3977 section 7.6.6):
// the group name, white space, the description.
func parseNewsgroups(line string) (name, desc string, ok bool) {
	i := strings.IndexAny(line, " \t")
	if i <= 0 {
		return "", "", false
	}
	return line[:i], strings.TrimSpace(line[i:]), true
}

// groupEntry turns a LIST ACTIVE line into a directory entry.
func (g ActiveGroup) entry(url, desc string) proto.Entry {
	return proto.Entry{
		Name: g.Name,
		Type: proto.EntryDir,
		Size: -1,
		URL:  url,
		Extra: map[string]string{
			"high":        strconv.FormatInt(g.High, 10),
			"low":         strconv.FormatInt(g.Low, 10),
			"status":      g.Status,
			"description": desc,
		},
	}
}
