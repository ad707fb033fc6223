package mirror

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/uri"
)

// newsFetcher is the mirror's view of proto/nntp, as fetch.Client gives
// it (without the safety policy).
type newsFetcher struct{ d *nntp.Driver }

func (f newsFetcher) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return f.d.Fetch(ctx, u, req)
}

func (f newsFetcher) OpenNews(ctx context.Context, u *uri.URL, req *proto.Request) (NewsSession, error) {
	s, err := f.d.Open(ctx, u, req)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// The nntp.Session is the mirror's session as fetch.Client gives it: a
// signature that drifts from NewsNumberer's must not compile (the mirror
// would STAT one number at a time, and TestNewsMirrorSparse see it only
// by its clock).
var (
	_ NewsSession  = (*nntp.Session)(nil)
	_ NewsNumberer = (*nntp.Session)(nil)
)

func article(i int, groups ...string) string {
	return fmt.Sprintf("From: p%d@x\nNewsgroups: %s\nMessage-ID: <m%d@x>\n\nbody %d\n.leading dot\nFrom the start\n", i, strings.Join(groups, ","), i, i)
}

// fillNews posts 30 articles: n.a gets 1..20, n.b 1..15 of which every
// fifth is a crosspost also in n.a.
func fillNews(s *fetchtest.NNTP) {
	a, b := int64(0), int64(0)
	for i := range 30 {
		switch {
		case i%5 == 0:
			a++
			b++
			s.Post(article(i, "n.a", "n.b"), []string{"n.a", "n.b"}, []int64{a, b})
		case i%2 == 0:
			a++
			s.Post(article(i, "n.a"), []string{"n.a"}, []int64{a})
		default:
			b++
			s.Post(article(i, "n.b"), []string{"n.b"}, []int64{b})
		}
	}
}

func newsRunOpts(jobs int) Options {
	return Options{Jobs: jobs, Request: proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}}
}

func mirrorNews(t *testing.T, raw, dir string, opts Options) *Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse(raw), dir, opts)
	if err != nil {
		t.Fatalf("Run(%s) = %v", raw, err)
	}
	return sum
}

func TestNewsMirror(t *testing.T) {
	for _, over := range []string{"OVER", "XOVER", ""} {
		for _, jobs := range []int{1, 3} {
			t.Run(fmt.Sprintf("over=%q/j=%d", over, jobs), func(t *testing.T) {
				srv := &fetchtest.NNTP{Over: over}
				fillNews(srv)
				srv.AddGroup("other")
				srv.Start(t)
				dir := t.TempDir()
				raw := "nntp://" + srv.Addr + "/n.*"
				sum := mirrorNews(t, raw, dir, newsRunOpts(jobs))
				if sum.New != 30+6 || sum.Failed != 0 {
					t.Fatalf("first run: %+v", sum)
				}
				// 30 distinct articles, 6 of them crossposted: 30 ARTICLE commands.
				if n := srv.Count("ARTICLE "); n != 30 {
					t.Errorf("%d ARTICLE commands for 30 distinct articles", n)
				}
				if over == "" && srv.Count("STAT ") == 0 {
					t.Error("no STAT on a server without an overview")
				}
				a1, err1 := os.Stat(filepath.Join(dir, "n", "a", "1"))
				b1, err2 := os.Stat(filepath.Join(dir, "n", "b", "1"))
				if err1 != nil || err2 != nil || !os.SameFile(a1, b1) {
					t.Errorf("crosspost n.a:1 n.b:1 not one linked file: %v %v", err1, err2)
				}
				got, _ := os.ReadFile(filepath.Join(dir, "n", "a", "2"))
				if want := article(2, "n.a"); string(got) != want {
					t.Errorf("n/a/2 = %q, want %q", got, want)
				}
				if _, err := os.Stat(filepath.Join(dir, "other")); err == nil {
					t.Error("a group outside the wildmat was mirrored")
				}
				m := readManifest(t, dir)
				if m.Groups["n.a"] != (GroupMark{High: 18, Low: 1}) || m.Groups["n.b"] != (GroupMark{High: 18, Low: 1}) {
					t.Errorf("manifest groups = %+v", m.Groups)
				}
				if len(m.MessageIDs) != 30 || len(m.Files) != 36 {
					t.Errorf("manifest: %d ids, %d files; want 30, 36", len(m.MessageIDs), len(m.Files))
				}

				// Second run: no ARTICLE, nothing new.
				srv.ResetLog()
				sum = mirrorNews(t, raw, dir, newsRunOpts(jobs))
				if sum.New != 0 || srv.Count("ARTICLE ") != 0 {
					t.Errorf("second run: new %d, %d ARTICLE", sum.New, srv.Count("ARTICLE "))
				}

				// New articles, one crossposted: only they are fetched.
				srv.Post(article(100, "n.a", "n.b"), []string{"n.a", "n.b"}, []int64{19, 19})
				srv.Post(article(101, "n.b"), []string{"n.b"}, []int64{20})
				srv.ResetLog()
				sum = mirrorNews(t, raw, dir, newsRunOpts(jobs))
				if sum.New != 3 || srv.Count("ARTICLE ") != 2 {
					t.Errorf("third run: new %d, %d ARTICLE: %q", sum.New, srv.Count("ARTICLE "), srv.Log())
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "n", "b", "20")); string(got) != article(101, "n.b") {
					t.Errorf("n/b/20 = %q", got)
				}
			})
		}
	}
}

