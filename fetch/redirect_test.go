package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rfc1738/fetch/mirror"
	"github.com/rfc1738/fetch/proto"
	fhttp "github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// otherHost listens on [::1], the IPv6 loopback: another host than the
// servers on 127.0.0.1, yet on this machine. It records the remote address
// of every connection it accepts, closing it at once.
type otherHost struct {
	ln       net.Listener
	accepted chan string
}

func newOtherHost(t *testing.T) *otherHost {
	t.Helper()
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &otherHost{ln: ln, accepted: make(chan string, 64)}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			select {
			case r.accepted <- c.RemoteAddr().String():
			default:
			}
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return r
}

func (r *otherHost) addr() string { return r.ln.Addr().String() }

// contacted reports whether anybody connected to the recorder before
// now: it connects itself, and since the kernel hands connections to
// Accept in the order they were made, its own comes first unless another
// came before it. It leaves no connection recorded.
func (r *otherHost) contacted(t *testing.T) bool {
	t.Helper()
	c, err := net.DialTimeout("tcp", r.addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	own := c.LocalAddr().String()
	other := false
	timeout := time.After(10 * time.Second)
	for {
		select {
		case a := <-r.accepted:
			if a == own {
				return other
			}
			other = true
		case <-timeout:
			t.Fatal("the recorder did not accept its own connection")
		}
	}
}

// pretendPublic makes the client take ip for a public address for the
// rest of the test, so that the private-address rule of redirects can be
// tried without any traffic to a real public address.
func pretendPublic(t *testing.T, ip string) {
	t.Helper()
	orig := localReason
	pub := netip.MustParseAddr(ip)
	localReason = func(a netip.Addr) string {
		if a == pub {
			return ""
		}
		return orig(a)
	}
	t.Cleanup(func() { localReason = orig })
}

// Issue 29: a redirect the client refuses is refused before anything is
// sent to its target. An HTTP server on 127.0.0.1 redirects to a
// recording server on [::1], which must see no connection. The last
// rows lift the rule: the recorder is reached, so the others prove
// something.
func TestRedirectRefusedBeforeSend(t *testing.T) {
	rec := newOtherHost(t)
	_, port, _ := net.SplitHostPort(rec.addr())
	var target string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}))
	defer srv.Close()
	tests := []struct {
		name      string
		target    string
		protocols []string // Client.RedirectProtocols
		public    bool     // take 127.0.0.1, the server redirecting, for a public address
		allowPriv bool     // Client.AllowPrivateRedirect
		rule      string   // "" when the redirect is followed
	}{
		{name: "gopher", target: "gopher://[::1]:" + port + "/0x", rule: RuleRedirectProtocol},
		{name: "news", target: "news:comp.test", rule: RuleRedirectProtocol},
		{name: "nntp", target: "nntp://[::1]:" + port + "/comp.test/1", rule: RuleRedirectProtocol},
		{name: "telnet", target: "telnet://[::1]:" + port + "/", rule: RuleRedirectProtocol},
		{name: "ftp not listed", target: "ftp://[::1]:" + port + "/x", protocols: []string{"http", "https"}, rule: RuleRedirectProtocol},
		{name: "ftp from public", target: "ftp://[::1]:" + port + "/x", public: true, rule: RuleRedirectToPrivate},
		{name: "http from public", target: "http://[::1]:" + port + "/x", public: true, rule: RuleRedirectToPrivate},
		{name: "name from public", target: "http://inside.example:" + port + "/x", public: true, rule: RuleRedirectToPrivate},
		{name: "news server from public", target: "news:comp.test", protocols: []string{"http", "news"}, public: true, rule: RuleRedirectToPrivate},
		{name: "gopher allowed", target: "gopher://[::1]:" + port + "/0x", protocols: []string{"gopher"}},
		{name: "ftp from loopback", target: "ftp://[::1]:" + port + "/x"},
		{name: "ftp from public, allowed", target: "ftp://[::1]:" + port + "/x", public: true, allowPriv: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.public {
				pretendPublic(t, "127.0.0.1")
			}
			target = tt.target
			c := &Client{
				ConnectTimeout:       5 * time.Second,
				IdleTimeout:          5 * time.Second,
				Resolver:             fakeResolver{c: &counters{}, hosts: map[string]string{"inside.example": "::1"}},
				Options:              proto.Options{NNTP: proto.NNTPOptions{Server: rec.addr()}},
				RedirectProtocols:    tt.protocols,
				AllowPrivateRedirect: tt.allowPriv,
			}
			defer c.CloseIdleConnections()
			resp, err := c.Get(t.Context(), srv.URL+"/start")
			if err == nil {
				resp.Body.Close()
			}
			contacted := rec.contacted(t)
			if tt.rule == "" {
				if !contacted {
					t.Errorf("Get = %v; the recorder was not contacted, want the redirect followed", err)
				}
				return
			}
			var re *RedirectError
			switch {
			case !errors.As(err, &re) || re.Rule != tt.rule || !errors.Is(err, safety.ErrRefused) || ExitCode(err) != ExitRefused:
				t.Errorf("Get = %v, want a refusal by %s, exit 4", err, tt.rule)
			case re.From != srv.URL+"/start" || re.To != tt.target:
				t.Errorf("refusal names %s -> %s, want %s/start -> %s", re.From, re.To, srv.URL, tt.target)
			}
			if contacted {
				t.Errorf("Get = %v, but the recorder at [::1] was contacted", err)
			}
		})
	}
}

