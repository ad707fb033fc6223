package nntp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

func newsServer(t *testing.T, over string) *fetchtest.NNTP {
	t.Helper()
	return startNews(t, &fetchtest.NNTP{Over: over})
}

// startNews posts g.one's articles 1, 2, 3 and 5 to s and starts it.
func startNews(t *testing.T, s *fetchtest.NNTP) *fetchtest.NNTP {
	t.Helper()
	for n := int64(1); n <= 5; n++ {
		if n == 4 {
			continue // a gap
		}
		s.Post(fmt.Sprintf("Message-ID: <a%d@x>\nSubject: %d\n\nbody %d\n.dot line\n", n, n, n), []string{"g.one"}, []int64{n})
	}
	s.Start(t)
	return s
}

func openSession(t *testing.T, ctx context.Context, raw string, trace io.Writer) *Session {
	t.Helper()
	req := &proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second, Trace: trace}
	s, err := (&Driver{}).Open(ctx, uri.MustParse(raw), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// RFC 3977 section 8.3: OVER when CAPABILITIES lists it; RFC 2980 section
// 2.8: XOVER when it does not; neither: ErrNoOverview, and STAT
// (section 6.2.4) gives the message-ids.
func TestSessionOverview(t *testing.T) {
	for _, tt := range []struct {
		over  string
		verbs []string
	}{
		{"OVER", []string{"OVER 1-5"}},
		{"XOVER", []string{"XOVER 1-5"}},
		{"", []string{"XOVER 1-5"}},
	} {
		t.Run("server "+tt.over, func(t *testing.T) {
			srv := newsServer(t, tt.over)
			ctx := context.Background()
			s := openSession(t, ctx, "nntp://"+srv.Addr+"/g.one", nil)
			g, err := s.Group(ctx, "g.one")
			if err != nil || g != (GroupInfo{Count: 4, Low: 1, High: 5}) {
				t.Fatalf("Group = %+v, %v", g, err)
			}
			lines, err := s.Overview(ctx, g.Low, g.High)
			if tt.over == "" {
				if !errors.Is(err, ErrNoOverview) {
					t.Fatalf("Overview on a server without one = %v, %v; want ErrNoOverview", lines, err)
				}
				id, found, err := s.Stat(ctx, 3)
				if err != nil || !found || id != "<a3@x>" {
					t.Errorf("Stat(3) = %q %v %v", id, found, err)
				}
				if _, found, err := s.Stat(ctx, 4); err != nil || found {
					t.Errorf("Stat(4), a gap = %v %v; want not found", found, err)
				}
			} else {
				want := []OverviewLine{{1, "<a1@x>", 0}, {2, "<a2@x>", 0}, {3, "<a3@x>", 0}, {5, "<a5@x>", 0}}
				for i := range lines {
					lines[i].Bytes = 0
				}
				if err != nil || !slices.Equal(lines, want) {
					t.Errorf("Overview = %v, %v; want %v", lines, err, want)
				}
			}
			log := srv.Log()
			for _, v := range tt.verbs {
				if !slices.Contains(log, v) {
					t.Errorf("commands %q lack %q", log, v)
				}
			}
			if tt.over == "OVER" && slices.Contains(log, "XOVER 1-5") {
				t.Errorf("XOVER sent to a server with OVER: %q", log)
			}
		})
	}
}

// A range of the group without articles (the gap at 4, numbers past the
// high water mark) is no lines and no error, whichever way the server says
// so: OVER's 423 (RFC 3977 section 8.3.2, INN's "423 No articles in
// 6-10000"), XOVER's 420 (RFC 2980 section 2.8) or XOVER's empty list
// (INN). The session goes on: the next range gives its lines.
func TestSessionOverviewEmptyRange(t *testing.T) {
	for _, tt := range []struct {
		over  string
		empty int // fetchtest.NNTP.EmptyRange
		sent  string
	}{
		{"OVER", 0, "OVER 4-4"},     // 423
		{"OVER", 420, "OVER 4-4"},   // 420
		{"XOVER", 0, "XOVER 4-4"},   // 224, "."
		{"XOVER", 420, "XOVER 4-4"}, // 420
	} {
		t.Run(fmt.Sprintf("%s/%d", tt.over, tt.empty), func(t *testing.T) {
			srv := startNews(t, &fetchtest.NNTP{Over: tt.over, EmptyRange: tt.empty})
			ctx := context.Background()
			s := openSession(t, ctx, "nntp://"+srv.Addr+"/g.one", nil)
			if _, err := s.Group(ctx, "g.one"); err != nil {
				t.Fatal(err)
			}
			for _, r := range [][2]int64{{4, 4}, {6, 10000}} {
				if lines, err := s.Overview(ctx, r[0], r[1]); err != nil || len(lines) != 0 {
					t.Errorf("Overview(%d, %d) = %v, %v; want no lines, no error", r[0], r[1], lines, err)
				}
			}
			if lines, err := s.Overview(ctx, 1, 5); err != nil || len(lines) != 4 {
				t.Errorf("Overview(1, 5) after empty ranges = %v, %v; want 4 lines", lines, err)
			}
			if log := srv.Log(); !slices.Contains(log, tt.sent) {
				t.Errorf("commands %q lack %q", log, tt.sent)
			}
		})
	}
}

// Articles pipelines ARTICLE (RFC 3977 section 3.5) and hands each body
// dot-unstuffed with LF line ends; a number the server lacks gives nil.
func TestSessionArticles(t *testing.T) {
	srv := newsServer(t, "OVER")
	ctx := context.Background()
	s := openSession(t, ctx, "nntp://"+srv.Addr+"/g", nil)
	if _, err := s.Group(ctx, "g.one"); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := s.Articles(ctx, []int64{1, 2, 4, 5}, func(n int64, id string, body io.Reader) error {
		if body == nil {
			got = append(got, fmt.Sprintf("%d missing", n))
			return nil
		}
		b, err := io.ReadAll(body)
		got = append(got, fmt.Sprintf("%d %s %q %v", n, id, b, err))
		return nil
	})
	want := []string{
		`1 <a1@x> "Message-ID: <a1@x>\nSubject: 1\n\nbody 1\n.dot line\n" <nil>`,
		`2 <a2@x> "Message-ID: <a2@x>\nSubject: 2\n\nbody 2\n.dot line\n" <nil>`,
		`4 missing`,
		`5 <a5@x> "Message-ID: <a5@x>\nSubject: 5\n\nbody 5\n.dot line\n" <nil>`,
	}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("Articles = %v\n%q\nwant %q", err, got, want)
	}
	// The session is still in step: one more command works.
	if _, err := s.Group(ctx, "g.one"); err != nil {
		t.Errorf("GROUP after Articles: %v", err)
	}
	// An unread body is skipped.
	err = s.Articles(ctx, []int64{3, 5}, func(n int64, id string, body io.Reader) error { return nil })
	if err != nil {
		t.Errorf("Articles leaving bodies unread: %v", err)
	}
	if _, _, err := s.Stat(ctx, 5); err != nil {
		t.Errorf("STAT after unread bodies: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	// The transcript, as the server received it.
	wantLog := []string{"MODE READER", "GROUP g.one", "ARTICLE 1", "ARTICLE 2", "ARTICLE 4", "ARTICLE 5",
		"GROUP g.one", "ARTICLE 3", "ARTICLE 5", "STAT 5", "QUIT"}
	srv.LogUntil(5*time.Second, func(log []string) bool { return len(log) >= len(wantLog) })
	if log := srv.Log(); !slices.Equal(log, wantLog) {
		t.Errorf("commands %q, want %q", log, wantLog)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// AUTHINFO USER/PASS (RFC 4643 section 2.3) from the URL; the password
// is never in the trace.
func TestSessionAuthinfo(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER", User: "reader", Pass: "s3cret-pw"}
	srv.AddGroup("g.one")
	srv.Start(t)
	ctx := context.Background()
	var trace bytes.Buffer
	s := openSession(t, ctx, "nntp://reader:s3cret-pw@"+srv.Addr+"/g.one", &trace)
	if _, err := s.Group(ctx, "g.one"); err != nil {
		t.Fatalf("GROUP after AUTHINFO: %v", err)
	}
	if !slices.Contains(srv.Log(), "AUTHINFO USER reader") {
		t.Errorf("commands %q lack AUTHINFO USER", srv.Log())
	}
	if strings.Contains(trace.String(), "s3cret") || !strings.Contains(trace.String(), "AUTHINFO PASS ****") {
		t.Errorf("trace shows the password or no redacted PASS:\n%s", trace.String())
	}
	_, err := (&Driver{}).Open(ctx, uri.MustParse("nntp://reader:wrong@"+srv.Addr+"/g"), &proto.Request{ConnectTimeout: 5 * time.Second})
	if !errors.Is(err, proto.ErrLogin) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a wrong password = %v; want ErrLogin without the password", err)
	}
}

// A cancelled context stops Articles while the server stalls.
func TestSessionArticlesCancel(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER", Stall: make(chan struct{})}
	srv.Post("Message-ID: <x@y>\n\nb\n", []string{"g"}, []int64{1})
	srv.Start(t)
	defer close(srv.Stall)
	ctx, cancel := context.WithCancel(context.Background())
	s := openSession(t, ctx, "nntp://"+srv.Addr+"/g", nil)
	if _, err := s.Group(ctx, "g"); err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	err := s.Articles(ctx, []int64{1}, func(int64, string, io.Reader) error { return nil })
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 3*time.Second {
		t.Errorf("Articles after cancel = %v after %v; want context.Canceled at once", err, time.Since(t0))
	}
	if _, err := s.Group(context.Background(), "g"); err == nil {
		t.Error("the session is used after a cancelled Articles")
	}
}

// ListActive sends the wildmat (RFC 3977 section 7.6.3) and refuses one
// that would split the command.
func TestSessionListActive(t *testing.T) {
	srv := newsServer(t, "OVER")
	srv.AddGroup("g.two")
	srv.AddGroup("other")
	ctx := context.Background()
	s := openSession(t, ctx, "nntp://"+srv.Addr+"/g", nil)
	groups, err := s.ListActive(ctx, "g.*")
	if err != nil || len(groups) != 2 || groups[0].Name != "g.one" || groups[0].High != 5 || groups[1].Name != "g.two" {
		t.Errorf("ListActive(g.*) = %+v, %v", groups, err)
	}
	if !slices.Contains(srv.Log(), "LIST ACTIVE g.*") {
		t.Errorf("commands %q lack LIST ACTIVE g.*", srv.Log())
	}
	if _, err := s.ListActive(ctx, "g.*\r\nQUIT"); !errors.Is(err, proto.ErrUnsafeArgument) {
		t.Errorf("ListActive with CR LF = %v; want ErrUnsafeArgument", err)
	}
}

// RFC 3977 section 6.1.2: LISTGROUP with a range; RFC 2980's without one
// (a range is a 501: the whole group, cut to the range); none (500):
// ErrNoListGroup. Each selects the group, and STATs pipelined after it
// (section 6.2.4) find the listed numbers and not the gap.
func TestSessionArticleNumbers(t *testing.T) {
	for _, lg := range []string{"range", "plain", ""} {
		t.Run("listgroup="+lg, func(t *testing.T) {
			srv := &fetchtest.NNTP{ListGroup: lg}
			for n := int64(1); n <= 5; n++ {
				if n != 4 {
					srv.Post(fmt.Sprintf("Message-ID: <a%d@x>\n\nbody\n", n), []string{"g.one"}, []int64{n})
				}
			}
			srv.Post("Message-ID: <b1@x>\n\nbody\n", []string{"g.two"}, []int64{1})
			srv.Start(t)
			ctx := context.Background()
			s := openSession(t, ctx, "nntp://"+srv.Addr+"/g.two", nil)
			nums, err := s.ArticleNumbers(ctx, "g.one", 2, 9)
			if lg == "" {
				if !errors.Is(err, ErrNoListGroup) {
					t.Fatalf("ArticleNumbers without LISTGROUP = %v, %v", nums, err)
				}
				if _, err := s.Group(ctx, "g.one"); err != nil {
					t.Fatal(err)
				}
			} else if err != nil || !slices.Equal(nums, []int64{2, 3, 5}) {
				t.Fatalf("ArticleNumbers(g.one, 2, 9) = %v, %v", nums, err)
			}
			var got []string
			err = s.StatEach(ctx, []int64{1, 2, 3, 4, 5, 6}, func(n int64, id string, found bool) error {
				got = append(got, fmt.Sprintf("%d:%s:%v", n, id, found))
				return nil
			})
			want := []string{"1:<a1@x>:true", "2:<a2@x>:true", "3:<a3@x>:true", "4::false", "5:<a5@x>:true", "6::false"}
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("StatEach in g.one = %q, %v", got, err)
			}
			// The session is in step: one more command answers.
			if id, found, err := s.Stat(ctx, 5); err != nil || !found || id != "<a5@x>" {
				t.Errorf("Stat(5) after = %q %v %v", id, found, err)
			}
		})
	}
}

// A refusal in the middle of pipelined STATs (RFC 3977 section 3.5), here
// of the 3rd of 10, stops them: fn has seen the first two, the caller
// gets the *ReplyError of STAT 3 (its code, its class), and the session,
// with seven replies still coming, takes no more commands and sends
// nothing more.
func TestSessionStatEachStops(t *testing.T) {
	s, conn := scriptSession(t, &Driver{}, "223 1 <a1@x>", "223 2 <a2@x>", "502 access denied", "223 4 <a4@x>")
	ctx := context.Background()
	var got []int64
	err := s.StatEach(ctx, []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, func(n int64, id string, found bool) error {
		got = append(got, n)
		return nil
	})
	var re *ReplyError
	if !errors.As(err, &re) || re.Cmd != "STAT 3" || re.Reply.Code != StatusUnavailable || !errors.Is(err, proto.ErrPermission) {
		t.Fatalf("StatEach with the 3rd refused = %v; want the *ReplyError 502 of STAT 3", err)
	}
	if !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("fn saw %v, want [1 2]", got)
	}
	sent := conn.sent.String()
	if _, _, err := s.Stat(ctx, 4); err == nil {
		t.Error("Stat after StatEach stopped out of step succeeded")
	}
	if err := s.StatEach(ctx, []int64{4}, func(int64, string, bool) error { return nil }); err == nil {
		t.Error("StatEach after StatEach stopped out of step succeeded")
	}
	if want := "MODE READER\r\nSTAT 1\r\nSTAT 2\r\nSTAT 3\r\nSTAT 4\r\nSTAT 5\r\nSTAT 6\r\nSTAT 7\r\nSTAT 8\r\nSTAT 9\r\nSTAT 10\r\n"; sent != want || conn.sent.String() != sent {
		t.Errorf("sent %q, then %q; want %q and nothing more", sent, conn.sent.String(), want)
	}
}

// An error from fn stops StatEach and is returned as it is; so does a
// refusal of the first reply (no group selected, RFC 3977 section 6.2.4:
// 412). Either way the session is then out of step.
func TestSessionStatEachFnStops(t *testing.T) {
	srv := newsServer(t, "OVER")
	ctx := context.Background()
	s := openSession(t, ctx, "nntp://"+srv.Addr+"/g.one", nil)
	err := s.StatEach(ctx, []int64{1, 2}, func(int64, string, bool) error { return nil })
	var re *ReplyError
	if !errors.As(err, &re) || re.Reply.Code != StatusNoGroupSelected {
		t.Fatalf("StatEach with no group selected = %v; want a 412 *ReplyError", err)
	}
	s = openSession(t, ctx, "nntp://"+srv.Addr+"/g.one", nil)
	if _, err := s.Group(ctx, "g.one"); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	calls := 0
	err = s.StatEach(ctx, []int64{1, 2, 3}, func(int64, string, bool) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("StatEach = %v after %d calls; want the callback's error after 1", err, calls)
	}
	if _, _, err := s.Stat(ctx, 1); err == nil {
		t.Error("the session went on after StatEach stopped out of step")
	}
}

// stallConn is a fakeConn whose script, once played, gives nothing more
// until the connection is closed: a server that stopped answering.
type stallConn struct {
	*fakeConn
	done chan struct{}
	once sync.Once
}

func newStallConn(lines ...string) *stallConn {
	c := &stallConn{done: make(chan struct{})}
	c.fakeConn = &fakeConn{r: io.MultiReader(strings.NewReader(script(lines...)), stallReader{c.done})}
	return c
}

func (c *stallConn) Close() error { c.once.Do(func() { close(c.done) }); return nil }

type stallReader struct{ done chan struct{} }

func (r stallReader) Read([]byte) (int, error) { <-r.done; return 0, net.ErrClosed }

// A cancelled context stops StatEach while the server, with replies
// still owed, stalls: an error wrapping context.Canceled at once, fn
// having seen what came before, and the session unusable.
func TestSessionStatEachCancel(t *testing.T) {
	conn := newStallConn("200 hi", "200 reader", "223 1 <a1@x>", "223 2 <a2@x>")
	req := &proto.Request{Dial: func(context.Context, string, string) (net.Conn, error) { return conn, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := (&Driver{}).Open(ctx, uri.MustParse("nntp://127.0.0.1/g"), req)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	var got []int64
	err = s.StatEach(ctx, []int64{1, 2, 3, 4}, func(n int64, id string, found bool) error {
		got = append(got, n)
		return nil
	})
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 3*time.Second {
		t.Errorf("StatEach after cancel = %v after %v; want context.Canceled at once", err, time.Since(t0))
	}
	if !slices.Equal(got, []int64{1, 2}) {
		t.Errorf("fn saw %v, want [1 2]", got)
	}
	if _, _, err := s.Stat(context.Background(), 1); err == nil {
		t.Error("the session is used after a cancelled StatEach")
	}
}

// With Driver.Pipeline 3, StatEach and Articles keep at most 3 commands in
// flight (the server never holds more than 2 beyond the one it reads) and
// refill as replies come, through all ten numbers, in order.
func TestSessionSmallPipeline(t *testing.T) {
	srv := &fetchtest.NNTP{}
	for n := int64(1); n <= 10; n++ {
		if n != 6 {
			srv.Post(fmt.Sprintf("Message-ID: <a%d@x>\n\nbody %d\n", n, n), []string{"g"}, []int64{n})
		}
	}
	srv.Start(t)
	ctx := context.Background()
	s, err := (&Driver{Pipeline: 3}).Open(ctx, uri.MustParse("nntp://"+srv.Addr+"/g"), &proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Group(ctx, "g"); err != nil {
		t.Fatal(err)
	}
	nums := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	var stats, arts []string
	err = s.StatEach(ctx, nums, func(n int64, id string, found bool) error {
		stats = append(stats, fmt.Sprintf("%d%s", n, id))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Articles(ctx, nums, func(n int64, id string, body io.Reader) error {
		if body == nil {
			arts = append(arts, fmt.Sprint(n))
			return nil
		}
		b, err := io.ReadAll(body)
		arts = append(arts, fmt.Sprintf("%d%s:%q:%v", n, id, b, err))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nums {
		want := fmt.Sprintf("%d<a%d@x>", n, n)
		wantArt := fmt.Sprintf("%d<a%d@x>:%q:<nil>", n, n, fmt.Sprintf("Message-ID: <a%d@x>\n\nbody %d\n", n, n))
		if n == 6 {
			want, wantArt = "6", "6"
		}
		if stats[i] != want || arts[i] != wantArt {
			t.Errorf("number %d: STAT %q, ARTICLE %q; want %q, %q", n, stats[i], arts[i], want, wantArt)
		}
	}
	for _, verb := range []string{"STAT", "ARTICLE"} {
		if a := srv.Ahead(verb); a < 1 || a > 2 {
			t.Errorf("%s: %d commands received ahead at most; want 1 or 2 (3 in flight)", verb, a)
		}
		if n := srv.Count(verb + " "); n != 10 {
			t.Errorf("%d %s commands, want 10", n, verb)
		}
	}
}

// scriptSession opens a Session on a fake connection that plays the
// greeting, the reply to MODE READER and then lines, and records the
// bytes the client sends.
func scriptSession(t *testing.T, d *Driver, lines ...string) (*Session, *fakeConn) {
	t.Helper()
	conn := &fakeConn{r: strings.NewReader(script(append([]string{"200 hi", "200 reader"}, lines...)...))}
	req := &proto.Request{Dial: func(context.Context, string, string) (net.Conn, error) { return conn, nil }}
	s, err := d.Open(context.Background(), uri.MustParse("nntp://127.0.0.1/g"), req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, conn
}

// RFC 3977 sections 6.2.1 and 6.2.4: the reply to ARTICLE n or STAT n is
// "220 n <message-id>" or "223 n <message-id>". Here the server (or a
// proxy) lost the reply to the command for 2: the next reply names 3.
// With commands pipelined every later reply would be taken for the
// article before it, its message-id linked to another article's file;
// instead the reply out of step is a *proto.ProtocolError, fn sees no
// number after it, and the session takes no more commands.
func TestSessionRepliesOutOfStep(t *testing.T) {
	body := []string{"Message-ID: <a@x>", "", "a", "."}
	for _, tc := range []struct {
		name  string
		lines []string
		run   func(ctx context.Context, s *Session, got *[]string) error
		sent  string
	}{
		{
			name:  "StatEach",
			lines: []string{"223 1 <a@x>", "223 3 <c@x>", "423 none"},
			run: func(ctx context.Context, s *Session, got *[]string) error {
				return s.StatEach(ctx, []int64{1, 2, 3}, func(n int64, id string, found bool) error {
					*got = append(*got, fmt.Sprintf("%d %s", n, id))
					return nil
				})
			},
			sent: "MODE READER\r\nSTAT 1\r\nSTAT 2\r\nSTAT 3\r\n",
		},
		{
			name:  "Articles",
			lines: append(append([]string{"220 1 <a@x>"}, body...), "220 3 <c@x>", "Message-ID: <c@x>", "", "c", "."),
			run: func(ctx context.Context, s *Session, got *[]string) error {
				return s.Articles(ctx, []int64{1, 2, 3}, func(n int64, id string, body io.Reader) error {
					*got = append(*got, fmt.Sprintf("%d %s", n, id))
					return nil
				})
			},
			sent: "MODE READER\r\nARTICLE 1\r\nARTICLE 2\r\nARTICLE 3\r\n",
		},
		{
			name:  "Stat",
			lines: []string{"223 2 <b@x>"},
			run: func(ctx context.Context, s *Session, got *[]string) error {
				_, _, err := s.Stat(ctx, 1)
				return err
			},
			sent: "MODE READER\r\nSTAT 1\r\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, conn := scriptSession(t, &Driver{}, tc.lines...)
			ctx := context.Background()
			var got []string
			err := tc.run(ctx, s, &got)
			var pe *proto.ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("%s with a reply for another number = %v; want a *proto.ProtocolError", tc.name, err)
			}
			if want := []string{"1 <a@x>"}; tc.name != "Stat" && !slices.Equal(got, want) {
				t.Errorf("fn saw %q, want %q", got, want)
			}
			if _, _, err := s.Stat(ctx, 1); !errors.As(err, &pe) {
				t.Errorf("Stat after replies out of step = %v; want the session unusable", err)
			}
			if conn.sent.String() != tc.sent {
				t.Errorf("sent %q, want %q", conn.sent.String(), tc.sent)
			}
		})
	}
}

// A reply without the number ("223 0 <id>", as for a message-id) is
// taken for the number asked.
func TestSessionReplyWithoutNumber(t *testing.T) {
	s, _ := scriptSession(t, &Driver{}, "223 0 <a@x>", "223 0 <b@x>")
	var got []string
	err := s.StatEach(context.Background(), []int64{1, 2}, func(n int64, id string, found bool) error {
		got = append(got, fmt.Sprintf("%d %s %v", n, id, found))
		return nil
	})
	if want := []string{"1 <a@x> true", "2 <b@x> true"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("StatEach = %q, %v; want %q", got, err, want)
	}
}

// RFC 3977 section 6.1.2: LISTGROUP with a range, asked for in ranges
// of listGroupChunk numbers (2 here), so that no reply outgrows the limit
// on a list however big the group.
func TestSessionArticleNumbersInRanges(t *testing.T) {
	defer func(c int64) { listGroupChunk = c }(listGroupChunk)
	listGroupChunk = 2
	srv := &fetchtest.NNTP{ListGroup: "range"}
	for _, n := range []int64{1, 2, 3, 5} {
		srv.Post(fmt.Sprintf("Message-ID: <a%d@x>\n\nbody\n", n), []string{"g.one"}, []int64{n})
	}
	srv.Start(t)
	ctx := context.Background()
	s := openSession(t, ctx, "nntp://"+srv.Addr+"/g.one", nil)
	nums, err := s.ArticleNumbers(ctx, "g.one", 1, 9)
	if err != nil || !slices.Equal(nums, []int64{1, 2, 3, 5}) {
		t.Errorf("ArticleNumbers(g.one, 1, 9) = %v, %v", nums, err)
	}
	var asked []string
	for _, l := range srv.Log() {
		if strings.HasPrefix(l, "LISTGROUP") {
			asked = append(asked, l)
		}
	}
	if want := []string{"LISTGROUP g.one 1-2", "LISTGROUP g.one 3-4", "LISTGROUP g.one 5-6", "LISTGROUP g.one 7-8", "LISTGROUP g.one 9-9"}; !slices.Equal(asked, want) {
		t.Errorf("commands %q, want %q", asked, want)
	}
}

// ArticleNumbers' refusals (RFC 3977 section 3.2.1: 500 unknown, 501
// syntax, 503 not supported) and broken replies, on a scripted server.
func TestSessionArticleNumbersReplies(t *testing.T) {
	for _, tc := range []struct {
		name    string
		d       Driver
		lines   []string
		noList  bool   // an error wrapping ErrNoListGroup, the session usable
		code    int    // the *ReplyError's code, when noList and a command was refused
		cmd     string // its command
		broken  bool   // a *proto.ProtocolError, the session unusable
		want    []int64
		sent    string
		stepped bool // a STAT answered after
	}{
		{
			// RFC 2980's LISTGROUP: the range refused, GROUP sizes the
			// whole list, which is read.
			name:  "plain",
			lines: []string{"501 no range", "211 3 1 9 g", "211 3 1 9 g list follows", "1", "5", "9", ".", "223 5 <a@x>"},
			want:  []int64{1, 5}, sent: "MODE READER\r\nLISTGROUP g 1-6\r\nGROUP g\r\nLISTGROUP g\r\nSTAT 5\r\n", stepped: true,
		},
		{
			// No LISTGROUP at all.
			name: "503", lines: []string{"503 not supported", "223 5 <a@x>"},
			noList: true, code: 503, cmd: "LISTGROUP g 1-6",
			sent: "MODE READER\r\nLISTGROUP g 1-6\r\nSTAT 5\r\n", stepped: true,
		},
		{
			// Both forms refused with 501: the second refusal.
			name:   "501 twice",
			lines:  []string{"501 no range", "211 3 1 9 g", "501 no", "223 5 <a@x>"},
			noList: true, code: 501, cmd: "LISTGROUP g",
			sent: "MODE READER\r\nLISTGROUP g 1-6\r\nGROUP g\r\nLISTGROUP g\r\nSTAT 5\r\n", stepped: true,
		},
		{
			// The whole list of 60 articles up to 60 (3 bytes a line)
			// could outgrow MaxListBytes: not asked for; the group is
			// selected for the STATs that replace it.
			name:   "plain over the limit",
			d:      Driver{MaxListBytes: 100},
			lines:  []string{"501 no range", "211 60 1 60 g", "223 5 <a@x>"},
			noList: true,
			sent:   "MODE READER\r\nLISTGROUP g 1-6\r\nGROUP g\r\nSTAT 5\r\n", stepped: true,
		},
		{
			name:   "malformed line",
			lines:  []string{"211 3 1 9 g list follows", "1", "five", "6", "."},
			broken: true,
			sent:   "MODE READER\r\nLISTGROUP g 1-6\r\n",
		},
		{
			// More lines than the range 1-6 holds.
			name:   "over the range",
			lines:  []string{"211 9 1 9 g list follows", "1", "2", "3", "4", "5", "6", "6", "."},
			broken: true,
			sent:   "MODE READER\r\nLISTGROUP g 1-6\r\n",
		},
		{
			name:   "over MaxListBytes",
			d:      Driver{MaxListBytes: 4},
			lines:  []string{"211 3 1 9 g list follows", "1", "2", "3", "."},
			broken: true,
			sent:   "MODE READER\r\nLISTGROUP g 1-6\r\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, conn := scriptSession(t, &tc.d, tc.lines...)
			ctx := context.Background()
			nums, err := s.ArticleNumbers(ctx, "g", 1, 6)
			var re *ReplyError
			var pe *proto.ProtocolError
			switch {
			case tc.noList:
				if !errors.Is(err, ErrNoListGroup) {
					t.Fatalf("ArticleNumbers = %v, %v; want ErrNoListGroup", nums, err)
				}
				if tc.code != 0 && (!errors.As(err, &re) || re.Reply.Code != tc.code || re.Cmd != tc.cmd) {
					t.Errorf("ArticleNumbers = %v; want the *ReplyError %d of %q", err, tc.code, tc.cmd)
				}
			case tc.broken:
				if !errors.As(err, &pe) {
					t.Fatalf("ArticleNumbers = %v, %v; want a *proto.ProtocolError", nums, err)
				}
				if _, _, err := s.Stat(ctx, 5); err == nil {
					t.Error("Stat after a broken list succeeded")
				}
			case err != nil || !slices.Equal(nums, tc.want):
				t.Errorf("ArticleNumbers = %v, %v; want %v", nums, err, tc.want)
			}
			if tc.stepped {
				if id, found, err := s.Stat(ctx, 5); err != nil || !found || id != "<a@x>" {
					t.Errorf("Stat(5) after = %q %v %v; want the session in step", id, found, err)
				}
			}
			if conn.sent.String() != tc.sent {
				t.Errorf("sent %q, want %q", conn.sent.String(), tc.sent)
			}
		})
	}
}

// Driver.Pipeline above MaxPipeline is taken as MaxPipeline: asked for
// 100,000, StatEach of 300 numbers (under 3 KiB of commands, read by the
// server in one go) never has more than 256 in flight.
func TestSessionPipelineCap(t *testing.T) {
	srv := &fetchtest.NNTP{}
	srv.Post("Message-ID: <a@x>\n\nbody\n", []string{"g"}, []int64{7})
	srv.Start(t)
	ctx := context.Background()
	s, err := (&Driver{Pipeline: 100000}).Open(ctx, uri.MustParse("nntp://"+srv.Addr+"/g"), &proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Group(ctx, "g"); err != nil {
		t.Fatal(err)
	}
	nums := make([]int64, 300)
	for i := range nums {
		nums[i] = int64(i + 1)
	}
	var found []int64
	err = s.StatEach(ctx, nums, func(n int64, id string, ok bool) error {
		if ok {
			found = append(found, n)
		}
		return nil
	})
	if err != nil || !slices.Equal(found, []int64{7}) {
		t.Fatalf("StatEach = %v, %v; want [7]", found, err)
	}
	if a := srv.Ahead("STAT"); a > MaxPipeline-1 {
		t.Errorf("the server held %d STATs beyond the one it read; want at most %d", a, MaxPipeline-1)
	}
}

// Pipelined commands pass the wire check (STYLE: no command without a
// CR/LF check): a verb with CR LF is refused before anything is written,
// and the session is not used again.
func TestSessionSendAheadChecksLines(t *testing.T) {
	s, conn := scriptSession(t, &Driver{})
	_, err := s.sendAhead(context.Background(), "STAT\r\nQUIT", []int64{1, 2}, 0, 0, 4)
	if !errors.Is(err, proto.ErrUnsafeArgument) {
		t.Errorf("sendAhead with CR LF in the line = %v; want ErrUnsafeArgument", err)
	}
	if conn.sent.String() != "MODE READER\r\n" {
		t.Errorf("sent %q; want nothing after MODE READER", conn.sent.String())
	}
	if _, _, err := s.Stat(context.Background(), 1); err == nil {
		t.Error("Stat after a refused pipelined line succeeded")
	}
}