func readManifest(t *testing.T, dir string) *manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		t.Fatal(err)
	}
	m := &manifest{}
	if err := json.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
	return m
}

// --delete removes the articles the server expired; --max-articles keeps
// to the newest.
func TestNewsMirrorDeleteAndMax(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i := 1; i <= 10; i++ {
		srv.Post(article(i, "g"), []string{"g"}, []int64{int64(i)})
	}
	srv.Start(t)
	dir := t.TempDir()
	raw := "news:g"
	opts := newsRunOpts(1)
	opts.Request.Options = proto.Options{NNTP: proto.NNTPOptions{Server: srv.Addr}}
	opts.MaxArticles = 4
	sum := mirrorNews(t, raw, dir, opts)
	if sum.New != 4 {
		t.Fatalf("--max-articles 4: new %d", sum.New)
	}
	for i := 1; i <= 10; i++ {
		_, err := os.Stat(filepath.Join(dir, "g", fmt.Sprint(i)))
		if (err == nil) != (i > 6) {
			t.Errorf("article %d present = %v with --max-articles 4", i, err == nil)
		}
	}
	srv.Expire("g", 7) // below the new low water mark
	srv.Expire("g", 9) // missing from the overview
	opts.MaxArticles = 0
	opts.Delete = true
	sum = mirrorNews(t, raw, dir, opts)
	if sum.Deleted != 2 {
		t.Errorf("--delete: deleted %d, want 2: %+v", sum.Deleted, sum.Entries)
	}
	for _, n := range []string{"7", "9"} {
		if _, err := os.Stat(filepath.Join(dir, "g", n)); err == nil {
			t.Errorf("expired article %s kept with --delete", n)
		}
	}
	for _, n := range []string{"8", "10"} {
		if _, err := os.Stat(filepath.Join(dir, "g", n)); err != nil {
			t.Errorf("article %s: %v", n, err)
		}
	}
	m := readManifest(t, dir)
	if _, ok := m.Files["g/7"]; ok {
		t.Error("the manifest keeps a deleted article")
	}
	if _, ok := m.MessageIDs["<m9@x>"]; ok {
		t.Error("the Message-ID index keeps a deleted article")
	}
}

// A password in the URL never reaches the summary, the manifest or the
// trace.
func TestNewsMirrorPasswordNotShown(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER", User: "u", Pass: "pw-9f3k"}
	srv.Post(article(1, "g"), []string{"g"}, []int64{1})
	srv.Start(t)
	dir := t.TempDir()
	var trace bytes.Buffer
	opts := newsRunOpts(1)
	opts.Request.Trace = &trace
	sum := mirrorNews(t, "nntp://u:pw-9f3k@"+srv.Addr+"/g", dir, opts)
	js, _ := json.Marshal(sum)
	man, _ := os.ReadFile(filepath.Join(dir, manifestName))
	for what, b := range map[string][]byte{"summary": js, "manifest": man, "trace": trace.Bytes()} {
		if bytes.Contains(b, []byte("pw-9f3k")) {
			t.Errorf("the %s shows the password:\n%s", what, b)
		}
	}
	if sum.New != 1 {
		t.Errorf("new %d", sum.New)
	}
}

// A cancelled run stops and a re-run completes the mirror.
func TestNewsMirrorCancel(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER", Stall: make(chan struct{})}
	srv.Post(article(1, "g"), []string{"g"}, []int64{1})
	srv.Start(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse("nntp://"+srv.Addr+"/g"), dir, newsRunOpts(1))
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 3*time.Second {
		t.Fatalf("cancelled run = %v after %v", err, time.Since(t0))
	}
	if _, err := os.Stat(filepath.Join(dir, "g", "1")); err == nil {
		t.Error("an article stands after a cancelled transfer")
	}
	close(srv.Stall)
	sum := mirrorNews(t, "nntp://"+srv.Addr+"/g", dir, newsRunOpts(1))
	if sum.New != 1 {
		t.Errorf("re-run: new %d", sum.New)
	}
}

// Group names that would leave the target are skipped.
func TestGroupDir(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"comp.lang.go", "comp/lang/go", true}, // tradspool layout (INN storage.conf(5))
		{"alt", "alt", true},
		{"a..b", "", false},
		{".a", "", false},
		{"a/b", "", false},
		{"a.\x01", "", false},
		{".fetch.x", "", false},
	} {
		got, err := groupDir(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("groupDir(%q) = %q, %v", tt.in, got, err)
		}
	}
}

