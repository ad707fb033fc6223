package ftp

import (
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// dirList runs the listing command of one directory on c, through the
// active, pipelined or plain path, and keeps its completion reply.
type dirList struct {
	d *Driver
	c *conn
	// own sends the command in active or pipelined passive mode even
	// when the Driver does not pipeline. Without EPSV it fails with
	// errNoPipeline.
	own    bool
	verb   string // LIST, MLSD or NLST
	arg    string // the command's argument; "" for none
	format string // formatLIST, formatMLSD or formatNLST: how to parse it
	cap    int64  // the most bytes of the listing read (Driver.listingCap)
	// st, when set, takes the listing's lines as they arrive and hands
	// their entries over (Driver.List); nil keeps the listing whole.
	st *stream

	end     *textproto.Error // the last line of the completion reply
	endText string           // its whole text
}

// text is a listing as read, in chunks that each end with a line's end
// (but the last): the entries' names share their memory, so that a
// listing is held once.
type text []string

// len is the listing's size.
func (t text) len() int {
	n := 0
	for _, s := range t {
		n += len(s)
	}
	return n
}

// String is the listing in one string, a copy.
func (t text) String() string { return strings.Join(t, "") }

// endsLine reports whether the listing is empty or ends with a line end.
func (t text) endsLine() bool {
	if len(t) == 0 {
		return true
	}
	last := t[len(t)-1]
	return last == "" || last[len(last)-1] == '\n'
}

// reader reads the listing.
func (t text) reader() io.Reader {
	rs := make([]io.Reader, len(t))
	for i, s := range t {
		rs[i] = strings.NewReader(s)
	}
	return io.MultiReader(rs...)
}

// listed is a listing's bytes and what they hold (parseChunks).
// A listing read by a stream keeps neither its bytes nor its entries.
type listed struct {
	text     text
	entries  []proto.Entry
	n        int // the entries listed
	unparsed []string
	self     bool // an entry "." or ".." was listed
}

// capture is what records the listing: its stream, when it has one.
func (l *dirList) capture() *capture {
	c := &capture{max: l.cap}
	if l.st != nil {
		c.sink = l.st.line
	}
	return c
}

// once sends the command and reads its data and completion reply.
func (l *dirList) once() (text, error) {
	c := l.c
	c.cap = l.capture()
	err := errNoPipeline
	if sp := c.activePort(); sp != nil {
		err = c.plainList(sp, l.verb, l.arg)
	} else if (l.d.PipelinePassive || l.own) && !c.noPipeline {
		err = c.pipelinedList(l.verb, l.arg)
	}
	switch {
	case !errors.Is(err, errNoPipeline), l.own:
	default:
		err = c.plainList(nil, l.verb, l.arg)
	}
	raw := c.cap.text()
	c.cap = nil
	l.end, l.endText = c.w.last, c.w.lastText
	return raw, err
}

// run lists (whole) and parses what came.
func (l *dirList) run() (listed, error) {
	if l.st != nil {
		l.st.begin(l.format, l.c.syst, l.c.req.Options.FTP.Lean, time.Now())
	}
	raw, err := l.whole()
	if err != nil {
		return listed{}, err
	}
	if l.st != nil {
		return l.st.finish(raw.String())
	}
	return l.parse(raw), nil
}

// whole lists, asking again when the data ends in the middle of a line:
// a data connection cut on the way (the server still says 226), whose
// last line may even parse as a shorter name, or a server that ends its
// last line with nothing. The same bytes twice are the listing; a second
// answer that ends with its line end replaces the first; two different
// cut answers are io.ErrUnexpectedEOF.
func (l *dirList) whole() (text, error) {
	raw, err := l.once()
	if err == nil && !raw.endsLine() {
		l.c.w.note("the %s data ended in the middle of a line (%d bytes): asking again", l.verb, raw.len())
		if l.st != nil {
			return l.again(raw)
		}
		return l.replace(raw)
	}
	return raw, err
}

// replace is whole's second answer, for a listing held whole.
func (l *dirList) replace(raw text) (text, error) {
	again, err := l.once()
	switch {
	case err != nil:
		return raw, err
	case again.len() > 0 && again.endsLine() || again.len() == raw.len() && again.String() == raw.String():
		return again, nil
	}
	return raw, &CommandError{Cmd: l.verb, Err: fmt.Errorf("listing cut short: its data ended in the middle of a line twice, after %d and %d bytes: %w", raw.len(), again.len(), io.ErrUnexpectedEOF)}
}

// again is whole's second answer for a listing read by a stream, whose
// entries were handed over: it must begin with the first's whole lines
// (rest is the first's last line, without its end), and only what it
// adds is read. It returns the listing's last line without an end (rest,
// when the answers are the same bytes), or none.
func (l *dirList) again(rest text) (text, error) {
	l.st.reread()
	again, err := l.once()
	switch {
	case err != nil:
		return nil, err
	case l.st.comparing():
		return nil, &CommandError{Cmd: l.verb, Err: fmt.Errorf("listing cut short: its data ended in the middle of a line, and asked again it began otherwise: %w", io.ErrUnexpectedEOF)}
	case again.endsLine():
		return nil, nil
	case again.String() == rest.String() && l.st.bytes == l.st.compareFrom:
		return rest, nil
	}
	return nil, &CommandError{Cmd: l.verb, Err: fmt.Errorf("listing cut short: its data ended in the middle of a line twice, after %d and %d bytes: %w", l.st.compareFrom+int64(rest.len()), l.st.bytes+int64(again.len()), io.ErrUnexpectedEOF)}
}

func (l *dirList) parse(t text) listed {
	p := newLineParser(l.format, l.c.syst, time.Now())
	p.lean = l.format != formatNLST && l.c.req != nil && l.c.req.Options.FTP.Lean
	e, u, self := p.parseChunks(t, l.format)
	return listed{text: t, entries: e, n: len(e), unparsed: u, self: self}
}

// unreadable returns the failure of a listing of a directory the server
// could not read (unreadable.go), or nil.
func (l *dirList) unreadable(got listed) error {
	if l.end == nil {
		return nil
	}
	said, where := l.endText, ""
	switch {
	case l.format == formatLIST && deniedLines(got):
		said, where = got.unparsed[0], "its listing says "
	case !unreadableReply(l.endText):
		return nil
	}
	l.c.w.note("the server could not read the directory: %q", said)
	cmd, _, _ := listCmd(l.verb, l.arg) // the argument was sent: it passed
	return &CommandError{Cmd: cmd, Kind: proto.ErrPermission,
		Err: fmt.Errorf("the server could not read the directory, though it answered %d: %s%s", l.end.Code, where, strconv.Quote(termtext.Escape(said, traceMax)))}
}

// listLIST sends LIST with arg on c, even where it lists with MLSD, as
// dirList.whole does, and returns the listing's bytes. It fails with
// errNoPipeline, sending nothing, on a passive connection whose server
// refused EPSV.
func (d *Driver) listLIST(c *conn, arg string) ([]byte, error) {
	l := &dirList{d: d, c: c, verb: "LIST", arg: arg, format: formatLIST, own: true, cap: d.listingCap(c)}
	raw, err := l.whole() // the callers read the lines their own way
	return []byte(raw.String()), err
}

// targets asks for the targets of the links of got that have none
// (linkTargets) and hands a stream's over, which it held for them.
func (l *dirList) targets(path string, got listed) error {
	links := got.entries
	if l.st != nil {
		links = l.st.waiting
	}
	if err := l.linkTargets(path, links); err != nil {
		return l.c.fail("", err)
	}
	if l.st != nil {
		return l.st.release()
	}
	return nil
}

// maxLinkLookups bounds the symbolic links of one listing whose targets
// are asked for one by one (linkTargets).
const maxLinkLookups = 100

// linkTargets asks for the targets of the symbolic links that an MLSD
// listing gave without one. RFC 3659 has no fact for a link's target, and
// ProFTPD says only "type=OS.unix=symlink"; but "LIST -d NAME" on a Unix
// server lists the link itself, "NAME -> TARGET". Only in the directory
// the connection is in (path is ""), at most maxLinkLookups links; one
// whose target is not found stays without (the mirror skips it, and says
// so). err is a failed connection.
func (l *dirList) linkTargets(path string, entries []proto.Entry) error {
	c := l.c
	if path != "" || l.format != formatMLSD {
		return nil
	}
	asked := 0
	for i := range entries {
		e := &entries[i]
		if asked == maxLinkLookups || !linkToAsk(e) {
			continue
		}
		if asked == 0 {
			if err := c.askSYST(); err != nil {
				return err
			}
			if !unixSystem(c.syst) {
				return nil
			}
		}
		asked++
		if done, err := l.askLinkTarget(e); done {
			return err
		}
	}
	if asked > 0 {
		c.w.note("asked LIST -d for %d symbolic links that MLSD gave without a target", asked)
	}
	return nil
}

// linkToAsk reports whether e is a link without a target whose name can
// be sent to LIST -d as it is: no option, no glob character, no CR or LF.
func linkToAsk(e *proto.Entry) bool {
	return e.Type == proto.EntryLink && e.Target == "" &&
		!strings.HasPrefix(e.Name, "-") && !strings.ContainsAny(e.Name, "*?[\\") && proto.CheckArg(e.Name) == nil
}

// askLinkTarget sets the target of the link e from LIST -d. done: LIST -d
// failed, ask no more; err is a failed connection.
func (l *dirList) askLinkTarget(e *proto.Entry) (done bool, err error) {
	c := l.c
	if err := c.checkIAC(e.Name); err != nil {
		return true, err
	}
	raw, err := l.d.listLIST(c, optArg("d", e.Name))
	if err != nil {
		if keepConnErr(err) != nil && !errors.Is(err, errNoPipeline) {
			return true, err
		}
		return true, nil
	}
	found, _ := parseListing(raw, formatLIST, c.syst, time.Now())
	for _, f := range found {
		if f.Name == e.Name && f.Type == proto.EntryLink && f.Target != "" {
			e.Target = f.Target
		}
	}
	return false, nil
}
