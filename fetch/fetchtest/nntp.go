package fetchtest

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/internal/testrig/notify"
)

// NNTP is an in-process news server (RFC 3977 reader commands, RFC 4643
// AUTHINFO USER/PASS, RFC 2980 XOVER): groups of numbered articles, with
// or without an overview, recording every command it receives. Set its
// fields before Start or Listen; change the groups while it runs with Post
// and Expire.
type NNTP struct {
	// Over selects the overview commands served: "OVER" (OVER and XOVER,
	// OVER in CAPABILITIES), "XOVER" (XOVER only) or "" (neither: both
	// answer 500).
	Over string
	// EmptyRange is the reply to OVER or XOVER for a range that holds no
	// article. Zero answers as INN's nnrpd does: 423 to OVER (RFC 3977
	// section 8.3.2) and an empty list (224, then ".") to XOVER. 420
	// answers 420 to both, as RFC 2980's XOVER servers do ("no
	// article(s) selected").
	EmptyRange int
	// ListGroup selects the LISTGROUP served: "" (none: 500), "range"
	// (RFC 3977 section 6.1.2, with a range) or "plain" (RFC 2980's,
	// without one: a range is a 501).
	ListGroup string
	// User and Pass, when User is set, are required with AUTHINFO before
	// any group command (480 otherwise).
	User, Pass string
	// Marks, when it holds a group, is the count, low and high water
	// mark that GROUP, LISTGROUP and LIST ACTIVE give for it instead of
	// its articles' own: a server's estimate (RFC 3977 section 6.1.1.2)
	// or a hostile claim ("211 0 1 1000000000000"). Change it while the
	// server runs with SetMarks.
	Marks map[string][3]int64
	// Stall, when set, makes ARTICLE replies wait until it is closed.
	Stall chan struct{}

	Addr string

	ln     net.Listener
	conns  map[net.Conn]bool
	closed bool
	wg     sync.WaitGroup
	mu     sync.Mutex
	groups map[string]map[int64]string // article texts, LF line ends
	log    []string
	ahead  map[string]int // per verb: see Ahead
	logged notify.Signal  // notified at each command logged
}

// Start listens on 127.0.0.1:0 and serves until the test ends.
func (s *NNTP) Start(t testing.TB) {
	t.Helper()
	if err := s.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
}

// Listen serves on addr (a loopback host:port; port 0 picks a free one)
// until Close, and sets Addr to the address it listens on.
func (s *NNTP) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	s.Addr = ln.Addr().String()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go s.handle(c)
		}
	}()
	return nil
}

// handle serves one connection, known to Close while it is open.
func (s *NNTP) handle(c net.Conn) {
	defer s.wg.Done()
	s.mu.Lock()
	if s.conns == nil {
		s.conns = make(map[net.Conn]bool)
	}
	s.conns[c] = true
	closed := s.closed
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	if closed {
		return
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	s.serve(c)
}

// Close stops accepting, closes the open connections, waits for their
// goroutines to end and returns.
func (s *NNTP) Close() error {
	s.mu.Lock()
	ln := s.ln
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	if ln == nil {
		return nil
	}
	err := ln.Close()
	s.wg.Wait()
	return err
}

// Post adds an article (text with LF line ends) to each group under the
// given numbers: groups[i] gets number nums[i].
func (s *NNTP) Post(text string, groups []string, nums []int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups == nil {
		s.groups = map[string]map[int64]string{}
	}
	for i, g := range groups {
		if s.groups[g] == nil {
			s.groups[g] = map[int64]string{}
		}
		s.groups[g][nums[i]] = text
	}
}

// AddGroup makes an empty group.
func (s *NNTP) AddGroup(g string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.groups == nil {
		s.groups = map[string]map[int64]string{}
	}
	if s.groups[g] == nil {
		s.groups[g] = map[int64]string{}
	}
}

// SetMarks makes GROUP give count, low and high for group g (see Marks);
// ClearMarks gives back its articles' own.
func (s *NNTP) SetMarks(g string, count, low, high int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Marks == nil {
		s.Marks = map[string][3]int64{}
	}
	s.Marks[g] = [3]int64{count, low, high}
}

// ClearMarks undoes SetMarks for group g.
func (s *NNTP) ClearMarks(g string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.Marks, g)
}

