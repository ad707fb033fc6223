// Package lineproto holds what the line protocols of the module (FTP,
// NNTP, gopher) share: the protocol transcript with its passwords hidden,
// a reader of lines bounded in length, the status line of a reply, and
// the dot-terminated block (RFC 3977 section 3.1.1, RFC 1436 section 3.8).
// Multi-line FTP replies are read by net/textproto.Reader.ReadResponse,
// which fits them as it is.
package lineproto

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/secret"
	"github.com/rfc1738/fetch/internal/termtext"
)

// TraceMax bounds one line of the transcript: longer lines are cut, and
// the length of a received line is shown.
const TraceMax = 512

// Trace writes a protocol transcript to W: "> " before a line sent, "< "
// before a line received, "* " before a note. It is the one place where
// a password is hidden from a transcript: the argument of PASS, ACCT
// (RFC 959 section 4.1.1) and AUTHINFO PASS (RFC 4643 section 2.3) is
// shown as secret.TraceMask, and Secret, wherever it appears (a server
// that echoes it), too. Text from the server is escaped (termtext.Escape)
// so that it cannot drive the terminal. A nil W writes nothing.
type Trace struct {
	W      io.Writer
	Secret string // the password; never written
}

// Sent writes the line sent, without its line end, as Shown gives it.
func (t Trace) Sent(line string) { t.SentData(Shown(line)) }

// SentData writes a line sent that is no command (a gopher selector, a
// line of data) as it is, but for Secret.
func (t Trace) SentData(line string) { t.write("> ", line) }

// write writes s after mark, escaped, Secret hidden.
func (t Trace) write(mark, s string) {
	if t.W != nil {
		io.WriteString(t.W, mark+termtext.Escape(t.Redact(s), TraceMax)+"\n")
	}
}

// Received writes a line received, without its line end; n is its whole
// length, of which line may hold only the start. A line longer than
// TraceMax is cut and its length shown.
func (t Trace) Received(line string, n int) {
	if t.W == nil {
		return
	}
	s := termtext.Escape(t.Redact(line), TraceMax)
	if n = max(n, len(line)); n > TraceMax {
		s += "... (" + strconv.Itoa(n) + " bytes)"
	}
	io.WriteString(t.W, "< "+s+"\n")
}

// Note writes an informational line.
func (t Trace) Note(format string, args ...any) {
	if t.W != nil {
		t.write("* ", fmt.Sprintf(format, args...))
	}
}

// Redact hides Secret wherever it appears in s. A password shorter than
// three bytes is not searched for: it would blank out ordinary text.
func (t Trace) Redact(s string) string {
	if len(t.Secret) < 3 {
		return s
	}
	return secret.Hide(s, t.Secret)
}

// Shown returns a command line as a transcript or an error may show it:
// the argument of PASS and ACCT (FTP) and of AUTHINFO PASS (NNTP)
// replaced by secret.TraceMask, present or not, and the verb upper-cased;
// any other line as it is.
func Shown(line string) string {
	verb, arg, _ := strings.Cut(line, " ")
	verb = strings.ToUpper(verb)
	switch {
	case verb == "PASS" || verb == "ACCT":
		return verb + " " + secret.TraceMask
	case verb == "AUTHINFO" && len(arg) >= 4 && strings.EqualFold(arg[:4], "PASS") && (len(arg) == 4 || arg[4] == ' '):
		return "AUTHINFO PASS " + secret.TraceMask
	}
	return line
}
