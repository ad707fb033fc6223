package nntp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/lineproto"
	"github.com/rfc1738/fetch/internal/mbox"
	"github.com/rfc1738/fetch/internal/netrc"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Defaults of the Driver's limits.
const (
	DefaultMaxLineLength   = 64 << 10
	DefaultMaxArticles     = 10000
	DefaultMaxGroups       = 250000
	DefaultMaxListBytes    = proto.DefaultListingCap
	DefaultMaxHeadFallback = 100
	DefaultMaxHeaderBytes  = 256 << 10
)

// Driver fetches nntp: and news: URLs. One Driver serves both schemes.
//
// The zero value is ready to use with the default limits. A Driver holds no
// connection between calls (each Fetch dials, and QUITs when done) and is
// safe for concurrent use; its fields must not change while it is in use.
//
// Request.Options fields read: NNTP.Server (host[:port] for news: URLs),
// Netrc (path of a .netrc file; a missing file gives no credentials, a
// malformed one an error), HeadersOnly and BodyOnly.
// Request.Raw gives an article (ARTICLE, HEAD, BODY) as the server sent
// it: the bytes between the status line and the terminating "." line,
// dot-stuffed and with their CR LF line ends; without it, articles come
// dot-unstuffed with LF line ends. Request.Offset is not supported:
// articles always come from their first byte (Response.Offset is 0).
type Driver struct {
	// MaxLineLength bounds one reply line and one line of a list, overview
	// or header reply, in bytes. Article text streams and is not bounded by
	// it. Zero means DefaultMaxLineLength.
	MaxLineLength int

	// MaxArticles is how many articles a group summary shows: the most
	// recent ones when the group holds more. Zero means DefaultMaxArticles.
	MaxArticles int

	// MaxGroups bounds the lines of a LIST ACTIVE or LIST NEWSGROUPS reply;
	// a longer reply is an error. Zero means DefaultMaxGroups.
	MaxGroups int

	// MaxListBytes bounds the bytes of one list or overview reply; a longer
	// reply is an error. Zero means DefaultMaxListBytes.
	MaxListBytes int64

	// MaxHeadFallback is how many of the most recent articles a summary
	// shows when the server has no overview (OVER and XOVER refused): one
	// HEAD command each. Zero means DefaultMaxHeadFallback.
	MaxHeadFallback int

	// Pipeline is how many commands Session.Articles (ARTICLE) and
	// Session.StatEach (STAT) send ahead of the replies they have read.
	// Zero means DefaultPipeline; 1 sends one command at a time; more
	// than MaxPipeline means MaxPipeline.
	Pipeline int

	// MaxHeaderBytes bounds the header block read for Response.Info and
	// for each HEAD of the summary fallback. Zero means
	// DefaultMaxHeaderBytes.
	MaxHeaderBytes int
}

var (
	_ proto.Driver = (*Driver)(nil)
	_ proto.Lister = (*Driver)(nil)
)

// pipeline is Driver.Pipeline with its default and bound.
func (d *Driver) pipeline() int {
	return min(orDefault(d.Pipeline, DefaultPipeline), MaxPipeline)
}

func orDefault[T int | int64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// target is what a URL asks for, resolved and checked before any
// connection is made.
type target struct {
	addr    string // host:port to dial
	host    string // host name, for .netrc and prompts
	urlHost string // host[:port] for the URLs of entries, port elided when 119
	scheme  string

	group     string
	number    int64
	hasNumber bool
	msgID     string // with "<" and ">"
	all       bool

	serverInURL bool   // news://server/ form: entry URLs keep the server
	verb        string // ARTICLE, HEAD or BODY
	creds       *credentials
}

// Fetch retrieves the article, group summary or group list named by u:
//
//	nntp://host:port/group/n  GROUP group, ARTICLE n
//	nntp://host:port/group    GROUP group, OVER (a summary)
//	news:id@host              ARTICLE <id@host>
//	news:group                GROUP group, OVER (a summary)
//	news:*                    LIST ACTIVE, LIST NEWSGROUPS
//
// The server of a news: URL is Options.NNTP.Server, or the server of
// the news://server/ form (RFC 5538); neither is an error wrapping
// proto.ErrNeedInput. An article is a KindData response streaming the
// article (Options.HeadersOnly: HEAD, Options.BodyOnly: BODY); the caller
// must close its Body. Summaries and group lists are KindDirectory
// responses with Entries, read whole (within the Driver's limits) before
// Fetch returns.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	t, err := d.resolve(u, req)
	if err != nil {
		return nil, err
	}
	return d.run(ctx, t, req)
}