// Expire removes article n of group g.
func (s *NNTP) Expire(g string, n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.groups[g], n)
}

// Log returns the command lines received so far, in order.
func (s *NNTP) Log() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// LogUntil waits until the command lines received satisfy cond, looking
// again at each command, for at most timeout, and reports whether they
// do: a client may return before the server has read its last command
// (QUIT is sent without waiting for the reply).
func (s *NNTP) LogUntil(timeout time.Duration, cond func(log []string) bool) bool {
	return s.logged.Until(timeout, func() bool { return cond(s.Log()) })
}

// Ahead returns the most commands the server had already received,
// whole, beyond a verb command (upper case) when it read that one, over
// all its connections: how many a client sent without waiting for the
// reply to it (pipelining, RFC 3977 section 3.5). It is 0 for a client
// that waits for each reply; it can be less than a client sent at once
// when TCP delivers the lines apart.
func (s *NNTP) Ahead(verb string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ahead[verb]
}

// ResetLog forgets the commands received, and what Ahead saw.
func (s *NNTP) ResetLog() {
	s.mu.Lock()
	s.log, s.ahead = nil, nil
	s.mu.Unlock()
}

// Count returns how many logged commands start with prefix.
func (s *NNTP) Count(prefix string) int {
	n := 0
	for _, l := range s.Log() {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

func (s *NNTP) marks(g string) (low, high int64, count int) {
	if m, ok := s.Marks[g]; ok {
		return m[1], m[2], int(m[0])
	}
	for n := range s.groups[g] {
		if low == 0 || n < low {
			low = n
		}
		high = max(high, n)
	}
	if count = len(s.groups[g]); count == 0 {
		low = high + 1
	}
	return low, high, count
}

// MessageID returns the Message-ID field of an article text.
func MessageID(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			break
		}
		if v, ok := strings.CutPrefix(line, "Message-ID: "); ok {
			return v
		}
	}
	return ""
}

// nntpSession is the state of one connection.
type nntpSession struct {
	s      *NNTP
	w      *bufio.Writer
	group  string // the selected group
	user   string // given with AUTHINFO USER
	authed bool
}

// reply writes one reply line.
func (ss *nntpSession) reply(format string, args ...any) {
	fmt.Fprintf(ss.w, format+"\r\n", args...)
}

// block writes text (LF line ends) as a multi-line data block: CRLF line
// ends, dots doubled, a "." line at the end (RFC 3977 section 3.1.1).
func (ss *nntpSession) block(text string) {
	ss.w.Write(lineproto.Stuff(nil, []byte(strings.ReplaceAll(text, "\n", "\r\n"))))
}

// nntpCommands are the commands served but QUIT, by verb. Each runs with
// s.mu held and is given the command's fields.
var nntpCommands = map[string]func(ss *nntpSession, f []string){
	"MODE":         func(ss *nntpSession, _ []string) { ss.reply("200 reader mode") },
	"CAPABILITIES": (*nntpSession).capabilities,
	"AUTHINFO":     (*nntpSession).authinfo,
	"GROUP":        (*nntpSession).groupCmd,
	"OVER":         (*nntpSession).over,
	"XOVER":        (*nntpSession).over,
	"LISTGROUP":    (*nntpSession).listGroup,
	"STAT":         (*nntpSession).article,
	"ARTICLE":      (*nntpSession).article,
	"HEAD":         (*nntpSession).article,
	"BODY":         (*nntpSession).article,
	"LIST":         (*nntpSession).list,
}

// openCommands are allowed before authentication (and QUIT, see dispatch).
var openCommands = map[string]bool{"AUTHINFO": true, "MODE": true, "CAPABILITIES": true}

