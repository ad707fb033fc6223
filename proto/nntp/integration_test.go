package nntp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/internal/testrig/servertest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Integration tests against INN's nnrpd (internal/testrig/servertest documents the
// news fixture). They skip locally when the server is not running and fail
// under CI=true.

func innRequest(opts proto.Options, trace io.Writer) *proto.Request {
	return &proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 10 * time.Second, Options: opts, Trace: trace}
}

func innFetch(t *testing.T, raw string, opts proto.Options) (*proto.Response, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := (&Driver{}).Fetch(ctx, uri.MustParse(raw), innRequest(opts, nil))
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

// The dot test article: body lines ".hidden line", "..two dots" and "."
// travel stuffed (RFC 3977 section 3.1.1) and must come back restored.
var dotLines = []string{"\n.hidden line\n", "\n..two dots\n", "\n.\n"}

func TestINNArticleByNumber(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	resp, body, err := innFetch(t, "nntp://"+s.Addr+"/local.test/2", proto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range dotLines {
		if !bytes.Contains(body, []byte(l)) {
			t.Errorf("article 2 lacks the restored line %q:\n%s", l, body)
		}
	}
	if bytes.Contains(body, []byte("\n...two dots\n")) || bytes.Contains(body, []byte("\r\n")) {
		t.Errorf("article 2 is still stuffed or has CR LF:\n%s", body)
	}
	if resp.Info["message_id"] != "<test-2@fetch.invalid>" || resp.Info["subject"] != "Dot-stuffing test" || resp.Info["number"] != int64(2) {
		t.Errorf("Info = %v", resp.Info)
	}
	if resp.MediaType != "message/rfc822" {
		t.Errorf("MediaType = %q", resp.MediaType)
	}
}

func TestINNArticleByMessageID(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	opts := withServer(s.Addr)
	_, byID, err := innFetch(t, "news:test-2@fetch.invalid", opts)
	if err != nil {
		t.Fatal(err)
	}
	_, byNumber, err := innFetch(t, "nntp://"+s.Addr+"/local.test/2", proto.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(byID, byNumber) {
		t.Errorf("by message-id:\n%s\nby number:\n%s", byID, byNumber)
	}
	for _, l := range dotLines {
		if !bytes.Contains(byID, []byte(l)) {
			t.Errorf("news:test-2@fetch.invalid lacks %q", l)
		}
	}
	// A message-id with "/" and "+", escaped in the URL as RFC 1738
	// section 2.2 allows.
	resp, _, err := innFetch(t, "news:test-7%2Fslash%2Bplus@fetch.invalid", opts)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Info["subject"] != "Message-ID with slash and plus" {
		t.Errorf("Info = %v", resp.Info)
	}
}

func TestINNHeadAndBody(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	_, head, err := innFetch(t, "nntp://"+s.Addr+"/local.test/4", proto.Options{HeadersOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(head, []byte("Message-ID: <test-4@fetch.invalid>")) || bytes.Contains(head, []byte("\n\n")) {
		t.Errorf("HEAD 4 =\n%s", head)
	}
	_, body, err := innFetch(t, "nntp://"+s.Addr+"/local.test/2", proto.Options{BodyOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(body, []byte("Message-ID:")) || !bytes.Contains(body, []byte("\n..two dots\n")) {
		t.Errorf("BODY 2 =\n%s", body)
	}
}

func TestINNSummary(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	for _, raw := range []string{"nntp://" + s.Addr + "/local.test", "news:local.test"} {
		t.Run(raw, func(t *testing.T) {
			resp, _, err := innFetch(t, raw, withServer(s.Addr))
			if err != nil {
				t.Fatal(err)
			}
			var want []servertest.Article
			for _, a := range servertest.NewsArticles {
				if a.Group == "local.test" {
					want = append(want, a)
				}
			}
			if len(resp.Entries) != len(want) {
				t.Fatalf("summary has %d entries, want %d: %+v", len(resp.Entries), len(want), resp.Entries)
			}
			for i, a := range want {
				e := resp.Entries[i]
				if e.Name != a.Subject || e.Extra["number"] != strconv.Itoa(a.Number) || e.Extra["message_id"] != a.MessageID || e.Extra["lines"] != strconv.Itoa(a.Lines) {
					t.Errorf("entry %d = %+v, want %+v", i, e, a)
				}
				if wantURL := "nntp://" + s.Addr + "/local.test/" + strconv.Itoa(a.Number); e.URL != wantURL {
					t.Errorf("entry %d URL = %q, want %q", i, e.URL, wantURL)
				}
				if e.ModTime.IsZero() || e.Size <= 0 {
					t.Errorf("entry %d has no date or size: %+v", i, e)
				}
			}
			if resp.Info["method"] != "OVER" {
				t.Errorf("Info = %v, want method OVER (nnrpd lists OVER)", resp.Info)
			}
		})
	}
	resp, _, err := innFetch(t, "nntp://"+s.Addr+"/local.empty", proto.Options{})
	if err != nil || len(resp.Entries) != 0 {
		t.Errorf("local.empty: %v, %v", resp, err)
	}
}

// TestINNHeadFallback runs the summary's last fallback (one HEAD per
// article, for servers without an overview) against the real server, which
// does have OVER: the gap at 6 is skipped and the headers give the same
// articles.
func TestINNHeadFallback(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := innRequest(proto.Options{}, nil)
	c, err := (&Driver{}).connect(ctx, &target{addr: s.Addr}, req)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if _, _, err := c.cmd(ctx, StatusGroupSelected, "GROUP local.test"); err != nil {
		t.Fatal(err)
	}
	var raw bytes.Buffer
	ovs, err := (&Driver{}).headSummary(ctx, c, 1, 7, &raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(ovs) != 6 || ovs[1].MessageID != "<test-2@fetch.invalid>" || ovs[5].Number != 7 {
		t.Errorf("HEAD summary = %+v", ovs)
	}
}

func TestINNGroups(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	resp, _, err := innFetch(t, "news:*", withServer(s.Addr))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]proto.Entry{}
	for _, e := range resp.Entries {
		got[e.Name] = e
	}
	for _, g := range []string{"local.empty", "local.other", "local.test"} {
		e, ok := got[g]
		if !ok {
			t.Errorf("news:* lacks %s: %v", g, resp.Entries)
			continue
		}
		if e.URL != "news:"+g || e.Extra["description"] == "" {
			t.Errorf("%s = %+v", g, e)
		}
	}
	if e := got["local.test"]; e.Extra["high"] != "7" || e.Extra["low"] != "1" {
		t.Errorf("local.test = %+v", e)
	}
}

func TestINNRefusals(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	opts := withServer(s.Addr)
	tests := []struct {
		url  string
		code int
	}{
		{"nntp://" + s.Addr + "/local.nonexistent/1", 411},
		{"nntp://" + s.Addr + "/local.nonexistent", 411},
		{"news:local.nonexistent", 411},
		{"nntp://" + s.Addr + "/local.test/6", 423},
		{"nntp://" + s.Addr + "/local.test/999", 423},
		{"news:nonexistent@fetch.invalid", 430},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			_, _, err := innFetch(t, tt.url, opts)
			if !errors.Is(err, proto.ErrNotFound) {
				t.Fatalf("Fetch = %v, want ErrNotFound", err)
			}
			var te *textproto.Error
			if !errors.As(err, &te) || te.Code != tt.code {
				t.Errorf("Fetch = %v, want code %d", err, tt.code)
			}
			// The code is checked above through the type; this is the
			// message the user sees, which must show it too.
			if !strings.Contains(err.Error(), strconv.Itoa(tt.code)) {
				t.Errorf("message %q lacks the server's code", err)
			}
		})
	}
}

// TestINNWire checks, through a logging relay of its own, the exact
// commands nnrpd received for one article.
func TestINNWire(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	relay := servertest.StartRelay(t, s.Addr)
	var trace bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := (&Driver{}).Fetch(ctx, uri.MustParse("nntp://"+relay.Addr+"/local.other/2"), innRequest(proto.Options{}, &trace))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	wantTrace := []string{"> MODE READER", "> GROUP local.other", "< 211 2 1 2 local.other", "> ARTICLE 2", "< 220 2 <other-2@fetch.invalid>", "> QUIT"}
	for _, w := range wantTrace {
		if !strings.Contains(trace.String(), w) {
			t.Errorf("trace lacks %q:\n%s", w, trace.String())
		}
	}
	wantWire := []string{"GROUP local.other\\r", "ARTICLE 2\\r", "QUIT\\r"}
	wire := relay.Until(t, 0, 10*time.Second, func(wire string) bool {
		for _, w := range wantWire {
			if !strings.Contains(wire, w) {
				return false
			}
		}
		return true
	})
	for _, w := range wantWire {
		if !strings.Contains(wire, w) {
			t.Errorf("relay log lacks %q:\n%s", w, wire)
		}
	}
}

// TestINNArticleNumbers asks nnrpd for the numbers of local.test with
// LISTGROUP and a range (RFC 3977 section 6.1.2), and STATs 0 to 9
// pipelined: the numbers found are the overview's, each with its
// message-id, and the session goes on in step.
func TestINNArticleNumbers(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := (&Driver{Pipeline: 4}).Open(ctx, uri.MustParse("nntp://"+s.Addr+"/local.test"), innRequest(proto.Options{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	nums, err := sess.ArticleNumbers(ctx, "local.test", 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	ovs, err := sess.Overview(ctx, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[int64]string{}
	var want []int64
	for _, ov := range ovs {
		want = append(want, ov.Number)
		ids[ov.Number] = ov.MessageID
	}
	if len(want) < 2 || !slices.Equal(nums, want) {
		t.Fatalf("LISTGROUP numbers %v, overview's %v", nums, want)
	}
	if part, err := sess.ArticleNumbers(ctx, "local.test", want[1], want[1]); err != nil || len(part) != 1 || part[0] != want[1] {
		t.Errorf("LISTGROUP of %d alone: %v, %v", want[1], part, err)
	}
	var found []int64
	err = sess.StatEach(ctx, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, func(n int64, id string, ok bool) error {
		if ok {
			found = append(found, n)
			if id != ids[n] {
				t.Errorf("STAT %d: message-id %q, overview's %q", n, id, ids[n])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(found, want) {
		t.Errorf("STAT found %v, want %v", found, want)
	}
	if _, ok, err := sess.Stat(ctx, want[0]); err != nil || !ok {
		t.Errorf("STAT after the pipelined ones: %v, %v", ok, err)
	}
}

// TestINNOverviewEmptyRange asks nnrpd for the overview of ranges of
// local.test that hold no article: the gap at 6 and numbers far past its
// high water mark. nnrpd answers OVER "423 No articles in 100000-200000"
// (RFC 3977 section 8.3.2); Overview gives no lines and no error, the
// summary of the group stands, and the session goes on in step.
func TestINNOverviewEmptyRange(t *testing.T) {
	s := servertest.Get(t, servertest.NNTP)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var trace bytes.Buffer
	sess, err := (&Driver{}).Open(ctx, uri.MustParse("nntp://"+s.Addr+"/local.test"), innRequest(proto.Options{}, &trace))
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	g, err := sess.Group(ctx, "local.test")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{6, 6}, {100000, 200000}} {
		if lines, err := sess.Overview(ctx, r[0], r[1]); err != nil || len(lines) != 0 {
			t.Errorf("Overview(%d, %d) = %v, %v; want no lines, no error", r[0], r[1], lines, err)
		}
	}
	if !strings.Contains(trace.String(), "< 423 ") {
		t.Errorf("nnrpd did not answer 423 to an empty range; trace:\n%s", trace.String())
	}
	if lines, err := sess.Overview(ctx, g.Low, g.High); err != nil || len(lines) == 0 {
		t.Errorf("Overview(%d, %d) after the empty ranges = %v, %v", g.Low, g.High, lines, err)
	}
}
