package nntp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/internal/numrange"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// ErrNoOverview is wrapped by Session.Overview when the server refuses
// both OVER and XOVER (unknown command or feature not supported).
var ErrNoOverview = errNoOverview

// maxSkip bounds the bytes of an article Session.Articles reads and
// discards after its callback returns.
const maxSkip = 1 << 20

// DefaultPipeline is how many commands Session.Articles (ARTICLE) and
// Session.StatEach (STAT) keep ahead of the replies they have read when
// Driver.Pipeline is zero.
const DefaultPipeline = 64

// MaxPipeline bounds Driver.Pipeline. The commands in flight are written
// before any reply is read; at most 256 of them (under 8 KiB) fit in the
// socket buffers between client and server, so the client's write never
// waits for a server that is itself waiting for the client to read its
// replies (a deadlock until the idle timeout).
const MaxPipeline = 256

// Session is one connection to a news server, greeted, in reader mode and
// authenticated, for a program that asks for many things in turn (a
// mirror). It is not safe for concurrent use; each goroutine opens its
// own. The caller must Close it.
type Session struct {
	d *Driver
	c *client
	t *target
	// broken is set when the conversation is out of step (an error in the
	// middle of a reply): the session can then only be closed.
	broken error
}

// GroupInfo is the reply to GROUP: the server's estimate of the count,
// and the low and high water marks (RFC 3977 section 6.1.1).
type GroupInfo struct {
	Count, Low, High int64
}

// OverviewLine is the part of an overview line a mirror needs.
type OverviewLine struct {
	Number    int64
	MessageID string
	Bytes     int64 // -1 when unknown
}

// ActiveGroup is one line of LIST ACTIVE (RFC 3977 section 7.6.3).
type ActiveGroup struct {
	Name      string
	High, Low int64
	Status    string
}

// Open connects to the server of u (nntp://host:port/..., or a news: URL
// with Options.NNTP.Server), with the credentials of the URL or the
// .netrc file named by Options.Netrc. The group or article u names is
// not selected.
func (d *Driver) Open(ctx context.Context, u *uri.URL, req *proto.Request) (*Session, error) {
	t, err := d.resolve(u, req)
	if err != nil {
		return nil, err
	}
	c, err := d.connect(ctx, t, req)
	if err != nil {
		return nil, err
	}
	return &Session{d: d, c: c, t: t}, nil
}

// Server is host[:port] of the session's server as it appears in an nntp
// URL (the port elided when it is 119).
func (s *Session) Server() string { return s.t.urlHost }

func (s *Session) usable() error {
	if s.broken != nil {
		return fmt.Errorf("nntp: session unusable after an earlier error: %w", s.broken)
	}
	return nil
}

// fail marks the session out of step when err is not a plain refusal.
func (s *Session) fail(err error) error {
	var re *ReplyError
	if err != nil && !errors.As(err, &re) {
		s.broken = err
	}
	return err
}

// Group selects a group (RFC 3977 section 6.1.1). An unknown group is a
// *ReplyError wrapping proto.ErrNotFound.
func (s *Session) Group(ctx context.Context, name string) (GroupInfo, error) {
	if err := s.usable(); err != nil {
		return GroupInfo{}, err
	}
	if err := checkWord("group", name); err != nil {
		return GroupInfo{}, err
	}
	op := "GROUP " + name
	_, msg, err := s.c.cmd(ctx, StatusGroupSelected, "%s", op)
	if err != nil {
		return GroupInfo{}, s.fail(err)
	}
	g, err := parseGroupReply(msg)
	if err != nil {
		return GroupInfo{}, &proto.ProtocolError{Proto: "nntp", Msg: op + ": " + err.Error()}
	}
	return g, nil
}