// The private-address rule of redirects, decided without any traffic:
// vetHop judges the address of the URL redirecting (IP literals here, so
// no look-up either), the guard it returns the address the target would
// be dialled at.
func TestRedirectToPrivateDecision(t *testing.T) {
	tests := []struct {
		from, to, addr string
		allow          bool // AllowPrivateRedirect
		refused        bool
	}{
		{"http://8.8.8.8/", "http://127.0.0.1/", "127.0.0.1:80", false, true},
		{"http://8.8.8.8/", "ftp://10.0.0.1/x", "10.0.0.1:21", false, true},
		{"http://8.8.8.8/", "http://169.254.169.254/", "169.254.169.254:80", false, true},
		{"http://8.8.8.8/", "http://192.168.1.1/", "192.168.1.1:80", false, true},
		{"http://[2001:4860:4860::8888]/", "http://[::1]/", "[::1]:80", false, true},
		{"http://[2001:4860:4860::8888]/", "http://[fe80::1]/", "[fe80::1]:80", false, true},
		{"http://8.8.8.8/", "http://h.example/", "[::ffff:127.0.0.1]:80", false, true},
		{"http://8.8.8.8/", "http://1.1.1.1/", "1.1.1.1:80", false, false},
		{"http://127.0.0.1/", "http://[::1]/", "[::1]:80", false, false},
		{"http://10.0.0.1/", "http://127.0.0.1/", "127.0.0.1:80", false, false},
		{"http://8.8.8.8/", "http://127.0.0.1/", "127.0.0.1:80", true, false},
	}
	noDNS := fakeResolver{c: &counters{}}
	for _, tt := range tests {
		c := &Client{AllowPrivateRedirect: tt.allow, Resolver: noDNS}
		from, to := mustParse(t, tt.from), mustParse(t, tt.to)
		// An IP literal target is refused by vetHop, a name (which
		// the fake resolver does not know) when it is dialled.
		h, err := c.vetHop(t.Context(), from, to, false, nil, nil)
		if err == nil {
			err = h.check(tt.addr)
		}
		var re *RedirectError
		refused := errors.As(err, &re) && re.Rule == RuleRedirectToPrivate && re.Address == tt.addr && re.Reason != "" && ExitCode(err) == ExitRefused
		if refused != tt.refused || (err != nil) != tt.refused {
			t.Errorf("%s -> %s at %s (allowed %v): %v, want refused %v", tt.from, tt.to, tt.addr, tt.allow, err, tt.refused)
		}
	}
	// A hop after a refused-to-be-local one stays under the rule, even
	// from a URL whose own host is not public.
	c := &Client{Resolver: noDNS}
	h, _ := c.vetHop(t.Context(), mustParse(t, "http://8.8.8.8/"), mustParse(t, "http://1.1.1.1/"), false, nil, nil)
	h, _ = c.vetHop(t.Context(), mustParse(t, "http://name.invalid/"), mustParse(t, "http://x.invalid/"), false, nil, h)
	if err := h.check("127.0.0.1:80"); err == nil {
		t.Errorf("second hop after a public one: loopback allowed")
	}
	if err := (*privateHop)(nil).check("127.0.0.1:80"); err != nil {
		t.Errorf("no redirect: %v", err)
	}
}