// List returns the entries of a group summary or of the group list. It
// fails, without connecting, for a URL that names an article.
func (d *Driver) List(ctx context.Context, u *uri.URL, req *proto.Request, fn func(proto.Entry) error) (*proto.Listing, error) {
	t, err := d.resolve(u, req)
	if err != nil {
		return nil, err
	}
	if t.msgID != "" || t.hasNumber {
		return nil, fmt.Errorf("nntp: %s names an article, not a group", u.Redacted())
	}
	resp, err := d.run(ctx, t, req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return proto.ListEntries(resp, fn)
}

func (d *Driver) run(ctx context.Context, t *target, req *proto.Request) (*proto.Response, error) {
	c, err := d.connect(ctx, t, req)
	if err != nil {
		return nil, err
	}
	raw := wantRaw(req)
	var resp *proto.Response
	switch {
	case t.msgID != "":
		resp, err = d.article(ctx, c, t, t.msgID, raw)
	case t.hasNumber:
		if _, _, err = c.cmd(ctx, StatusGroupSelected, "GROUP %s", t.group); err == nil {
			resp, err = d.article(ctx, c, t, strconv.FormatInt(t.number, 10), raw)
		}
	case t.all:
		resp, err = d.groups(ctx, c, t)
	default:
		resp, err = d.summary(ctx, c, t)
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return resp, nil
}

// connect dials, reads the greeting, sends MODE READER and authenticates
// when credentials are known.
func (d *Driver) connect(ctx context.Context, t *target, req *proto.Request) (*client, error) {
	nc, err := req.DialContext(ctx, "tcp", t.addr)
	if err != nil {
		return nil, err // a dial error names what it dialled
	}
	var trace io.Writer
	var prompt proto.Prompter
	if req != nil {
		trace, prompt = req.Trace, req.Prompt
	}
	c := newClient(nc, trace, orDefault(d.MaxLineLength, DefaultMaxLineLength))
	err = c.greet(ctx)
	if err == nil {
		err = c.modeReader(ctx)
	}
	if err == nil && t.creds != nil {
		err = c.login(ctx, t.creds, prompt, t.host)
	}
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// wantRaw reports whether req asks for the article as the server sent it;
// a nil request is the zero Request, which does not.
func wantRaw(req *proto.Request) bool { return req != nil && req.Raw }

// resolve reads the URL and the request's options into a target, and
// checks every argument that will be written to the wire.
func (d *Driver) resolve(u *uri.URL, req *proto.Request) (*target, error) {
	var opts proto.Options
	if req != nil {
		opts = req.Options
	}
	t := &target{scheme: u.Scheme, verb: "ARTICLE"}
	var err error
	switch u.Scheme {
	case "nntp":
		err = t.fromNNTP(u)
	case "news":
		err = t.fromNews(u, opts.NNTP.Server)
	default:
		err = fmt.Errorf("nntp: scheme %q is not nntp or news", u.Scheme)
	}
	if err != nil {
		return nil, err
	}
	if t.group != "" {
		if err := checkWord("group", t.group); err != nil {
			return nil, err
		}
	}
	if t.msgID != "" {
		if err := checkWord("message-id", t.msgID); err != nil {
			return nil, err
		}
	}
	switch {
	case opts.HeadersOnly && opts.BodyOnly:
		return nil, errors.New("nntp: headers-only and body-only exclude each other")
	case opts.HeadersOnly:
		t.verb = "HEAD"
	case opts.BodyOnly:
		t.verb = "BODY"
	}
	creds, err := credentialsFor(u, t.host, opts.Netrc)
	if err != nil {
		return nil, err
	}
	t.creds = creds
	return t, nil
}

// fromNNTP reads an nntp URL (RFC 1738 section 3.7) into t: its server,
// group and article number.
func (t *target) fromNNTP(u *uri.URL) error {
	v, err := u.NNTP()
	if err != nil {
		return err
	}
	if u.Hostname() == "" {
		return &uri.Error{Offset: len("nntp://"), Component: "host", Err: uri.Reason("nntp URL names no host")}
	}
	t.host = u.Hostname()
	t.setServer(t.host, u.PortNumber())
	t.group = v.Group
	if v.Article != nil {
		t.number, t.hasNumber = *v.Article, true
	}
	return nil
}

// fromNews reads a news URL (RFC 1738 section 3.6) into t: its group or
// Message-ID, and the server it names, else server (--nntp-server).
func (t *target) fromNews(u *uri.URL, server string) error {
	v, err := u.News()
	if err != nil {
		return err
	}
	t.serverInURL = v.Server != ""
	if t.serverInURL {
		server = v.Server
	}
	if server == "" {
		return fmt.Errorf("nntp: a news: URL names no server: use --nntp-server host[:port] or set NNTPSERVER: %w", proto.ErrNeedInput)
	}
	host, port, err := splitServer(server)
	if err != nil {
		return err
	}
	t.host = host
	t.setServer(host, port)
	t.group, t.all = v.Group, v.All
	if v.Article != "" {
		t.msgID = "<" + v.Article + ">"
	}
	return nil
}

func (t *target) setServer(host string, port int) {
	t.addr = net.JoinHostPort(host, strconv.Itoa(port))
	t.urlHost = host
	if strings.Contains(host, ":") {
		t.urlHost = "[" + host + "]"
	}
	if port != uri.DefaultPort("nntp") {
		t.urlHost += ":" + strconv.Itoa(port)
	}
}

// articleURL is the nntp URL of article n of the target's group.
func (t *target) articleURL(n int64) string {
	return "nntp://" + t.urlHost + "/" + uri.Escape(t.group, "") + "/" + strconv.FormatInt(n, 10)
}

// groupURL is the URL of a group of the list: news:group, or
// news://server/group when the list was asked for in that form.
func (t *target) groupURL(group string) string {
	if t.serverInURL {
		return "news://" + t.urlHost + "/" + uri.Escape(group, "")
	}
	return "news:" + uri.Escape(group, "")
}

// splitServer reads an Options.NNTP.Server setting: host, host:port, [v6]:port,
// [v6] or a bare IPv6 address; the port defaults to 119.
func splitServer(s string) (string, int, error) {
	bad := func(why string) error {
		return fmt.Errorf("nntp: news server %q %s: use --nntp-server host[:port] or set NNTPSERVER: %w", s, why, proto.ErrNeedInput)
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		host, port = s, ""
		if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
			host = host[1 : len(host)-1]
		}
	}
	if host == "" || strings.ContainsAny(host, " \t\r\n\x00/[]@") {
		return "", 0, bad("is not host[:port]")
	}
	n := uri.DefaultPort("nntp")
	if port != "" {
		p, err := strconv.Atoi(port)
		if err != nil || p < 1 || p > 65535 || port[0] == '+' {
			return "", 0, bad("has a bad port")
		}
		n = p
	}
	return host, n, nil
}

// unsafeArgError is a group name, message-id or user name holding a byte
// that would split or end the command line it is sent in.
type unsafeArgError struct {
	what  string
	value string
	off   int
}

func (e *unsafeArgError) Error() string {
	return fmt.Sprintf("nntp: %s %q has %q at offset %d, which would split the command", e.what, e.value, e.value[e.off], e.off)
}

func (e *unsafeArgError) Unwrap() error { return proto.ErrUnsafeArgument }

// checkWord refuses an argument that is empty or holds CR, LF, NUL (the
// wire check of proto.CheckArg), a space, a TAB or another control byte:
// NNTP arguments are single words (RFC 3977 section 3.1).
func checkWord(what, s string) error {
	if err := proto.CheckArg(s); err != nil {
		return fmt.Errorf("nntp: %s %q: %w", what, s, err)
	}
	if s == "" {
		return fmt.Errorf("nntp: empty %s", what)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			return &unsafeArgError{what: what, value: s, off: i}
		}
	}
	return nil
}

// credentialsFor gives the AUTHINFO credentials for host: the URL's user
// and password, the password (or user and password) from the .netrc file
// at netrcPath, or nil when neither names a user. The .netrc "default"
// entry is not used (see netrcLookup).
func credentialsFor(u *uri.URL, host, netrcPath string) (*credentials, error) {
	cr := &credentials{}
	if u.User != nil {
		cr.user = u.User.Username()
		cr.pass, cr.havePass = u.User.Password()
	}
	if !cr.havePass && netrcPath != "" {
		entries, err := readNetrc(netrcPath)
		if err != nil {
			return nil, err
		}
		if e, ok := netrcLookup(entries, host, cr.user); ok && e.Login != "" {
			cr.user = e.Login
			cr.pass, cr.havePass = e.Password, e.HasPassword
		}
	}
	if cr.user == "" {
		return nil, nil
	}
	if err := checkWord("user name", cr.user); err != nil {
		return nil, err
	}
	if err := proto.CheckArg(cr.pass); err != nil {
		return nil, fmt.Errorf("nntp: password: %w", err)
	}
	return cr, nil
}

// readNetrc reads the .netrc file at path with package internal/netrc, the
// parser every driver shares: a missing file has no entries; a malformed
// one gives an error wrapping the *netrc.Error that names the path and
// the line; an unreadable one, or one over 1 MiB, an error wrapping the
// *fs.PathError.
func readNetrc(path string) ([]netrc.Entry, error) {
	entries, err := netrc.Read(path)
	var ne *netrc.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.As(err, &ne):
		return nil, fmt.Errorf("nntp: netrc %s: %w", path, err)
	case err != nil:
		return nil, fmt.Errorf("nntp: netrc: %w", err)
	}
	return entries, nil
}