// Overview returns the numbers and message-ids of the articles first to
// last of the selected group: OVER, else XOVER (see Driver.Fetch). It
// returns an error wrapping ErrNoOverview when the server has neither, and
// no lines (no error) for a range without articles: OVER's 423 (RFC 3977
// section 8.3.2, as INN answers), XOVER's 420 (RFC 2980 section 2.8), or
// an empty list. Malformed lines are skipped.
func (s *Session) Overview(ctx context.Context, first, last int64) ([]OverviewLine, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if first < 1 || last < first {
		return nil, nil
	}
	var out []OverviewLine
	_, err := s.c.overview(ctx, first, last, orDefault(s.d.MaxListBytes, DefaultMaxListBytes), func(line []byte) error {
		ov, err := parseOverview(string(line))
		if err == nil && ov.Number >= first && ov.Number <= last {
			// A copy: the message-id alone, not the line it was cut
			// from, stays in memory while a mirror keeps the overview
			// of a big group.
			out = append(out, OverviewLine{Number: ov.Number, MessageID: strings.Clone(ov.MessageID), Bytes: ov.Bytes})
		}
		return nil
	})
	switch {
	case errors.Is(err, errNoOverview):
		return nil, err
	case err != nil:
		return nil, s.fail(err)
	}
	return out, nil
}

// ErrNoListGroup is wrapped by Session.ArticleNumbers when LISTGROUP
// cannot list the range asked for (see there); the caller then asks STAT
// for each number. It is the Kind of the *ReplyError of a refused
// LISTGROUP, and so, as proto's sentinels, has no package prefix.
var ErrNoListGroup = errors.New("no usable LISTGROUP")

// listGroupChunk is the most article numbers ArticleNumbers asks for in
// one LISTGROUP with a range; the reply is at most as many lines (a
// variable for the tests).
var listGroupChunk int64 = 100000

// errRangeRefused ends ArticleNumbers' walk at a 501 to its first range:
// RFC 2980's LISTGROUP, which takes none. It never leaves ArticleNumbers.
var errRangeRefused = errors.New("nntp: LISTGROUP range refused")

// ArticleNumbers lists the numbers of the articles first to last of group
// (RFC 3977 section 6.1.2: LISTGROUP group lo-hi), in ranges of 100,000
// numbers, each reply bounded to as many lines and to Driver.MaxListBytes
// bytes; it selects the group as GROUP does.
//
// A server of RFC 2980's LISTGROUP, which takes no range (a 501 to the
// first), is asked for the whole group, and the numbers outside the range
// are left out. That list is not bounded by the range: ArticleNumbers
// first sends GROUP, and when the count it gives (at least the number of
// articles, RFC 3977 section 6.1.1.2) could make the list longer than
// Driver.MaxListBytes it asks nothing more and returns an error wrapping
// ErrNoListGroup, the group selected: the caller STATs the numbers, where
// a list over the limit would have broken the session and failed the
// group on every attempt. A server without LISTGROUP (500, 503), or one
// that refuses both forms with 501, gives the *ReplyError of the refused
// command, wrapping ErrNoListGroup too; the session stays usable, the
// selected group unchanged.
//
// A line that is not a number, or more lines than a range holds, is a
// *proto.ProtocolError and the session can only be closed.
func (s *Session) ArticleNumbers(ctx context.Context, group string, first, last int64) ([]int64, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if err := checkWord("group", group); err != nil {
		return nil, err
	}
	first = max(first, 1)
	if last < first {
		return nil, nil
	}
	var nums []int64
	var cmdErr error // the error of a range's command; nil: ctx ended the walk
	err := numrange.Chunks(ctx, first, last, listGroupChunk, func(lo, hi int64) error {
		nums, cmdErr = s.listRange(ctx, group, lo, hi, lo == first, nums)
		return cmdErr
	})
	switch {
	case errors.Is(err, errRangeRefused):
		if nums, err = s.wholeGroup(ctx, group, first, last); err != nil {
			return nil, err
		}
	case err != nil && cmdErr == nil:
		return nil, fmt.Errorf("nntp: LISTGROUP %s: %w", group, err)
	case err != nil:
		return nil, err
	}
	slices.Sort(nums)
	return slices.Compact(nums), nil
}