// The exports hold each distinct article once (crossposts once), the mbox
// quoted as mboxrd, the maildir without a second delivery on a re-export.
func TestNewsExport(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	fillNews(srv)
	srv.Start(t)
	dir := t.TempDir()
	mirrorNews(t, "nntp://"+srv.Addr+"/n.*", dir, newsRunOpts(2))
	out := filepath.Join(t.TempDir(), "x.mbox")
	n, err := ExportMbox(dir, out)
	if err != nil || n != 30 {
		t.Fatalf("ExportMbox = %d, %v; want 30", n, err)
	}
	b, _ := os.ReadFile(out)
	msgs := strings.Split(string(b), "\n\nFrom ")
	if len(msgs) != 30 || !strings.HasPrefix(msgs[0], "From p0@x ") {
		t.Fatalf("%d messages in the mbox; it starts %q", len(msgs), b[:min(len(b), 40)])
	}
	// Message 1 in order: n.a's article 2, posting 2.
	_, body, _ := strings.Cut(msgs[1], "\n")
	if want := article(2, "n.a"); strings.ReplaceAll(body, "\n>From the start", "\nFrom the start")+"\n" != want {
		t.Errorf("second message = %q, want %q quoted", body, want)
	}
	if strings.Contains(string(b), "\nFrom the start") {
		t.Error("a body line starting \"From \" is not quoted")
	}
	md := filepath.Join(t.TempDir(), "Maildir")
	if n, err := ExportMaildir(dir, md); err != nil || n != 30 {
		t.Fatalf("ExportMaildir = %d, %v", n, err)
	}
	if n, err := ExportMaildir(dir, md); err != nil || n != 0 {
		t.Errorf("second ExportMaildir = %d, %v; want 0", n, err)
	}
	ents, _ := os.ReadDir(filepath.Join(md, "new"))
	tmp, _ := os.ReadDir(filepath.Join(md, "tmp"))
	if len(ents) != 30 || len(tmp) != 0 {
		t.Errorf("maildir: %d in new, %d in tmp", len(ents), len(tmp))
	}
}

// A hostile server whose article never ends: the mirror reads no more than
// maxArticle bytes of it, reports it failed and ends the run (exit 8).
func TestNewsMirrorEndlessArticle(t *testing.T) {
	old := maxArticle
	maxArticle = 64 << 10
	defer func() { maxArticle = old }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var sent atomic.Int64
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(c)
		fmt.Fprintf(c, "200 hostile\r\n")
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch f := strings.Fields(line); strings.ToUpper(f[0]) {
			case "GROUP":
				fmt.Fprintf(c, "211 1 1 1 g\r\n")
			case "OVER":
				fmt.Fprintf(c, "224 ok\r\n1\ts\tf\td\t<e@x>\t\t1\t1\r\n.\r\n")
			case "ARTICLE":
				fmt.Fprintf(c, "220 1 <e@x>\r\n")
				chunk := []byte(strings.Repeat("endless line\r\n", 1000))
				for sent.Load() < 1<<30 {
					if _, err := c.Write(chunk); err != nil {
						return
					}
					sent.Add(int64(len(chunk)))
				}
				return
			case "CAPABILITIES":
				fmt.Fprintf(c, "101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n")
			default:
				fmt.Fprintf(c, "200 ok\r\n")
			}
		}
	}()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sum, err := Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse("nntp://"+ln.Addr().String()+"/g"), dir, newsRunOpts(1))
	if !errors.Is(err, ErrPartial) || sum.Failed == 0 {
		t.Fatalf("endless article: %v, %+v", err, sum)
	}
	if n := sent.Load(); n > 16<<20 {
		t.Errorf("the mirror read on: the server sent %d bytes", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "g", "1")); err == nil {
		t.Error("a file stands for the endless article")
	}
	if m := readManifest(t, dir); m.Groups["g"].High != 0 {
		t.Errorf("the high water mark moved past a failed article: %+v", m.Groups)
	}
}

// FuzzGroupDir: a group's directory is a valid relative path inside the
// target (checkRel), made of the name's dot-separated parts, or an error.
func FuzzGroupDir(f *testing.F) {
	for _, s := range []string{"comp.lang.go", "a..b", ".fetch", "x/y", "a.\x00", "é.日本", "..", "a.b."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, g string) {
		rel, err := groupDir(g)
		if err != nil {
			return
		}
		if checkRel(rel) != nil || strings.Contains(rel, "..") || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, ".fetch") {
			t.Fatalf("groupDir(%q) = %q, outside the target", g, rel)
		}
		if strings.ReplaceAll(rel, "/", ".") != g {
			t.Fatalf("groupDir(%q) = %q, not the group's parts", g, rel)
		}
	})
}

