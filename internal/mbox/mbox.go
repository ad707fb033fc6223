// Package mbox writes messages in the mboxrd format and reads its quoting
// back.
//
// mboxrd is the variant of the Unix mailbox described in "Configuring
// Netscape Mail on Unix" and collected, with the other variants, at
// https://www.loc.gov/preservation/digital/formats/fdd/fdd000385.shtml and
// in RFC 4155 (application/mbox): each message starts with a line
// "From SENDER DATE" (DATE in the asctime form of C's ctime), and every
// line of the message matching ">*From " gets one more ">", so that the
// quoting can be undone exactly by removing one ">" from every line
// matching ">+From ". A blank line separates messages.
package mbox

import (
	"bytes"
	"net/mail"
	"net/textproto"
	"strings"
	"time"
)

// Quote returns msg with every line that matches ">*From " given one more
// leading ">" (mboxrd). Line ends are kept as they are.
func Quote(msg []byte) []byte {
	return transform(msg, true)
}

// Unquote undoes Quote: every line that matches ">+From " loses one
// leading ">".
func Unquote(msg []byte) []byte {
	return transform(msg, false)
}

func transform(msg []byte, quote bool) []byte {
	out := make([]byte, 0, len(msg)+16)
	for line := range bytes.Lines(msg) {
		if gt := fromLine(line); gt >= 0 {
			if quote {
				out = append(out, '>')
			} else if gt > 0 {
				line = line[1:]
			}
		}
		out = append(out, line...)
	}
	return out
}

// fromLine returns how many ">" precede "From " at the start of line, or
// -1 when the line does not match ">*From ".
func fromLine(line []byte) int {
	i := 0
	for i < len(line) && line[i] == '>' {
		i++
	}
	if bytes.HasPrefix(line[i:], []byte("From ")) {
		return i
	}
	return -1
}

// Separator returns the "From " line that starts a message in an mbox,
// without its line end: the address of the message's From field (or
// "MAILER-DAEMON" when there is none that parses) and its Date in the
// asctime form, in UTC (the Unix epoch when the Date does not parse).
func Separator(header map[string]string) string {
	sender := "MAILER-DAEMON"
	if a, err := mail.ParseAddress(header["From"]); err == nil && a.Address != "" && !strings.ContainsAny(a.Address, " \t\r\n") {
		sender = a.Address
	}
	t := time.Unix(0, 0)
	if d, err := mail.ParseDate(header["Date"]); err == nil {
		t = d
	}
	return "From " + sender + " " + t.UTC().Format(time.ANSIC)
}

// Header returns the From and Date fields of a message's header (Fields),
// the two that Separator reads.
func Header(msg []byte) map[string]string {
	all := Fields(string(msg))
	h := map[string]string{}
	for _, k := range []string{"From", "Date"} {
		if v, ok := all[k]; ok {
			h[k] = v
		}
	}
	return h
}

// Fields parses a message's header block, one field per line; lines may
// end in LF or CR LF. It stops at the first empty line. It holds the first
// value of each field under its canonical name ("Message-Id"), continuation
// lines unfolded (RFC 5536 section 2.1, RFC 5322 section 2.2.3). Lines that
// are neither a field nor a continuation are skipped: a header is read
// best effort, and the message itself is passed on untouched.
func Fields(block string) map[string]string {
	h := map[string]string{}
	last := ""
	for len(block) > 0 {
		line, after, _ := strings.Cut(block, "\n")
		block = after
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last != "" {
				h[last] += " " + strings.TrimSpace(line)
			}
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !fieldName(name) {
			last = ""
			continue
		}
		key := textproto.CanonicalMIMEHeaderKey(name)
		if _, seen := h[key]; seen {
			last = ""
			continue
		}
		h[key] = strings.TrimSpace(value)
		last = key
	}
	return h
}

// fieldName reports whether s is a header field name: one or more
// printable US-ASCII characters other than ":" (RFC 5322 section 2.2).
func fieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 33 || s[i] > 126 {
			return false
		}
	}
	return true
}

// Append appends one message to an mbox being built in b: the separator
// line, the quoted message, a line end if the message lacks a final one,
// and the blank line that ends it.
func Append(b, msg []byte) []byte {
	b = append(b, Separator(Header(msg))...)
	b = append(b, '\n')
	b = append(b, Quote(msg)...)
	if len(msg) > 0 && msg[len(msg)-1] != '\n' {
		b = append(b, '\n')
	}
	return append(b, '\n')
}