// listRange appends to nums the numbers of group's articles lo to hi
// (LISTGROUP group lo-hi). A 501 to the first range gives
// errRangeRefused.
func (s *Session) listRange(ctx context.Context, group string, lo, hi int64, firstRange bool, nums []int64) ([]int64, error) {
	op := fmt.Sprintf("LISTGROUP %s %d-%d", group, lo, hi)
	code, _, err := s.c.cmd(ctx, StatusGroupSelected, "%s", op)
	switch {
	case err == nil:
	case code == StatusSyntaxError && firstRange:
		return nums, errRangeRefused
	case code == StatusUnknownCommand || code == StatusNotSupported:
		return nums, noListGroup(err)
	default:
		return nums, s.fail(err)
	}
	return s.readNumbers(ctx, op, int(min(hi-lo+1, 1<<30)), lo, hi, nums)
}

// wholeGroup lists the numbers first to last of group, unsorted, with RFC
// 2980's LISTGROUP, which lists the whole group, when the GROUP reply's
// count says the list fits Driver.MaxListBytes (see ArticleNumbers).
func (s *Session) wholeGroup(ctx context.Context, group string, first, last int64) ([]int64, error) {
	g, err := s.Group(ctx, group)
	if err != nil {
		return nil, err
	}
	maxBytes := orDefault(s.d.MaxListBytes, DefaultMaxListBytes)
	perLine := int64(len(strconv.FormatInt(g.High, 10)) + 1) // a number, a line end
	if g.Count > maxBytes/perLine {
		return nil, fmt.Errorf("nntp: LISTGROUP %s: the list of %d articles could outgrow the %d-byte limit on a list: %w", group, g.Count, maxBytes, ErrNoListGroup)
	}
	op := "LISTGROUP " + group
	code, _, err := s.c.cmd(ctx, StatusGroupSelected, "%s", op)
	switch {
	case err == nil:
	case code == StatusSyntaxError || code == StatusUnknownCommand || code == StatusNotSupported:
		return nil, noListGroup(err)
	default:
		return nil, s.fail(err)
	}
	return s.readNumbers(ctx, op, 1<<30, first, last, nil)
}

// readNumbers reads the list that follows a 211 reply to op, a LISTGROUP
// (at most maxLines lines and Driver.MaxListBytes bytes), and appends to
// nums the numbers from lo to hi. A malformed line, or a list over a
// bound, breaks the session.
func (s *Session) readNumbers(ctx context.Context, op string, maxLines int, lo, hi int64, nums []int64) ([]int64, error) {
	err := s.c.readBlock(ctx, op, maxLines, orDefault(s.d.MaxListBytes, DefaultMaxListBytes), func(line []byte) error {
		n, err := parseListGroupLine(string(line))
		if err != nil {
			return &proto.ProtocolError{Proto: "nntp", Msg: op + ": " + err.Error()}
		}
		if n >= lo && n <= hi {
			nums = append(nums, n)
		}
		return nil
	})
	if err != nil {
		return nil, s.fail(err)
	}
	return nums, nil
}

// noListGroup makes the refusal of a LISTGROUP command (a *ReplyError)
// wrap ErrNoListGroup, the server's reply kept.
func noListGroup(err error) error {
	var re *ReplyError
	if !errors.As(err, &re) {
		return err
	}
	return &ReplyError{Cmd: re.Cmd, Reply: re.Reply, Kind: ErrNoListGroup}
}