// One large group is fetched on several of the -j connections, in chunks, each
// connection selecting the group; the high water mark is the group's.
func TestNewsMirrorOneGroupManyConnections(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i := 1; i <= 200; i++ {
		srv.Post(article(i, "big"), []string{"big"}, []int64{int64(i)})
	}
	srv.Start(t)
	dir := t.TempDir()
	sum := mirrorNews(t, "nntp://"+srv.Addr+"/big", dir, newsRunOpts(4))
	if sum.New != 200 || srv.Count("ARTICLE ") != 200 {
		t.Fatalf("new %d, %d ARTICLE", sum.New, srv.Count("ARTICLE "))
	}
	// Four chunks of 50 for four workers; how many connections take them
	// depends on the scheduler (a worker done with its chunk takes the
	// next one queued before an idle worker wakes, as it did in a CI run
	// on a busy machine): more than one, at most four, and each selects
	// the group once.
	conns := srv.Count("MODE READER")
	if conns < 2 || conns > 4 {
		t.Errorf("%d connections for -j 4 and 200 articles, want 2 to 4", conns)
	}
	if n := srv.Count("GROUP big"); n != conns {
		t.Errorf("GROUP sent %d times on %d connections, want once per connection", n, conns)
	}
	if m := readManifest(t, dir); m.Groups["big"].High != 200 {
		t.Errorf("high water mark %+v", m.Groups)
	}
	srv.ResetLog()
	sum = mirrorNews(t, "nntp://"+srv.Addr+"/big", dir, newsRunOpts(4))
	if sum.New != 0 || srv.Count("MODE READER") != 1 {
		t.Errorf("second run: new %d, %d connections; want 0 and 1", sum.New, srv.Count("MODE READER"))
	}
}

