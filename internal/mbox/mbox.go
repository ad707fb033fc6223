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

// Header reads the From and Date fields of a message's header (the lines
// before the first empty one), unfolded; other fields are ignored.
func Header(msg []byte) map[string]string {
	h := map[string]string{}
	last := ""
	for len(msg) > 0 {
		line := msg
		if i := bytes.IndexByte(msg, '\n'); i >= 0 {
			line, msg = msg[:i], msg[i+1:]
		} else {
			msg = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			break
		}
		if line[0] == ' ' || line[0] == '\t' {
			if last != "" {
				h[last] += " " + strings.TrimSpace(string(line))
			}
			continue
		}
		name, value, ok := strings.Cut(string(line), ":")
		last = ""
		if !ok {
			continue
		}
		switch strings.ToLower(name) {
		case "from":
			name = "From"
		case "date":
			name = "Date"
		default:
			continue
		}
		if _, seen := h[name]; !seen {
			h[name] = strings.TrimSpace(value)
			last = name
		}
	}
	return h
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
