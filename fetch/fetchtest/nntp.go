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

func (s *NNTP) serve(c net.Conn) {
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	reply := func(format string, args ...any) {
		fmt.Fprintf(w, format+"\r\n", args...)
	}
	block := func(text string) {
		for _, line := range strings.SplitAfter(text, "\n") {
			if line == "" {
				continue
			}
			line = strings.TrimSuffix(line, "\n")
			if strings.HasPrefix(line, ".") {
				line = "." + line
			}
			w.WriteString(line + "\r\n")
		}
		w.WriteString(".\r\n")
	}
	reply("200 nntptest ready")
	w.Flush()
	group := ""
	authed := s.User == ""
	user := ""
	for {
		// Flush only when no command waits: pipelined commands are answered
		// in one write.
		if r.Buffered() == 0 {
			if w.Flush() != nil {
				return
			}
		}
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		shown := line
		if strings.HasPrefix(strings.ToUpper(line), "AUTHINFO PASS ") {
			shown = "AUTHINFO PASS " + strings.Repeat("*", len(line)-len("AUTHINFO PASS "))
		}
		ahead := 0
		if n := r.Buffered(); n > 0 {
			b, _ := r.Peek(n)
			ahead = bytes.Count(b, []byte("\n"))
		}
		f := strings.Fields(line)
		verb := ""
		if len(f) > 0 {
			verb = strings.ToUpper(f[0])
		}
		s.mu.Lock()
		s.log = append(s.log, shown)
		if s.ahead == nil {
			s.ahead = map[string]int{}
		}
		s.ahead[verb] = max(s.ahead[verb], ahead)
		s.mu.Unlock()
		if len(f) == 0 {
			reply("500 empty")
			continue
		}
		arg := ""
		if len(f) > 1 {
			arg = f[1]
		}
		if !authed && verb != "AUTHINFO" && verb != "MODE" && verb != "CAPABILITIES" && verb != "QUIT" {
			reply("480 authentication required")
			continue
		}
		s.mu.Lock()
		switch verb {
		case "MODE":
			reply("200 reader mode")
		case "CAPABILITIES":
			reply("101 capabilities")
			reply("VERSION 2")
			reply("READER")
			if s.Over == "OVER" {
				reply("OVER")
			}
			if s.User != "" {
				reply("AUTHINFO USER")
			}
			reply(".")
		case "AUTHINFO":
			switch {
			case strings.EqualFold(arg, "USER") && len(f) > 2:
				user = f[2]
				reply("381 password required")
			case strings.EqualFold(arg, "PASS") && len(f) > 2:
				if user == s.User && f[2] == s.Pass {
					authed = true
					reply("281 ok")
				} else {
					reply("481 rejected")
				}
			default:
				reply("501 syntax")
			}
		case "GROUP":
			if _, ok := s.groups[arg]; !ok {
				reply("411 no such group")
				break
			}
			group = arg
			low, high, count := s.marks(arg)
			reply("211 %d %d %d %s", count, low, high, arg)
		case "OVER", "XOVER":
			if s.Over == "" || (s.Over == "XOVER" && verb == "OVER") {
				reply("500 unknown command")
				break
			}
			if group == "" {
				reply("412 no group")
				break
			}
			lo, hi, ok := parseRange(arg)
			if !ok {
				reply("501 bad range")
				break
			}
			nums := s.numbers(group, lo, hi)
			switch {
			case len(nums) > 0:
			case s.EmptyRange != 0:
				reply("%d no article(s) selected", s.EmptyRange)
			case verb == "OVER":
				reply("423 No articles in %s", arg)
			}
			if len(nums) == 0 && (s.EmptyRange != 0 || verb == "OVER") {
				break
			}
			reply("224 overview follows")
			for _, n := range nums {
				text := s.groups[group][n]
				reply("%d\tsubject\tfrom\tdate\t%s\t\t%d\t1", n, MessageID(text), len(text))
			}
			reply(".")
		case "LISTGROUP":
			lo, hi, ok := int64(1), int64(1<<62), true
			if len(f) > 2 {
				lo, hi, ok = parseRange(f[2])
			}
			if s.ListGroup == "" {
				reply("500 unknown command")
				break
			}
			if !ok || len(f) > 2 && s.ListGroup == "plain" {
				reply("501 bad range")
				break
			}
			if arg != "" {
				if _, ok := s.groups[arg]; !ok {
					reply("411 no such group")
					break
				}
				group = arg
			}
			if group == "" {
				reply("412 no group")
				break
			}
			nums := s.numbers(group, lo, hi)
			low, high, count := s.marks(group)
			reply("211 %d %d %d %s list follows", count, low, high, group)
			for _, n := range nums {
				reply("%d", n)
			}
			reply(".")
		case "STAT", "ARTICLE":
			n, err := strconv.ParseInt(arg, 10, 64)
			text, ok := s.groups[group][n]
			switch {
			case group == "":
				reply("412 no group")
			case err != nil:
				reply("501 bad number")
			case !ok:
				reply("423 no such article")
			case verb == "STAT":
				reply("223 %d %s", n, MessageID(text))
			default:
				if s.Stall != nil {
					s.mu.Unlock()
					w.Flush()
					<-s.Stall
					s.mu.Lock()
				}
				reply("220 %d %s", n, MessageID(text))
				block(text)
			}
		case "LIST":
			if !strings.EqualFold(arg, "ACTIVE") {
				reply("501 only LIST ACTIVE")
				break
			}
			pattern := "*"
			if len(f) > 2 {
				pattern = f[2]
			}
			var names []string
			for g := range s.groups {
				if ok, _ := path.Match(pattern, g); ok {
					names = append(names, g)
				}
			}
			slices.Sort(names)
			reply("215 list follows")
			for _, g := range names {
				_, high, _ := s.marks(g)
				low, _, _ := s.marks(g)
				reply("%s %d %d y", g, high, low)
			}
			reply(".")
		case "QUIT":
			reply("205 bye")
			s.mu.Unlock()
			w.Flush()
			return
		default:
			reply("500 unknown command")
		}
		s.mu.Unlock()
	}
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