// A crosspost met while another connection fetched its first copy waits
// for the end of the run; when that copy was not stored it is fetched
// under its own group, and when that fails too, the group's high water
// mark drops below it so that the next run asks again.
func TestNewsLinkLater(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	srv.Post(article(3, "n.a", "n.b"), []string{"n.a", "n.b"}, []int64{1, 3})
	srv.Start(t)
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	r := &run{root: root, m: &manifest{Version: 1, Files: map[string]Record{}, Groups: map[string]GroupMark{"n.b": {High: 5}, "n.c": {High: 8}}},
		opts: newsRunOpts(1), sum: &Summary{}, jobs: 1, dirs: newDirs(root), seen: newPathSet(), reported: map[string]bool{}}
	nr := &newsRun{run: r, d: newsFetcher{&nntp.Driver{}}, start: uri.MustParse("nntp://" + srv.Addr + "/n.*"), server: srv.Addr, inFlight: map[string]bool{}}
	nr.later = []pendingLink{
		{group: "n.b", rel: "n/b/3", url: "u3", id: "<m3@x>", n: 3},
		{group: "n.b", rel: "n/b/4", url: "u4", id: "<gone@x>", n: 4}, // expired: 423
		{group: "n.c", rel: "n/c/7", url: "u7", id: "<m7@x>", n: 7},   // no such group: 411
	}
	nr.linkLater(context.Background())
	r.dirs.close()
	if got, err := os.ReadFile(filepath.Join(dir, "n", "b", "3")); err != nil || string(got) != article(3, "n.a", "n.b") {
		t.Errorf("n/b/3 = %q, %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "n", "b", "4")); err == nil {
		t.Error("an expired crosspost was stored")
	}
	if r.m.MessageIDs["<m3@x>"] != "n/b/3" || r.m.Groups["n.b"].High != 5 || r.m.Groups["n.c"].High != 6 {
		t.Errorf("manifest ids %v groups %v; want n.c's mark below 7", r.m.MessageIDs, r.m.Groups)
	}
	if r.sum.New != 1 || r.sum.Failed != 1 {
		t.Errorf("summary new %d failed %d, want 1 and 1: %+v", r.sum.New, r.sum.Failed, r.sum.Entries)
	}
}

// --dry-run lists what would be fetched and writes nothing.
func TestNewsMirrorDryRun(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i := 1; i <= 3; i++ {
		srv.Post(article(i, "g"), []string{"g"}, []int64{int64(i)})
	}
	srv.Start(t)
	dir := filepath.Join(t.TempDir(), "target")
	opts := newsRunOpts(2)
	opts.DryRun = true
	sum := mirrorNews(t, "nntp://"+srv.Addr+"/g", dir, opts)
	if sum.New != 3 || srv.Count("ARTICLE ") != 0 {
		t.Errorf("dry run: new %d, %d ARTICLE", sum.New, srv.Count("ARTICLE "))
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("a dry run made the target")
	}
}

// A news mirror fetches by group and number: it is never split into
// shards (each shard would fetch every article), and its manifest, whose
// high water marks hold for one run only, is not merged with others.
func TestNewsMirrorNoShards(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	srv.Post(article(1, "g"), []string{"g"}, []int64{1})
	srv.Start(t)
	dir := t.TempDir()
	opts := newsRunOpts(1)
	opts.Shard, opts.Shards = 1, 4
	_, err := Run(t.Context(), newsFetcher{&nntp.Driver{}}, uri.MustParse("nntp://"+srv.Addr+"/g"), dir, opts)
	if !errors.Is(err, ErrShard) {
		t.Fatalf("news mirror with shard 1/4: %v, want ErrShard", err)
	}
	if n := srv.Count("ARTICLE "); n != 0 {
		t.Errorf("a refused shard sent %d ARTICLE", n)
	}

	mirrorNews(t, "nntp://"+srv.Addr+"/g", dir, newsRunOpts(1))
	out := filepath.Join(t.TempDir(), "merged.json")
	if err := MergeManifests(out, dir); err == nil {
		t.Error("MergeManifests of a news mirror's manifest: no error")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused merge wrote its output")
	}
}

// The overview of a big group is asked for in ranges of overviewChunk
// numbers (10,000; 100 here: OVER 1-100, OVER 101-200, OVER 201-234), and
// every article of every range is fetched. One OVER for the whole range
// could outgrow the listing limit of a real archive group.
func TestNewsMirrorOverviewInRanges(t *testing.T) {
	defer func(c int64) { overviewChunk = c }(overviewChunk)
	overviewChunk = 100
	const n = 234
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i := int64(1); i <= n; i++ {
		srv.Post(fmt.Sprintf("Message-ID: <big%d@x>\n\nbody %d\n", i, i), []string{"big.group"}, []int64{i})
	}
	srv.Start(t)
	dir := t.TempDir()
	sum := mirrorNews(t, "nntp://"+srv.Addr+"/big.group", dir, newsRunOpts(4))
	if sum.New != n || sum.Failed != 0 {
		t.Fatalf("new %d failed %d, want %d and 0", sum.New, sum.Failed, n)
	}
	var overs []string
	for _, l := range srv.Log() {
		if strings.HasPrefix(l, "OVER") {
			overs = append(overs, l)
		}
	}
	if want := []string{"OVER 1-100", "OVER 101-200", "OVER 201-234"}; !slices.Equal(overs, want) {
		t.Errorf("overview commands %q, want %q", overs, want)
	}
	for _, i := range []int{1, 100, 101, n} {
		if b, err := os.ReadFile(filepath.Join(dir, "big", "group", strconv.Itoa(i))); err != nil || !strings.Contains(string(b), fmt.Sprintf("body %d\n", i)) {
			t.Errorf("article %d: %q, %v", i, b, err)
		}
	}
}

// A group with a gap wider than an overview range: articles 1-15 and
// 46-60, 30 in 60 numbers, asked for in ranges of 20 (overviewChunk 10 at
// the density the count gives, overviewWidth): OVER 21-40 holds no
// article, which INN answers "423 No articles in 21-40" (RFC 3977 section
// 8.3.2) and an RFC 2980 server 420. Either way the walk goes on and all
// 30 articles come. Before, the 423 failed the group: "group g: nntp:
// OVER 1-10000: not found: 423", on every run, for any group with 10,000
// numbers in a row expired.
func TestNewsMirrorOverviewGap(t *testing.T) {
	defer func(c int64) { overviewChunk = c }(overviewChunk)
	overviewChunk = 10
	for _, tc := range []struct {
		over  string
		empty int // fetchtest.NNTP.EmptyRange: 0 as INN
	}{
		{"OVER", 0}, {"OVER", 420}, {"XOVER", 0}, {"XOVER", 420},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.over, tc.empty), func(t *testing.T) {
			srv := &fetchtest.NNTP{Over: tc.over, EmptyRange: tc.empty}
			for n := int64(1); n <= 60; n++ {
				if n <= 15 || n >= 46 {
					srv.Post(article(int(n), "gap.g"), []string{"gap.g"}, []int64{n})
				}
			}
			srv.Start(t)
			dir := t.TempDir()
			sum := mirrorNews(t, "nntp://"+srv.Addr+"/gap.g", dir, newsRunOpts(2))
			if sum.New != 30 || sum.Failed != 0 {
				t.Fatalf("new %d failed %d, want 30 and 0: %+v", sum.New, sum.Failed, sum.Entries)
			}
			var overs []string
			for _, l := range srv.Log() {
				if strings.HasPrefix(l, tc.over+" ") {
					overs = append(overs, strings.TrimPrefix(l, tc.over+" "))
				}
			}
			if want := []string{"1-20", "21-40", "41-60"}; !slices.Equal(overs, want) {
				t.Errorf("%s ranges %q, want %q", tc.over, overs, want)
			}
			if m := readManifest(t, dir); m.Groups["gap.g"].High != 60 {
				t.Errorf("high water mark %+v, want 60", m.Groups)
			}
		})
	}
}