func mustParse(t *testing.T, raw string) *uri.URL {
	t.Helper()
	u, err := uri.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// curl's --proto-redir syntax (curl(1), --proto): a comma-separated list,
// "+" (or nothing) adds, "-" removes, "=" sets, "all" is every scheme.
func TestParseRedirectProtocols(t *testing.T) {
	all := DefaultRegistry().Schemes()
	tests := []struct {
		spec string
		want []string
	}{
		{"", []string{"ftp", "http", "https"}},
		{"=http,https", []string{"http", "https"}},
		{"+gopher", []string{"ftp", "gopher", "http", "https"}},
		{"gopher", []string{"ftp", "gopher", "http", "https"}},
		{"-ftp", []string{"http", "https"}},
		{"-all", []string{}},
		{"=", []string{"ftp", "http", "https"}}, // an empty item is ignored
		{"-all,https,+http", []string{"http", "https"}},
		{"all,-telnet,-mailto", slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == "telnet" || s == "mailto" })},
		{"=HTTP, Gopher", []string{"gopher", "http"}},
		{"=ftp,=http", []string{"http"}}, // "=" empties what came before
		{"+http,+http", []string{"ftp", "http", "https"}},
	}
	for _, tt := range tests {
		got, err := ParseRedirectProtocols(tt.spec, nil)
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseRedirectProtocols(%q) = %q, %v; want %q", tt.spec, got, err, tt.want)
		}
	}
	for _, bad := range []string{"gopher+", "=http,ftps", "+", "sftp"} {
		if got, err := ParseRedirectProtocols(bad, nil); bad != "+" && err == nil {
			t.Errorf("ParseRedirectProtocols(%q) = %q, want an error", bad, got)
		}
	}
	if got, err := ParseRedirectProtocols("+news", []string{"http"}); err != nil || !slices.Equal(got, []string{"http", "news"}) {
		t.Errorf("ParseRedirectProtocols(+news, [http]) = %q, %v", got, err)
	}
}

func FuzzParseRedirectProtocols(f *testing.F) {
	for _, s := range []string{"", "=http,https", "+gopher", "-all,https", "all,-ftp", "x"} {
		f.Add(s)
	}
	known := DefaultRegistry().Schemes()
	f.Fuzz(func(t *testing.T, spec string) {
		got, err := ParseRedirectProtocols(spec, nil)
		if err != nil {
			return
		}
		if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Fatalf("ParseRedirectProtocols(%q) = %q, not a sorted set", spec, got)
		}
		for _, s := range got {
			if !slices.Contains(known, s) {
				t.Fatalf("ParseRedirectProtocols(%q) holds %q, no scheme", spec, s)
			}
		}
		if !strings.Contains(spec, "-") && !strings.Contains(spec, "=") && !slices.Contains(got, "http") {
			t.Fatalf("ParseRedirectProtocols(%q) = %q dropped http without - or =", spec, got)
		}
	})
}