// article sends ARTICLE, HEAD or BODY for spec (a number in the selected
// group, or a message-id) and returns the streaming response (RFC 3977
// sections 6.2.1 to 6.2.3): decoded, or with raw the bytes as sent.
func (d *Driver) article(ctx context.Context, c *client, t *target, spec string, raw bool) (*proto.Response, error) {
	want, media := StatusArticleFollows, "message/rfc822"
	switch t.verb {
	case "HEAD":
		want, media = StatusHeadFollows, "text/plain"
	case "BODY":
		want, media = StatusBodyFollows, "text/plain"
	}
	op := t.verb + " " + spec
	_, msg, err := c.cmd(ctx, want, "%s", op)
	if err != nil {
		return nil, err
	}
	n, id := parseArticleReply(msg)
	info := map[string]any{}
	if id != "" {
		info["message_id"] = id
	}
	if n > 0 {
		info["number"] = n
	}
	if t.group != "" {
		info["group"] = t.group
	}
	stuffing := lineproto.Text
	if raw {
		stuffing = lineproto.Raw
	}
	br := bufio.NewReader(lineproto.NewDotReader(c.lines.R, stuffing))
	var r io.Reader = br
	if t.verb != "BODY" {
		block, complete, err := peekHeader(br, orDefault(d.MaxHeaderBytes, DefaultMaxHeaderBytes))
		if err != nil {
			return nil, c.ioErr(ctx.Err(), op, err)
		}
		if complete {
			h := mbox.Fields(string(block)) // CR LF or LF alike
			for field, key := range map[string]string{"Subject": "subject", "From": "from", "Message-Id": "message_id", "Date": "date", "Newsgroups": "newsgroups", "References": "references"} {
				if v, ok := h[field]; ok {
					info[key] = decodeWords(v)
				}
			}
		}
		r = io.MultiReader(bytes.NewReader(block), br)
	}
	name := spec
	if t.msgID != "" {
		name = fileName(t.msgID)
	}
	return &proto.Response{
		Kind:      proto.KindData,
		Body:      &articleBody{r: r, c: c, op: op, ctxErr: ctx.Err},
		Size:      -1,
		MediaType: media,
		Name:      name,
		Info:      info,
	}, nil
}

// fileName turns a message-id into a name for -O: the id without its
// angle brackets, bytes other than letters, digits, ".", "-", "_", "@",
// "+" and "=" replaced by "_".
func fileName(id string) string {
	id = strings.TrimSuffix(strings.TrimPrefix(id, "<"), ">")
	b := []byte(id)
	for i, c := range b {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(".-_@+=", c) >= 0
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) == 0 || b[0] == '.' {
		return "_" + string(b)
	}
	return string(b)
}
