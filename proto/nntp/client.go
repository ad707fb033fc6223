package nntp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/proto"
)

// client is one NNTP connection. It is used by one Fetch at a time and is
// not safe for concurrent use.
type client struct {
	nc    net.Conn
	lines *lineproto.Reader // replies, list lines and, through lines.R, articles
	w     *textproto.Writer
	trace lineproto.Trace

	capsAsked bool
	caps      map[string][]string // nil when the server has no CAPABILITIES
}

// newClient wraps an open connection. Lines longer than maxLine bytes are
// refused when read as reply or list lines (article bodies stream through
// a lineproto.DotReader and are not bounded by it). The read buffer holds
// at least one such line.
func newClient(nc net.Conn, trace io.Writer, maxLine int) *client {
	return &client{
		nc:    nc,
		lines: lineproto.NewReader(bufio.NewReaderSize(nc, max(maxLine+2, 16<<10)), maxLine),
		w:     textproto.NewWriter(bufio.NewWriter(nc)),
		trace: lineproto.Trace{W: trace},
	}
}

// greet reads the server's greeting: 200 or 201 (RFC 3977 section 5.1.1).
func (c *client) greet(ctx context.Context) error {
	code, msg, err := c.readReply(ctx, "greeting")
	if err != nil {
		return err
	}
	if code != StatusPostingAllowed && code != StatusNoPosting {
		return refusal("greeting", code, msg)
	}
	return nil
}

// cmd sends one command line and reads the reply's status line. expect is
// matched as by textproto.Reader.ReadCodeLine: a three-digit code must match
// exactly, one or two digits match the code's first digits, 0 accepts any
// code. A reply that does not match is returned as a *ReplyError along with
// its code and text; a broken connection as an I/O error with code 0. The
// trace and errors show the command as lineproto.Shown does (AUTHINFO PASS
// without its password).
func (c *client) cmd(ctx context.Context, expect int, format string, args ...any) (int, string, error) {
	line := fmt.Sprintf(format, args...)
	shown := lineproto.Shown(line)
	// The wire check: no CR, LF or NUL ever reaches the server, whatever
	// the caller validated before (DESIGN.md, Safety).
	if err := proto.CheckArg(line); err != nil {
		verb, _, _ := strings.Cut(shown, " ") // the rest may hold what broke the line
		return 0, "", fmt.Errorf("nntp: %s: %w", verb, err)
	}
	if err := ctx.Err(); err != nil {
		return 0, "", fmt.Errorf("nntp: %s: %w", shown, err)
	}
	c.trace.Sent(line)
	if err := c.w.PrintfLine("%s", line); err != nil {
		return 0, "", c.ioErr(ctx.Err(), shown, err)
	}
	code, msg, err := c.readReply(ctx, shown)
	if err != nil {
		return 0, "", err
	}
	if !codeMatches(code, expect) {
		return code, msg, refusal(shown, code, msg)
	}
	return code, msg, nil
}

func codeMatches(code, expect int) bool {
	switch {
	case expect <= 0:
		return true
	case expect < 10:
		return code/100 == expect
	case expect < 100:
		return code/10 == expect
	}
	return code == expect
}

func refusal(shown string, code int, msg string) error {
	kind := kindOf(code)
	if (shown == "greeting" || strings.HasPrefix(shown, "AUTHINFO")) && code >= 400 && tooManyText(msg) {
		// A connection refused for the number of connections (a
		// server's limit per host, a provider's per account): the
		// server is busy, not refusing this user for good.
		kind = proto.ErrBusy
	}
	return &ReplyError{Cmd: shown, Reply: &textproto.Error{Code: code, Msg: msg}, Kind: kind}
}

// tooManyText reports whether a reply's text says the server has too many
// connections.
func tooManyText(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "too many") || strings.Contains(m, "maximum number of") || strings.Contains(m, "connection limit")
}

// readReply reads one status line: three digits, then a space and text or
// the end of the line (RFC 3977 section 3.1).
func (c *client) readReply(ctx context.Context, op string) (int, string, error) {
	line, err := c.lines.ReadLine()
	if err != nil {
		return 0, "", c.ioErr(ctx.Err(), op, err)
	}
	c.trace.Received(string(line), len(line))
	code, msg, ok := lineproto.ParseStatus(line)
	if !ok || code < 100 || code > 599 {
		return 0, "", &proto.ProtocolError{Proto: "nntp", Msg: fmt.Sprintf("%s: malformed reply %s", op, quoteShort(line))}
	}
	return code, msg, nil
}

// quoteShort quotes at most 80 bytes of b for an error message.
func quoteShort(b []byte) string {
	if len(b) > 80 {
		return strconv.Quote(string(b[:80])) + "..."
	}
	return strconv.Quote(string(b))
}