func (s *NNTP) serve(c net.Conn) {
	r := bufio.NewReader(c)
	ss := &nntpSession{s: s, w: bufio.NewWriter(c), authed: s.User == ""}
	ss.reply("200 fetchtest news server ready")
	for {
		// Flush only when no command waits: pipelined commands are answered
		// in one write.
		if r.Buffered() == 0 && ss.w.Flush() != nil {
			return
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(strings.TrimRight(line, "\r\n"))
		s.record(r, line, f)
		if ss.dispatch(f) {
			ss.w.Flush()
			return
		}
	}
}

// record logs a command line (the AUTHINFO password hidden by
// lineproto.Shown) and how many whole commands had arrived beyond it.
func (s *NNTP) record(r *bufio.Reader, line string, f []string) {
	shown := lineproto.Shown(strings.TrimRight(line, "\r\n"))
	ahead := 0
	if n := r.Buffered(); n > 0 {
		b, _ := r.Peek(n)
		ahead = bytes.Count(b, []byte("\n"))
	}
	verb := ""
	if len(f) > 0 {
		verb = strings.ToUpper(f[0])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, shown)
	defer s.logged.Notify()
	if s.ahead == nil {
		s.ahead = map[string]int{}
	}
	s.ahead[verb] = max(s.ahead[verb], ahead)
}

// dispatch runs one command; it returns true to end the session.
func (ss *nntpSession) dispatch(f []string) bool {
	if len(f) == 0 {
		ss.reply("500 empty")
		return false
	}
	verb := strings.ToUpper(f[0])
	cmd, ok := nntpCommands[verb]
	switch {
	case verb == "QUIT":
		ss.reply("205 bye")
		return true
	case !ss.authed && !openCommands[verb]:
		ss.reply("480 authentication required")
	case !ok:
		ss.reply("500 unknown command")
	default:
		ss.s.mu.Lock()
		defer ss.s.mu.Unlock()
		cmd(ss, f)
	}
	return false
}

// arg returns field i, or "".
func arg(f []string, i int) string {
	if i < len(f) {
		return f[i]
	}
	return ""
}

func (ss *nntpSession) capabilities(_ []string) {
	ss.reply("101 capabilities")
	ss.reply("VERSION 2")
	ss.reply("READER")
	if ss.s.Over == "OVER" {
		ss.reply("OVER")
	}
	if ss.s.User != "" {
		ss.reply("AUTHINFO USER")
	}
	ss.reply(".")
}

func (ss *nntpSession) authinfo(f []string) {
	switch {
	case strings.EqualFold(arg(f, 1), "USER") && len(f) > 2:
		ss.user = f[2]
		ss.reply("381 password required")
	case strings.EqualFold(arg(f, 1), "PASS") && len(f) > 2:
		if ss.user == ss.s.User && f[2] == ss.s.Pass {
			ss.authed = true
			ss.reply("281 ok")
		} else {
			ss.reply("481 rejected")
		}
	default:
		ss.reply("501 syntax")
	}
}

func (ss *nntpSession) groupCmd(f []string) {
	g := arg(f, 1)
	if _, ok := ss.s.groups[g]; !ok {
		ss.reply("411 no such group")
		return
	}
	ss.group = g
	low, high, count := ss.s.marks(g)
	ss.reply("211 %d %d %d %s", count, low, high, g)
}

// over serves OVER and XOVER: the overview fields of RFC 3977 section
// 8.3.2 (subject, from, date, message-id, references, bytes, lines) from
// the articles' own headers.
func (ss *nntpSession) over(f []string) {
	verb := strings.ToUpper(f[0])
	s := ss.s
	if s.Over == "" || (s.Over == "XOVER" && verb == "OVER") {
		ss.reply("500 unknown command")
		return
	}
	if ss.group == "" {
		ss.reply("412 no group")
		return
	}
	lo, hi, ok := parseRange(arg(f, 1))
	if !ok {
		ss.reply("501 bad range")
		return
	}
	nums := s.numbers(ss.group, lo, hi)
	switch {
	case len(nums) > 0:
	case s.EmptyRange != 0:
		ss.reply("%d no article(s) selected", s.EmptyRange)
		return
	case verb == "OVER":
		ss.reply("423 No articles in %s", arg(f, 1))
		return
	}
	ss.reply("224 overview follows")
	for _, n := range nums {
		text := s.groups[ss.group][n]
		ss.reply("%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d", n, overField(text, "Subject", "subject"), overField(text, "From", "from"),
			overField(text, "Date", "date"), MessageID(text), overField(text, "References", ""), len(text), bodyLines(text))
	}
	ss.reply(".")
}

func (ss *nntpSession) listGroup(f []string) {
	lo, hi, ok := int64(1), int64(1<<62), true
	if len(f) > 2 {
		lo, hi, ok = parseRange(f[2])
	}
	s := ss.s
	switch {
	case s.ListGroup == "":
		ss.reply("500 unknown command")
		return
	case !ok || len(f) > 2 && s.ListGroup == "plain":
		ss.reply("501 bad range")
		return
	}
	if g := arg(f, 1); g != "" {
		if _, ok := s.groups[g]; !ok {
			ss.reply("411 no such group")
			return
		}
		ss.group = g
	}
	if ss.group == "" {
		ss.reply("412 no group")
		return
	}
	nums := s.numbers(ss.group, lo, hi)
	low, high, count := s.marks(ss.group)
	ss.reply("211 %d %d %d %s list follows", count, low, high, ss.group)
	for _, n := range nums {
		ss.reply("%d", n)
	}
	ss.reply(".")
}

// article serves STAT, ARTICLE, HEAD and BODY by article number.
func (ss *nntpSession) article(f []string) {
	verb := strings.ToUpper(f[0])
	n, err := strconv.ParseInt(arg(f, 1), 10, 64)
	text, ok := ss.s.groups[ss.group][n]
	switch {
	case ss.group == "":
		ss.reply("412 no group")
	case err != nil:
		ss.reply("501 bad number")
	case !ok:
		ss.reply("423 no such article")
	case verb == "STAT":
		ss.reply("223 %d %s", n, MessageID(text))
	default:
		ss.send(verb, n, text)
	}
}

// send sends article n, or its head or body (verb).
func (ss *nntpSession) send(verb string, n int64, text string) {
	if verb == "ARTICLE" && ss.s.Stall != nil {
		ss.s.mu.Unlock()
		ss.w.Flush()
		<-ss.s.Stall
		ss.s.mu.Lock()
	}
	head, body, _ := strings.Cut(text, "\n\n")
	switch verb {
	case "HEAD":
		ss.reply("221 %d %s", n, MessageID(text))
		ss.block(head + "\n")
	case "BODY":
		ss.reply("222 %d %s", n, MessageID(text))
		ss.block(body)
	default:
		ss.reply("220 %d %s", n, MessageID(text))
		ss.block(text)
	}
}

// list serves LIST ACTIVE [wildmat] (RFC 3977 section 7.6.3; the wildmat
// read as a path.Match pattern).
func (ss *nntpSession) list(f []string) {
	if !strings.EqualFold(arg(f, 1), "ACTIVE") {
		ss.reply("501 only LIST ACTIVE")
		return
	}
	pattern := "*"
	if len(f) > 2 {
		pattern = f[2]
	}
	var names []string
	for g := range ss.s.groups {
		if ok, _ := path.Match(pattern, g); ok {
			names = append(names, g)
		}
	}
	slices.Sort(names)
	ss.reply("215 list follows")
	for _, g := range names {
		low, high, _ := ss.s.marks(g)
		ss.reply("%s %d %d y", g, high, low)
	}
	ss.reply(".")
}

// overField returns the value of header name in an article's head, TABs
// and line breaks made spaces (RFC 3977 section 8.3.2); def when absent.
func overField(text, name, def string) string {
	head, _, _ := strings.Cut(text, "\n\n")
	for line := range strings.Lines(head) {
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), ":")
		if ok && strings.EqualFold(k, name) {
			return strings.NewReplacer("\t", " ", "\r", " ").Replace(strings.TrimSpace(v))
		}
	}
	return def
}

// bodyLines counts the lines of an article's body.
func bodyLines(text string) int {
	_, body, _ := strings.Cut(text, "\n\n")
	return strings.Count(body, "\n")
}

// numbers returns the numbers of group's articles from lo to hi, in
// order. The caller holds s.mu.
func (s *NNTP) numbers(group string, lo, hi int64) []int64 {
	var nums []int64
	for n := range s.groups[group] {
		if n >= lo && n <= hi {
			nums = append(nums, n)
		}
	}
	slices.Sort(nums)
	return nums
}

func parseRange(s string) (lo, hi int64, ok bool) {
	a, b, dash := strings.Cut(s, "-")
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if !dash {
		return lo, lo, true
	}
	if b == "" {
		return lo, 1<<63 - 1, true
	}
	hi, err = strconv.ParseInt(b, 10, 64)
	return lo, hi, err == nil
}