// A server claims a group of 10^12 numbers, "211 0 1 1000000000000"
// (count 0: empty, RFC 3977 section 6.1.1.2), or holds 5 articles spread
// over them. The overview is asked for in one OVER (overviewWidth), and
// a server without one is not STATed number by number when the count is
// 0. Before, the mirror asked OVER 1-10000, OVER 10001-20000, ... each
// answered 423: 94,985 commands in 3 s of the 10^8 the range needs,
// until the run was cancelled.
func TestNewsMirrorClaimedRange(t *testing.T) {
	const top = 1000000000000
	spread := []int64{1, 1000000, 1000000000, top - 1, top}
	for _, tc := range []struct {
		name            string
		over, listGroup string
		nums            []int64 // the articles; none: GROUP claims count 0, 1-top
		commands        map[string]int
	}{
		{"count 0/OVER", "OVER", "", nil, map[string]int{"OVER ": 1}},
		{"count 0/XOVER", "XOVER", "", nil, map[string]int{"XOVER ": 1}},
		{"count 0/LISTGROUP", "", "range", nil, map[string]int{"LISTGROUP": 0, "STAT ": 0}},
		{"count 0/STAT", "", "", nil, map[string]int{"STAT ": 0}},
		{"count 5/OVER", "OVER", "", spread, map[string]int{"OVER ": 1, "ARTICLE ": 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &fetchtest.NNTP{Over: tc.over, ListGroup: tc.listGroup}
			srv.AddGroup("wide.g")
			if tc.nums == nil {
				srv.Marks = map[string][3]int64{"wide.g": {0, 1, top}}
			}
			for i, n := range tc.nums {
				srv.Post(article(i, "wide.g"), []string{"wide.g"}, []int64{n})
			}
			srv.Start(t)
			dir := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			sum, err := Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse("nntp://"+srv.Addr+"/wide.g"), dir, newsRunOpts(2))
			if err != nil || sum.New != len(tc.nums) || sum.Failed != 0 {
				t.Fatalf("Run = %v, %d new, %d failed; want %d new", err, sum.New, sum.Failed, len(tc.nums))
			}
			for prefix, want := range tc.commands {
				if n := srv.Count(prefix); n != want {
					t.Errorf("%d %q commands, want %d", n, prefix, want)
				}
			}
			if m := readManifest(t, dir); m.Groups["wide.g"].High != top {
				t.Errorf("mark %+v, want %d", m.Groups, int64(top))
			}
		})
	}
}

// oneByOne is a newsFetcher whose sessions are not NewsNumberers: the
// mirror STATs one number at a time, as for a NewsSession of its own.
type oneByOne struct{ newsFetcher }

func (f oneByOne) OpenNews(ctx context.Context, u *uri.URL, req *proto.Request) (NewsSession, error) {
	s, err := f.newsFetcher.OpenNews(ctx, u, req)
	if err != nil {
		return nil, err
	}
	return struct{ NewsSession }{s}, nil
}