// StatEach asks STAT for each of nums in the selected group, keeping up
// to Driver.Pipeline commands ahead of the replies (RFC 3977 section 3.5
// allows pipelining), and calls fn in order with each number, its
// message-id, and whether the server has it (423 and 420 are not found).
// A 223 reply that names another number than the one asked for is a
// *proto.ProtocolError (replies out of step); another reply is a
// *ReplyError. Such an error, or one from fn, stops the loop and is
// returned; the session is then out of step (commands are in flight) and
// can only be closed.
func (s *Session) StatEach(ctx context.Context, nums []int64, fn func(n int64, id string, found bool) error) error {
	return s.pipelined(ctx, "STAT", nums, func(n int64, op string, code int, msg string) error {
		var id string
		found := code == StatusArticleExists
		switch {
		case found:
			var err error
			if id, err = replyFor(op, n, msg); err != nil {
				return err
			}
		case code == StatusNoSuchNumber || code == StatusNoCurrentArticle:
		default:
			return refusal(op, code, msg)
		}
		return fn(n, id, found)
	})
}

// pipelined sends "verb n" for each of nums, keeping up to
// Driver.Pipeline commands ahead of the replies (RFC 3977 section 3.5
// allows pipelining), and calls reply in order with each number, its
// command and the status line of its reply. An error stops the loop, is
// returned, and leaves the session out of step.
func (s *Session) pipelined(ctx context.Context, verb string, nums []int64, reply func(n int64, op string, code int, msg string) error) error {
	if err := s.usable(); err != nil {
		return err
	}
	depth := s.d.pipeline()
	sent, done := 0, 0
	for done < len(nums) {
		if err := ctx.Err(); err != nil {
			s.broken = err
			return fmt.Errorf("nntp: %s: %w", verb, err)
		}
		if sent-done <= depth/2 {
			var err error
			if sent, err = s.sendAhead(ctx, verb, nums, sent, done, depth); err != nil {
				return err
			}
		}
		n := nums[done]
		op := verb + " " + strconv.FormatInt(n, 10)
		code, msg, err := s.c.readReply(ctx, op)
		if err != nil {
			return s.fail(err)
		}
		done++
		if err := reply(n, op, code, msg); err != nil {
			s.broken = err
			return err
		}
	}
	return nil
}

// sendAhead writes "VERB n" for the numbers of nums from sent on while
// fewer than depth are unanswered (done answered), flushes them, and
// returns how many are sent in all. Each line passes the wire check of
// every command (proto.CheckArg), as client.send's do.
func (s *Session) sendAhead(ctx context.Context, verb string, nums []int64, sent, done, depth int) (int, error) {
	for sent < len(nums) && sent-done < depth {
		line := verb + " " + strconv.FormatInt(nums[sent], 10)
		if err := proto.CheckArg(line); err != nil {
			return sent, s.fail(fmt.Errorf("nntp: %s: %w", verb, err))
		}
		s.c.trace.Sent(line)
		if _, err := s.c.w.W.WriteString(line + "\r\n"); err != nil {
			return sent, s.fail(s.c.ioErr(ctx.Err(), line, err))
		}
		sent++
	}
	if err := s.c.w.W.Flush(); err != nil {
		return sent, s.fail(s.c.ioErr(ctx.Err(), verb, err))
	}
	return sent, nil
}

// Stat asks whether article n of the selected group exists (RFC 3977
// section 6.2.4) and gives its message-id; found is false for 423. A
// reply that names another number is a *proto.ProtocolError.
func (s *Session) Stat(ctx context.Context, n int64) (id string, found bool, err error) {
	if err := s.usable(); err != nil {
		return "", false, err
	}
	code, msg, err := s.c.cmd(ctx, StatusArticleExists, "STAT %d", n)
	switch {
	case err == nil:
	case code == StatusNoSuchNumber || code == StatusNoCurrentArticle:
		return "", false, nil
	default:
		return "", false, s.fail(err)
	}
	if id, err = replyFor(fmt.Sprintf("STAT %d", n), n, msg); err != nil {
		s.broken = err
		return "", false, err
	}
	return id, true, nil
}