// Issue 29: an HTTP mirror whose server redirects an entry to another
// host sent the request there, then reported the entry refused. The
// redirect is now refused before anything is sent, and the report names
// its target.
func TestMirrorRedirectOffServer(t *testing.T) {
	rec := newOtherHost(t)
	away := "http://" + rec.addr() + "/stolen-a"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `<html><body><a href="a.txt">a.txt</a> <a href="stolen-a">stolen-a</a></body></html>`)
		case "/a.txt":
			io.WriteString(w, "a\n")
		case "/stolen-a":
			http.Redirect(w, r, away, http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	c := &Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	dir := t.TempDir()
	sum, err := c.Mirror(ctx, srv.URL+"/", dir, MirrorOptions{Jobs: 2})
	if !errors.Is(err, ErrMirrorPartial) {
		t.Errorf("Mirror = %v, want ErrMirrorPartial", err)
	}
	if rec.contacted(t) {
		t.Errorf("the mirror contacted [::1]")
	}
	var failed []string
	for _, e := range sum.Entries {
		if e.Status == mirror.StatusFailed {
			failed = append(failed, e.Path+": "+e.Reason)
		}
	}
	if len(failed) != 1 || !strings.Contains(failed[0], "stolen-a: ") || !strings.Contains(failed[0], RuleRedirectOffMirror) || !strings.Contains(failed[0], away) {
		t.Errorf("failed entries %q, want stolen-a, naming %s and %s", failed, RuleRedirectOffMirror, away)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
}

// A connection kept alive to a local server from an earlier fetch is not
// a way round the private-address rule: the target of a redirect from a
// public address is judged before the driver is called, not only when it
// dials.
func TestRedirectToPrivateKeptConnection(t *testing.T) {
	pretendPublic(t, "127.0.0.1")
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	inside := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.WriteString(w, "inside")
	}))
	inside.Listener.Close()
	inside.Listener = ln
	inside.Start()
	defer inside.Close()
	outside := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inside.URL+"/secret", http.StatusFound)
	}))
	defer outside.Close()
	r := NewRegistry()
	r.Register("http", fhttp.New(fhttp.Config{KeepAlive: true}))
	c := &Client{Registry: r, ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
	defer c.CloseIdleConnections()
	resp, err := c.Get(t.Context(), inside.URL+"/first")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = c.Get(t.Context(), outside.URL+"/")
	var re *RedirectError
	if !errors.As(err, &re) || re.Rule != RuleRedirectToPrivate || ExitCode(err) != ExitRefused {
		t.Errorf("Get = %v, want a refusal by %s", err, RuleRedirectToPrivate)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("the local server got %d requests, want only the first", n)
	}
}

// TestGatewayToLoopback: the gateway a user configured (--gateway, a
// proto.Redirect with Reason "gateway") is not a server's redirect, so the
// private-address rule does not stop it, whatever the host of the URL it
// stands for (here "h", unknown to the resolver, so taken as public): the
// README's tour calls a gateway on 127.0.0.1 for wais://h/db?query. The
// host of that URL is not even looked up.
func TestGatewayToLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "db=%s q=%s", r.FormValue("db"), r.FormValue("q"))
	}))
	defer srv.Close()
	counts := &counters{}
	c := &Client{Resolver: fakeResolver{c: counts}}
	defer c.CloseIdleConnections()
	req := &proto.Request{}
	req.Options.Gateways = map[string]string{"wais": srv.URL + "/wais?db={database}&q={search}"}
	resp, err := c.Fetch(t.Context(), "wais://h/db?query", req)
	if err != nil {
		t.Fatalf("Fetch through a gateway on 127.0.0.1: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "db=db q=query" {
		t.Errorf("gateway answer = %q", b)
	}
	if n := counts.lookups.Load(); n != 0 {
		t.Errorf("%d look-ups, want none (the wais host is never contacted)", n)
	}
}