// TestNewsMirrorSparse mirrors, from a server without an overview, a
// group whose numbers run to 20,000 but which holds five articles (the
// others expired, as in an old archive). With LISTGROUP (RFC 3977 section
// 6.1.2 with a range, or RFC 2980's without) only the five are STATed;
// without it every number is, 64 at a time; a session that is no
// NewsNumberer STATs them one by one. Each way the five articles come
// byte-exact.
func TestNewsMirrorSparse(t *testing.T) {
	nums := []int64{1, 7, 9000, 15000, 20000}
	for _, tc := range []struct {
		listGroup string
		oneByOne  bool
		maxList   int64 // Driver.MaxListBytes
		stats     int
	}{
		{"range", false, 0, 5},
		{"plain", false, 0, 5},
		{"", false, 0, 20000},
		{"range", true, 0, 20000},
		// RFC 2980's whole list of the group could outgrow the limit
		// on a list (5 articles of 6 bytes, 20 allowed): every number
		// is STATed, the group not failed.
		{"plain", false, 20, 20000},
	} {
		t.Run(fmt.Sprintf("listgroup=%q/onebyone=%v/maxlist=%d", tc.listGroup, tc.oneByOne, tc.maxList), func(t *testing.T) {
			srv := &fetchtest.NNTP{ListGroup: tc.listGroup}
			for i, n := range nums {
				srv.Post(article(i, "old.g"), []string{"old.g"}, []int64{n})
			}
			srv.Start(t)
			dir := t.TempDir()
			d := &nntp.Driver{MaxListBytes: tc.maxList}
			var f Fetcher = newsFetcher{d}
			if tc.oneByOne {
				f = oneByOne{newsFetcher{d}}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			sum, err := Run(ctx, f, uri.MustParse("nntp://"+srv.Addr+"/old.*"), dir, newsRunOpts(2))
			if err != nil {
				t.Fatal(err)
			}
			if sum.New != len(nums) || sum.Failed != 0 {
				t.Fatalf("summary %+v, want %d new", sum, len(nums))
			}
			if n := srv.Count("STAT "); n != tc.stats {
				t.Errorf("%d STAT commands, want %d", n, tc.stats)
			}
			// Pipelined, the server holds STATs beyond the one it
			// reads; one at a time, never.
			if a := srv.Ahead("STAT"); tc.oneByOne && a != 0 || !tc.oneByOne && a < 1 {
				t.Errorf("at most %d STATs received ahead, want %s", a, map[bool]string{true: "0 (one at a time)", false: "1 or more (pipelined)"}[tc.oneByOne])
			}
			for i, n := range nums {
				got, err := os.ReadFile(filepath.Join(dir, "old", "g", strconv.FormatInt(n, 10)))
				if want := article(i, "old.g"); err != nil || string(got) != want {
					t.Errorf("old/g/%d = %q, %v; want %q", n, got, err, want)
				}
			}
		})
	}
}

// A group renumbered on the server: its articles 1-5 mirrored, then all
// expired and three others posted as 1-3 (a spool rebuilt), so that the
// server's high water mark, 3, is below the 5 recorded. Before, the
// mirror asked from 6 on: the new articles were never fetched, the files
// 1-3 kept the old ones under their numbers, exit 0 and nothing new. Now
// the run says so (a failed entry for the group naming both marks, exit
// 8), lists the group again from its low water mark, and does not
// overwrite the files 1-3, which hold other articles (failed, each run,
// until the user moves them aside); the recorded mark drops below them.
// With them moved, the next run fetches the server's 1-3; the old 4
// left in place is not overwritten by the server's new 4.
func TestNewsMirrorRenumbered(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i := 1; i <= 5; i++ {
		srv.Post(article(i, "g"), []string{"g"}, []int64{int64(i)})
	}
	srv.Start(t)
	dir := t.TempDir()
	run := newsRunner(t, srv, "g", dir)
	if sum, err := run(); err != nil || sum.New != 5 {
		t.Fatalf("first run: %v, %+v", err, sum)
	}
	for i := 1; i <= 5; i++ {
		srv.Expire("g", int64(i))
	}
	for i := 1; i <= 3; i++ {
		srv.Post(article(100+i, "g"), []string{"g"}, []int64{int64(i)})
	}
	sum, err := run()
	if !errors.Is(err, ErrPartial) || sum.New != 0 {
		t.Errorf("renumbered: %v, %d new; want ErrPartial, 0", err, sum.New)
	}
	if got, want := failed(sum), []string{"g", "g/1", "g/2", "g/3"}; !slices.Equal(got, want) {
		t.Errorf("failed %q, want %q: %+v", got, want, sum.Entries)
	}
	for _, e := range sum.Entries {
		if e.Path == "g" && !(strings.Contains(e.Reason, "g:") && strings.Contains(e.Reason, " 3 ") && strings.Contains(e.Reason, " 5 ")) {
			t.Errorf("the group's entry does not name it and both marks, 3 and 5: %q", e.Reason)
		}
	}
	for i := 1; i <= 5; i++ {
		if b, _ := os.ReadFile(filepath.Join(dir, "g", strconv.Itoa(i))); string(b) != article(i, "g") {
			t.Errorf("g/%d = %q, want the old article %d kept", i, b, i)
		}
	}
	if m := readManifest(t, dir); m.Groups["g"].High != 0 {
		t.Errorf("mark %+v, want 0: below the articles that were not stored", m.Groups["g"])
	}
	// Again: no word of the marks, the three files still fail.
	sum, err = run()
	if got, want := failed(sum), []string{"g/1", "g/2", "g/3"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) {
		t.Errorf("next run: %v, failed %q; want %q", err, got, want)
	}
	// The user moves them aside: the server's articles come.
	for i := 1; i <= 3; i++ {
		os.Rename(filepath.Join(dir, "g", strconv.Itoa(i)), filepath.Join(t.TempDir(), "old"))
	}
	sum, err = run()
	if err != nil || sum.New != 3 {
		t.Errorf("after moving the old files: %v, %d new; want 3", err, sum.New)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "g", "1")); string(b) != article(101, "g") {
		t.Errorf("g/1 = %q, want the server's article 101", b)
	}
	if m := readManifest(t, dir); m.Groups["g"].High != 3 {
		t.Errorf("mark %+v, want 3", m.Groups["g"])
	}
	// The server's new 4 meets the old 4, left in place.
	srv.Post(article(104, "g"), []string{"g"}, []int64{4})
	sum, err = run()
	if got, want := failed(sum), []string{"g/4"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) {
		t.Errorf("new 4: %v, failed %q; want %q", err, got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "g", "4")); string(b) != article(4, "g") {
		t.Errorf("g/4 = %q, want the old article 4 kept", b)
	}
}

// newsRunner returns a function that mirrors group from srv into dir, two
// jobs, 30 s at the most.
func newsRunner(t *testing.T, srv *fetchtest.NNTP, group, dir string) func() (*Summary, error) {
	u := uri.MustParse("nntp://" + srv.Addr + "/" + group)
	return func() (*Summary, error) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return Run(ctx, newsFetcher{&nntp.Driver{}}, u, dir, newsRunOpts(2))
	}
}

// failed returns the paths of sum's failed entries, sorted.
func failed(sum *Summary) []string {
	var paths []string
	for _, e := range sum.Entries {
		if e.Status == StatusFailed {
			paths = append(paths, e.Path)
		}
	}
	slices.Sort(paths)
	return paths
}