// replyFor gives the message-id of the reply msg to op, a command for
// article n: "n <message-id>" (RFC 3977 sections 6.2.1 to 6.2.4). A reply
// that names another article is a *proto.ProtocolError: the server, or a
// proxy, dropped or added a reply, and with commands pipelined every later
// reply belongs to another command; its message-id would be taken for n's
// (and n's file linked to another article's). A reply without a number
// (0) is taken as n's.
func replyFor(op string, n int64, msg string) (string, error) {
	got, id := parseArticleReply(msg)
	if got != 0 && got != n {
		return "", &proto.ProtocolError{Proto: "nntp", Msg: fmt.Sprintf("%s: the reply is for article %d, not %d: replies out of step", op, got, n)}
	}
	return id, nil
}

// Articles retrieves articles nums of the selected group with ARTICLE
// (RFC 3977 section 6.2.1), keeping up to Driver.Pipeline commands in
// flight (RFC 3977 section 3.5 allows pipelining). fn is called in the
// order of nums with each article's number, its message-id from the reply
// and its text, dot-unstuffed with LF line ends, valid during the call
// only; for a number the server no longer has (423), body is nil. A 220
// reply that names another number than the one asked for is a
// *proto.ProtocolError (replies out of step), and fn is not called. Whatever
// fn leaves unread is skipped (up to 1 MiB; more breaks the session). An error from fn stops the loop and is
// returned; the session is then out of step and can only be closed.
func (s *Session) Articles(ctx context.Context, nums []int64, fn func(n int64, id string, body io.Reader) error) error {
	return s.pipelined(ctx, "ARTICLE", nums, func(n int64, op string, code int, msg string) error {
		switch {
		case code == StatusArticleFollows:
		case code == StatusNoSuchNumber || code == StatusNoCurrentArticle:
			return fn(n, "", nil)
		default:
			return refusal(op, code, msg)
		}
		id, err := replyFor(op, n, msg)
		if err != nil {
			return err
		}
		dr := lineproto.NewDotReader(s.c.lines.R, lineproto.Text)
		if err := fn(n, id, &articleBody{r: dr, c: s.c, op: op, ctxErr: ctx.Err}); err != nil {
			return err
		}
		// What fn left unread is skipped, up to maxSkip bytes: an article
		// that goes on beyond that ends the session rather than be read
		// to its end.
		skipped, err := io.CopyN(io.Discard, dr, maxSkip+1)
		switch {
		case err == io.EOF:
		case err != nil:
			return s.c.ioErr(ctx.Err(), op, err)
		case skipped > maxSkip:
			return &proto.ProtocolError{Proto: "nntp", Msg: fmt.Sprintf("%s: more than %d bytes left unread", op, maxSkip)}
		}
		return nil
	})
}

// ListActive lists the groups matching wildmat (RFC 3977 sections 4 and
// 7.6.3: LIST ACTIVE wildmat); an empty wildmat lists every group.
func (s *Session) ListActive(ctx context.Context, wildmat string) ([]ActiveGroup, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	op := "LIST ACTIVE"
	if wildmat != "" {
		if err := checkWord("wildmat", wildmat); err != nil {
			return nil, err
		}
		op += " " + wildmat
	}
	if _, _, err := s.c.cmd(ctx, StatusListFollows, "%s", op); err != nil {
		return nil, s.fail(err)
	}
	var out []ActiveGroup
	err := s.c.readBlock(ctx, op, orDefault(s.d.MaxGroups, DefaultMaxGroups), orDefault(s.d.MaxListBytes, DefaultMaxListBytes), func(line []byte) error {
		if g, err := parseActive(string(line)); err == nil {
			out = append(out, g)
		}
		return nil
	})
	if err != nil {
		return nil, s.fail(err)
	}
	return out, nil
}

// Close says QUIT (when the conversation is in step) and closes the
// connection. It may be called more than once.
func (s *Session) Close() error {
	if s.c == nil {
		return nil
	}
	c := s.c
	s.c = nil
	if s.broken != nil {
		return c.close()
	}
	return c.quit()
}