// ioErr describes a failure to read or write during op: a cancelled
// context (cerr, the context's Err), an over-long line (a *proto.ProtocolError), or a lost
// connection (wrapping the net error or io.ErrUnexpectedEOF, so the caller
// sees a network failure and not a refusal).
func (c *client) ioErr(cerr error, op string, err error) error {
	if cerr != nil {
		return fmt.Errorf("nntp: %s: %w", op, cerr)
	}
	var pe *proto.ProtocolError
	var tl *lineproto.TooLongError
	switch {
	case errors.As(err, &tl):
		return &proto.ProtocolError{Proto: "nntp", Msg: fmt.Sprintf("%s: %v", op, tl)}
	case errors.As(err, &pe):
		return err
	}
	return fmt.Errorf("nntp: %s: connection lost: %w", op, err)
}

// readBlock reads a multi-line data block (RFC 3977 section 3.1.1) and
// calls fn with each line, dot-unstuffed, without its line end; the slice
// is valid only during the call. It stops at the terminating "." line, or
// with a *proto.ProtocolError after maxLines lines or maxBytes bytes, so an
// endless reply cannot exhaust memory.
func (c *client) readBlock(ctx context.Context, op string, maxLines int, maxBytes int64, fn func(line []byte) error) error {
	lines, total := 0, int64(0)
	for {
		line, end, err := c.lines.ReadBlockLine()
		if err != nil {
			return c.ioErr(ctx.Err(), op, err)
		}
		if end {
			return nil
		}
		lines++
		total += int64(len(line)) + 1
		if maxLines > 0 && lines > maxLines {
			return &proto.ProtocolError{Proto: "nntp", Msg: fmt.Sprintf("%s: reply has more than %d lines", op, maxLines)}
		}
		if maxBytes > 0 && total > maxBytes {
			return &proto.ProtocolError{Proto: "nntp", Msg: fmt.Sprintf("%s: reply longer than %d bytes", op, maxBytes)}
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// modeReader sends MODE READER (RFC 3977 section 5.3). Any reply is
// accepted: servers that are readers only, or that do not know the
// command, answer 5xx and carry on.
func (c *client) modeReader(ctx context.Context) error {
	_, _, err := c.cmd(ctx, 0, "MODE READER")
	return err
}

// credentials are a user name and, when known, a password for AUTHINFO.
type credentials struct {
	user     string
	pass     string
	havePass bool
}

// login authenticates with AUTHINFO USER/PASS (RFC 4643 section 2.3). The
// password is never traced or put in an error: the trace shows
// "AUTHINFO PASS ****" and hides the password in what the server sends.
// When the server wants a password that is not known, prompt asks for it;
// a nil prompt makes that an error wrapping proto.ErrLogin. A server that does not know AUTHINFO (500) is used
// without authentication.
func (c *client) login(ctx context.Context, cr *credentials, prompt proto.Prompter, host string) error {
	userCmd := "AUTHINFO USER " + cr.user
	code, msg, err := c.cmd(ctx, 0, "%s", userCmd)
	if err != nil {
		return err
	}
	switch code {
	case StatusAuthAccepted, StatusUnknownCommand:
		return nil
	case StatusPasswordRequired:
	default:
		return refusal(userCmd, code, msg)
	}
	pass, have := cr.pass, cr.havePass
	if !have {
		if prompt == nil {
			return fmt.Errorf("nntp: server wants a password for user %q: put it in the URL or .netrc: %w", cr.user, proto.ErrLogin)
		}
		p, err := prompt.Ask(ctx, fmt.Sprintf("NNTP password for %s@%s: ", cr.user, host), false)
		if err != nil {
			return fmt.Errorf("nntp: asking for the password: %w", err)
		}
		pass = p
	}
	c.trace.Secret = pass
	_, _, err = c.cmd(ctx, StatusAuthAccepted, "%s", "AUTHINFO PASS "+pass)
	return err
}

// capabilities asks CAPABILITIES once (RFC 3977 section 5.2) and returns
// the labels with their arguments, upper-cased labels as keys. A server that
// does not know the command (5xx) gives nil.
func (c *client) capabilities(ctx context.Context) (map[string][]string, error) {
	if c.capsAsked {
		return c.caps, nil
	}
	c.capsAsked = true
	_, _, err := c.cmd(ctx, StatusCapabilities, "CAPABILITIES")
	var re *ReplyError
	if errors.As(err, &re) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	caps := map[string][]string{}
	err = c.readBlock(ctx, "CAPABILITIES", 1000, 64<<10, func(line []byte) error {
		f := strings.Fields(string(line))
		if len(f) > 0 {
			caps[strings.ToUpper(f[0])] = f[1:]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.caps = caps
	return caps, nil
}

// quit says goodbye (RFC 3977 section 5.4) without waiting for the reply,
// and closes the connection. A close error of a connection the context
// already closed is not reported.
func (c *client) quit() error {
	c.trace.Sent("QUIT")
	werr := c.w.PrintfLine("QUIT")
	cerr := c.close()
	if cerr != nil {
		return cerr
	}
	if werr != nil && !errors.Is(werr, net.ErrClosed) {
		return fmt.Errorf("nntp: QUIT: %w", werr)
	}
	return nil
}

// close closes the connection without a QUIT (after an error, or when a
// body was not read to its end and the conversation is out of step).
func (c *client) close() error {
	err := c.nc.Close()
	if err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("nntp: close: %w", err)
	}
	return nil
}