// A hop from a local address after a hop from a public one keeps the
// private-address guard: the fetch started at a public server, whose
// redirects may not lead it to a local one through a local relay. Without
// the earlier hop, the same hop has no guard.
func TestRedirectGuardKeptAfterPublicHop(t *testing.T) {
	c := &Client{Resolver: fakeResolver{c: &counters{}}}
	from, to := mustParse(t, "http://10.0.0.1/"), mustParse(t, "http://x.invalid/")
	if h, err := c.vetHop(t.Context(), from, to, false, nil, nil); err != nil || h != nil {
		t.Fatalf("hop from a local address alone: guard %v, %v; want none", h, err)
	}
	first, err := c.vetHop(t.Context(), mustParse(t, "http://8.8.8.8/"), mustParse(t, "http://1.1.1.1/"), false, nil, nil)
	if err != nil || first == nil {
		t.Fatalf("public -> public: guard %v, %v; want a guard", first, err)
	}
	h, err := c.vetHop(t.Context(), from, to, false, nil, first)
	if err != nil {
		t.Fatal(err)
	}
	var re *RedirectError
	if err := h.check("127.0.0.1:80"); !errors.As(err, &re) || re.Rule != RuleRedirectToPrivate || re.From != from.Redacted() {
		t.Errorf("hop after a public one, to loopback: %v, want %s from %s", err, RuleRedirectToPrivate, from.Redacted())
	}
}

// redirectDriver is a fake driver that says whether it is local
// (proto.Local) and whether a redirect may lead to it by default
// (proto.RedirectTarget).
type redirectDriver struct {
	fake
	local, target bool
}

func (d *redirectDriver) Local() bool          { return d.local }
func (d *redirectDriver) RedirectTarget() bool { return d.target }

// TestRedirectDriverProperties: where an HTTP redirect may lead is what
// the target's driver says, not its scheme's name: to a proto.Local
// driver never (redirect-to-file, whatever RedirectProtocols hold); to a
// proto.RedirectTarget with the default protocols; to any other only
// when RedirectProtocols name it.
func TestRedirectDriverProperties(t *testing.T) {
	var target string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusFound)
	}))
	defer srv.Close()
	for _, tt := range []struct {
		target    string
		protocols []string // Client.RedirectProtocols
		rule      string   // "" when the redirect reaches the driver
	}{
		{"x-local://127.0.0.1/x", nil, RuleRedirectToFile},
		{"x-local://127.0.0.1/x", []string{"x-local"}, RuleRedirectToFile},
		{"x-target://127.0.0.1/x", nil, ""},
		{"x-target://127.0.0.1/x", []string{"http"}, RuleRedirectProtocol},
		{"x-plain://127.0.0.1/x", nil, RuleRedirectProtocol},
		{"x-plain://127.0.0.1/x", []string{"x-plain"}, ""},
	} {
		drivers := map[string]*redirectDriver{"x-local": {local: true, target: true}, "x-target": {target: true}, "x-plain": {}}
		reg := NewRegistry()
		reg.Register("http", fhttp.New(fhttp.Config{}))
		for s, d := range drivers {
			reg.Register(s, d)
		}
		target = tt.target
		c := &Client{Registry: reg, RedirectProtocols: tt.protocols, ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
		_, err := c.Get(t.Context(), srv.URL+"/")
		c.CloseIdleConnections()
		var re *RedirectError
		calls := drivers[uri.MustParse(tt.target).Scheme].calls.Load()
		switch {
		case tt.rule == "" && calls != 1:
			t.Errorf("%s %q: Get = %v, %d driver calls; want the redirect followed", tt.target, tt.protocols, err, calls)
		case tt.rule != "" && (!errors.As(err, &re) || re.Rule != tt.rule || calls != 0):
			t.Errorf("%s %q: Get = %v, %d driver calls; want a refusal by %s", tt.target, tt.protocols, err, calls, tt.rule)
		}
	}
}
