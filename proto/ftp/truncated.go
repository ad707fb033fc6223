package ftp

import (
	"bytes"
	"fmt"
	"net/textproto"
	"slices"
	"strings"
	"time"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// Listings cut short by the server
//
// Some servers list no more than a set number of entries and end the
// listing with 226 all the same: Pure-FTPd (-L / LimitRecursion, 10,000
// files by default in Debian's build) sends the first entries its limit
// allows, for LIST, MLSD and NLST alike, and says so only in the text of
// its completion reply, "226 Output truncated to 10000 matches" (after
// "226-Options: -a -l" for LIST). The bytes of such a listing are whole
// lines: nothing else shows that the directory holds more, and a mirror
// that believed it would copy part of the directory and report success.
//
// A completion reply whose text says "truncated" marks the listing: the
// driver asks for its other end (bothEnds), and when that does not make
// it whole, Response.Listing.Truncated holds the reply. ProFTPD's
// "ListOptions maxfiles" cuts LIST with a plain "226 Transfer complete",
// which no client can tell from the end of the directory.

// truncatedReply reports whether end, the completion reply of a listing
// command, says the server cut the listing short.
func truncatedReply(end *textproto.Error) bool {
	return end != nil && end.Code/100 == 2 && strings.Contains(strings.ToLower(end.Msg), "truncated")
}

// Pure-FTPd sorts a listing by name before it cuts it: "LIST -a" gives the
// first N names of the directory in its order, "LIST -ar" the last N, from
// the end. When the two meet (the directory holds fewer than 2N entries)
// their union is the whole directory, and that can be checked: the first
// name of the reversed listing that the forward one holds must be the
// forward one's last, and from there on the two must run through the same
// names in opposite directions. A server that ignored -r, or listed the
// two in different orders, or one whose directory changed in between,
// fails the check, and the listing stays marked as cut.

// bothEnds completes a listing that the server cut short with its other
// end (ends) and returns the whole listing in LIST layout; ok is false
// when the two ends do not meet or cannot be had. err is a failed
// connection.
func (d *Driver) bothEnds(c *conn, path string, fwd []byte, listed bool) (whole []byte, ok bool, err error) {
	e, ok, err := d.ends(c, path, fwd, listed)
	if err != nil || !ok {
		return nil, false, err
	}
	whole = bytes.Clone(e.fwd)
	if len(whole) > 0 && whole[len(whole)-1] != '\n' {
		whole = append(whole, "\r\n"...)
	}
	return append(whole, e.added()...), true, nil
}

// cutEnds is a cut listing's two ends (ends).
type cutEnds struct {
	fwd    []byte   // the first entries, as listed
	rLines []string // the last lines, from the end
	extra  int      // how many of rLines fwd lacks (joinEnds)
}

// added is the lines of the end that fwd lacks, in the listing's order.
func (e cutEnds) added() []byte {
	var b []byte
	for k := e.extra - 1; k >= 0; k-- {
		b = append(b, e.rLines[k]...)
		b = append(b, "\r\n"...)
	}
	return b
}

// ends asks for the ends of a cut listing, LIST and LIST -r (with -a
// when ListAll asks for every name, and path, the directory's for
// MethodNoCWD, after the options), and checks that they meet. fwd is the
// cut listing when it came from LIST with the same options (listed);
// else LIST is asked too. An end whose data stops in the middle of a line
// is asked again (listLIST); one still cut fails the check, since the
// short line is in the part they share.
func (d *Driver) ends(c *conn, path string, fwd []byte, listed bool) (e cutEnds, ok bool, err error) {
	if err := c.askSYST(); err != nil {
		return e, false, err
	}
	if !unixSystem(c.syst) || c.activePort() == nil && c.noPipeline {
		return e, false, nil
	}
	flags := ""
	if c.req.Options.FTP.ListAll {
		flags = "a"
	}
	list := func(flags string) ([]byte, error) { return d.listLIST(c, optArg(flags, path)) }
	if !listed {
		if fwd, err = list(flags); err != nil {
			return e, false, keepConnErr(err)
		}
	}
	rev, err := list(flags + "r")
	if err != nil {
		return e, false, keepConnErr(err)
	}
	e.fwd = fwd
	fNames, _ := listedNames(fwd, c.syst)
	rNames, rLines := listedNames(rev, c.syst)
	e.rLines = rLines
	if e.extra, ok = joinEnds(fNames, rNames); !ok {
		c.w.note("LIST -%sr did not meet the cut listing: the directory holds more than the server lists", flags)
		return e, false, nil
	}
	c.w.note("the cut listing and LIST -%sr meet: %d names from the end added, the listing is whole", flags, e.extra)
	return e, true, nil
}

// keepConnErr returns err when it is the connection's failure, and nil
// when it is the server's refusal of the command: a refusal of a listing
// with options leaves the cut listing as it was.
func keepConnErr(err error) error {
	if replyCode(err) != 0 {
		return nil
	}
	return err
}

// listedNames returns the name of each entry line of a LIST listing, in
// order, "." and ".." included, with the line itself; a line that fits no
// layout stands for itself.
func listedNames(raw []byte, syst string) (names, lines []string) {
	p := newLineParser(formatLIST, syst, time.Now())
	for _, r := range p.parseRows(splitRows(text{string(raw)}), nil).lines {
		if r.skip {
			continue
		}
		name := r.line
		if r.e != nil {
			name = r.e.Name
		}
		names = append(names, name)
		lines = append(lines, r.line)
	}
	return names, lines
}

// joinEnds checks that fwd, the first names of a listing in the server's
// order, and rev, its last names from the end, meet (see above). extra is
// the number of names at the start of rev that fwd lacks.
func joinEnds(fwd, rev []string) (extra int, ok bool) {
	if len(fwd) == 0 || len(rev) == 0 {
		return 0, false
	}
	last := fwd[len(fwd)-1]
	j0 := slices.Index(rev, last)
	if j0 < 0 {
		return 0, false
	}
	have := make(map[string]bool, len(fwd))
	for _, n := range fwd {
		have[n] = true
	}
	for _, n := range rev[:j0] {
		if have[n] {
			return 0, false // a name of fwd before the meeting point
		}
	}
	for k := 0; j0+k < len(rev) && len(fwd)-1-k >= 0; k++ {
		if rev[j0+k] != fwd[len(fwd)-1-k] {
			return 0, false
		}
	}
	return j0, true
}

// complete handles got when its completion reply says the server cut it
// short: a LIST or MLSD listing is made whole from its other end (union),
// and is then in LIST layout (l.format). It returns the listing and the
// reply for Listing.Truncated while it stays cut. err is a failed
// connection.
func (l *dirList) complete(path string, got listed) (listed, string, error) {
	if !truncatedReply(l.end) {
		return got, "", nil
	}
	c := l.c
	cut := termtext.Escape(fmt.Sprintf("%d %s", l.end.Code, l.end.Msg), traceMax)
	c.w.note("the server cut the listing short: %s", cut)
	if l.format == formatNLST {
		return got, cut, nil
	}
	return l.union(path, got, cut)
}

// union makes got, a LIST or MLSD listing cut short (the server said cut
// in its reply), whole from its other end when the two meet (bothEnds).
func (l *dirList) union(path string, got listed, cut string) (listed, string, error) {
	c := l.c
	if l.st != nil {
		return l.completeStream(path, got, cut)
	}
	// The cut listing serves as the forward half when it came from LIST
	// with the options the reverse one gets.
	fwd := l.format == formatLIST && (l.arg != path) == c.req.Options.FTP.ListAll
	whole, ok, err := l.d.bothEnds(c, path, []byte(got.text.String()), fwd)
	if err != nil || !ok {
		return got, cut, err
	}
	l.format = formatLIST
	return l.parse(text{string(whole)}), "", nil
}

// completeStream is union for a listing read by a stream: when the two
// ends meet and list every name handed over, the entries not handed over
// follow, the whole's unparsed lines replace the cut listing's, and the
// links held for linkTargets get their targets. A listing whose names
// were too many to keep (maxSeen) stays cut.
func (l *dirList) completeStream(path string, got listed, cut string) (listed, string, error) {
	c, st := l.c, l.st
	if st.tooMany {
		c.w.note("the cut listing had more than %d names: it stays cut", maxSeen)
		return got, cut, nil
	}
	e, ok, err := l.d.ends(c, path, nil, false)
	if err != nil || !ok {
		return got, cut, err
	}
	p := newLineParser(formatLIST, c.syst, time.Now())
	p.lean = st.p.lean
	entries, unparsed, _ := p.parseChunks(text{string(e.fwd) + "\r\n" + string(e.added())}, formatLIST)
	whole := make(map[uint64]proto.Entry, len(entries))
	for _, en := range entries {
		whole[st.hash(en.Name)] = en
	}
	slices.Sort(st.seen)
	for _, h := range st.seen {
		if _, ok := whole[h]; !ok {
			c.w.note("the cut listing's ends lack a name it gave: it stays cut")
			return got, cut, nil
		}
	}
	for i, w := range st.waiting {
		if en, ok := whole[st.hash(w.Name)]; ok {
			st.waiting[i] = en
		}
	}
	l.format = formatLIST
	entries = slices.DeleteFunc(entries, func(en proto.Entry) bool { return st.handed(en.Name) })
	for _, en := range entries {
		if err := st.entry(en); err != nil {
			return got, cut, err
		}
	}
	got.n = st.n + len(st.waiting)
	got.unparsed = unparsed
	return got, "", nil
}