// A group renumbered or rebuilt that has grown past the recorded mark
// since (its high water mark is not below the mark, so renumbered cannot
// see it): the server now has, under 1 to 5, the old articles 1, 2 and 3
// with a new one, 201, between 1 and 2, and a new one, 202, at the end.
// A run asked for 4 and 5 only: the old 3 (now 4) was linked as a
// crosspost, 202 stored, and 201 never asked for, exit 0. The mark's own
// article, 3, is listed with the new ones: it is now another article, and
// the run says so (exit 8) and drops the mark; the next run lists the
// group from its low water mark, where 2 and 3 hold other articles than
// the server's and fail.
func TestNewsMirrorRenumberedGrown(t *testing.T) {
	for _, over := range []string{"OVER", ""} {
		t.Run("over="+over, func(t *testing.T) {
			srv := &fetchtest.NNTP{Over: over}
			for i := 1; i <= 3; i++ {
				srv.Post(article(i, "g"), []string{"g"}, []int64{int64(i)})
			}
			srv.Start(t)
			dir := t.TempDir()
			run := newsRunner(t, srv, "g", dir)
			if sum, err := run(); err != nil || sum.New != 3 {
				t.Fatalf("first run: %v, %+v", err, sum)
			}
			for i := 1; i <= 3; i++ {
				srv.Expire("g", int64(i))
			}
			for n, a := range []int{1, 201, 2, 3, 202} {
				srv.Post(article(a, "g"), []string{"g"}, []int64{int64(n + 1)})
			}
			sum, err := run()
			var groupEntry string
			for _, e := range sum.Entries {
				if e.Path == "g" && e.Status == StatusFailed {
					groupEntry = e.Reason
				}
			}
			if !errors.Is(err, ErrPartial) || groupEntry == "" {
				t.Fatalf("grown after a renumbering: %v, %+v; want ErrPartial and a failed entry for the group", err, sum.Entries)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "g", "5")); string(b) != article(202, "g") {
				t.Errorf("g/5 = %q, want the server's article 202", b)
			}
			if m := readManifest(t, dir); m.Groups["g"].High != 0 {
				t.Errorf("mark %+v, want 0: the group is to be listed again from 1", m.Groups["g"])
			}
			sum, err = run()
			if got, want := failed(sum), []string{"g/2", "g/3"}; !errors.Is(err, ErrPartial) || !slices.Equal(got, want) {
				t.Errorf("next run: %v, failed %q; want %q", err, got, want)
			}
			for i := 1; i <= 3; i++ {
				if b, _ := os.ReadFile(filepath.Join(dir, "g", strconv.Itoa(i))); string(b) != article(i, "g") {
					t.Errorf("g/%d = %q, want the old article %d kept", i, b, i)
				}
			}
		})
	}
}

// A group emptied on the server that says so with "211 0 0 0" (one of RFC
// 3977 section 6.1.1.2's forms of an empty group): nothing to miss, no
// word, exit 0; but the recorded mark drops to 0, so that articles the
// server numbers from 1 again are asked for, and those whose numbers
// hold other articles fail instead of being skipped for good.
func TestNewsMirrorRenumberedEmpty(t *testing.T) {
	srv := &fetchtest.NNTP{Over: "OVER"}
	for i := 1; i <= 5; i++ {
		srv.Post(article(i, "g"), []string{"g"}, []int64{int64(i)})
	}
	srv.Start(t)
	dir := t.TempDir()
	raw := "nntp://" + srv.Addr + "/g"
	mirrorNews(t, raw, dir, newsRunOpts(1))
	srv.SetMarks("g", 0, 0, 0)
	for i := 1; i <= 5; i++ {
		srv.Expire("g", int64(i))
	}
	if sum := mirrorNews(t, raw, dir, newsRunOpts(1)); sum.Failed != 0 {
		t.Errorf("empty group: %+v", sum.Entries)
	}
	if m := readManifest(t, dir); m.Groups["g"].High != 0 {
		t.Errorf("mark %+v, want 0", m.Groups["g"])
	}
	srv.ClearMarks("g")
	srv.Post(article(101, "g"), []string{"g"}, []int64{1})
	srv.Post(article(106, "g"), []string{"g"}, []int64{6})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := Run(ctx, newsFetcher{&nntp.Driver{}}, uri.MustParse(raw), dir, newsRunOpts(1))
	if !errors.Is(err, ErrPartial) || sum.Failed != 1 || sum.New != 1 {
		t.Errorf("renumbered from 1: %v, %d failed, %d new; want g/1 failed, g/6 new: %+v", err, sum.Failed, sum.New, sum.Entries)
	}
}

// articleID reads the Message-ID field of a stored article's header.
func TestArticleID(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"From: a@x\nMessage-ID: <a@x>\n\nbody\n", "<a@x>"},
		{"Message-Id:   <b@x> \n\n", "<b@x>"}, // RFC 5322 field names are case-insensitive
		{"message-id: <c@x>\nSubject: s\n", "<c@x>"},
		{"Subject: s\n\nMessage-ID: <in-body@x>\n", ""},
		{"From: a@x\n", ""},
		{"", ""},
	} {
		if got := articleID(strings.NewReader(tt.in)); got != tt.want {
			t.Errorf("articleID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
