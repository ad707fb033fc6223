package ftp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Defaults for the Driver's zero-valued fields.
const (
	defaultMaxIdle      = 2
	defaultIdleTimeout  = 30 * time.Second
	defaultMaxReplyLine = 8 << 10
	defaultMaxReply     = 256 << 10
	defaultMaxListing   = proto.DefaultListingCap
)

// Driver retrieves ftp URLs. The zero value is ready to use; a Driver must
// not be copied after first use.
//
// Fetch, List and CloseIdleConnections are safe for concurrent use. Calls
// for the same server and user share logged-in control connections: a
// connection comes back to the Driver when the body of a retrieval has
// been read to its end or closed, and serves the next URL after an
// absolute CWD to its login directory. A reused control connection was
// dialled with an earlier Request's Dial (its data connections use the
// current one): callers that change the dial policy between requests (say,
// to refuse private addresses) use one Driver per policy.
//
// A Driver is configured when it is made (New, or the fields of its
// Config before first use), not changed afterwards: its pool is built
// from the Config at the first Fetch. Clone makes another driver with the
// same Config.
type Driver struct {
	Config

	once sync.Once
	p    *connPool
}

// Config is the configuration of a Driver. The zero value is the
// defaults.
type Config struct {
	// MaxConnsPerHost limits the control connections in use at once for
	// one server and user; callers beyond it wait for one to come back.
	// Zero means no limit.
	MaxConnsPerHost int

	// MaxIdleConnsPerHost is how many idle connections are kept per
	// server and user. Zero means 2; negative means none (every Fetch
	// logs in anew and no PWD is sent).
	MaxIdleConnsPerHost int

	// IdleConnTimeout closes connections idle for this long. Zero means
	// 30 seconds (servers commonly drop idle sessions after a few
	// minutes).
	IdleConnTimeout time.Duration

	// MaxReplyLine bounds one reply line from the server. Zero means
	// 8 KiB. A longer line is a *proto.ProtocolError and the connection is
	// closed. The bytes of all the replies to one command are bounded by
	// 256 KiB or 32 lines' worth, whichever is more.
	MaxReplyLine int

	// MaxListing bounds the bytes of one directory listing, as they
	// arrive, where the request's Options.ListingCap does not. Zero
	// means proto.DefaultListingCap.
	MaxListing int64

	// PipelinePassive, for callers that retrieve many files in a row
	// (a mirror), sends the EPSV of a connection's next retrieval before
	// the completion reply of the current one is read (once its data
	// connection reaches its end; with vsftpd, along with the RETR): each
	// file then waits for the server twice instead of three times.
	// Listings take the prefetched EPSV too. With vsftpd each data
	// connection is half-closed as soon as it is open. A
	// connection whose server refuses EPSV goes on without it (and with
	// PASV). The last retrieval on each connection leaves one EPSV
	// unused; a CWD between two retrievals does not (its port is kept
	// for the next transfer, wherever it is).
	PipelinePassive bool

	// DisableMLSD lists directories with LIST even when the server's FEAT
	// offers MLST (and so MLSD): for a caller that wants the server's
	// LIST format, such as a test of the LIST parsers against a server
	// that has both. NLST (;type=d) is not affected.
	DisableMLSD bool
	// TLSClientConfig is the base of the TLS configuration of FTPS
	// connections (Request.Options.FTP.TLS); each control connection
	// uses a copy with the server name set and a session cache of its
	// own, which its data connections resume. Nil means the defaults
	// (the system's roots). Request.Options.FTP.CACert and
	// Request.Options.FTP.Insecure override its roots and verification.
	TLSClientConfig *tls.Config
}

// New returns a Driver with the configuration c.
func New(c Config) *Driver { return &Driver{Config: c} }

// Clone returns a new Driver with d's Config and a pool of its own: a
// caller that needs other settings for its own use (a mirror's run)
// clones the driver it was given and changes the clone's Config before
// first use, keeping every setting it does not change.
func (d *Driver) Clone() *Driver { return New(d.Config) }

var (
	_ proto.Driver     = (*Driver)(nil)
	_ proto.Lister     = (*Driver)(nil)
	_ proto.IdleCloser = (*Driver)(nil)
)

func (d *Driver) pool() *connPool {
	d.once.Do(func() {
		d.p = newPool(d.MaxConnsPerHost, d.MaxIdleConnsPerHost, cmp.Or(max(d.IdleConnTimeout, 0), defaultIdleTimeout))
	})
	return d.p
}

func (d *Driver) limits() limits {
	l := limits{
		maxLine: cmp.Or(max(d.MaxReplyLine, 0), defaultMaxReplyLine),
		reuse:   d.MaxIdleConnsPerHost >= 0,
	}
	l.maxReply = max(defaultMaxReply, 32*int64(l.maxLine))
	return l
}

// listingCap is the most bytes of a listing read on c: its request's
// Options.ListingCap, else MaxListing.
func (d *Driver) listingCap(c *conn) int64 {
	if c.req != nil && c.req.Options.ListingCap > 0 {
		return c.req.Options.ListingCap
	}
	return cmp.Or(max(d.MaxListing, 0), defaultMaxListing)
}

// CloseIdleConnections closes (with QUIT) every connection not in use.
func (d *Driver) CloseIdleConnections() { d.pool().closeIdle() }

// Warm logs in n new connections to u's server, all at once, and keeps
// them idle for the next Fetch calls (up to MaxIdleConnsPerHost of them).
// A caller about to run n transfers at once calls it while it waits for
// something else: a mirror warms its workers' connections while it lists
// the first directory, instead of logging them all in after it. Warm
// returns when every login has ended. It never asks for a password (a
// login that would need one is not made) and reports no error: a Fetch
// that finds no idle connection dials its own, as without Warm.
//
// When u names a directory, each connection also changes into it (unless
// its files go by their absolute paths: Options.FTP.DirectCWD, enterFile),
// and with PipelinePassive sends the EPSV of its first retrieval: the
// first file then costs the connection RETR alone.
func (d *Driver) Warm(ctx context.Context, u *uri.URL, req *proto.Request, n int) {
	wreq := proto.Request{}
	if req != nil {
		wreq = *req
	}
	wreq.Prompt = nil
	var pl *plan
	if p, err := u.FTP(); err == nil && p.Name == "" && p.Type == "" {
		if dir, err := makePlan(p, &wreq); err == nil {
			pl = &dir
		}
	}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			direct := wreq.Options.FTP.DirectCWD // files by their paths (enterFile)
			var dir []string
			if pl != nil && !direct {
				dir = pl.cwd
			}
			c, err := d.open(ctx, u, dir, &wreq, true)
			if err != nil {
				return
			}
			if pl != nil {
				var err error
				if !direct {
					_, err = c.enter(*pl)
				}
				if err == nil && d.PipelinePassive && !c.noPipeline && c.activePort() == nil && !c.hasEPSV() {
					if err := c.prefetch(); err != nil {
						c.dead = true
					}
				}
			}
			d.release(c)
		}()
	}
	wg.Wait()
}

// Fetch retrieves u (RFC 1738 section 3.2). See the package documentation
// for the commands each form of URL produces. For a file the response's
// Body streams from the data connection; the caller must close it, and the
// control connection returns to the Driver when the body has been read to
// its end or closed. A directory (a path ending in "/", or ;type=d) is
// read whole: Entries holds it parsed and Body the listing's bytes.
//
// Request.Options used: Email, Netrc, and FTP (Method, Stat, Binary,
// Port, TLS, CACert, Insecure); see proto.FTPOptions.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	if req == nil {
		req = &proto.Request{}
	}
	p, err := u.FTP()
	if err != nil {
		return nil, err
	}
	pl, err := makePlan(p, req)
	if err != nil {
		return nil, err
	}
	return d.do(ctx, u, p.CWD, req, func(c *conn) (*proto.Response, error) {
		if err := c.checkIAC(pl.args()...); err != nil {
			d.release(c)
			return nil, err
		}
		if pl.act == actRetr {
			return d.retrieve(c, pl)
		}
		return d.listing(c, u, pl)
	})
}

// do runs op on a logged-in connection. When op fails on a reused
// connection because the connection is gone (dropped while idle, often
// with 421), op runs once more on a new one: nothing had been delivered
// yet. A timeout is not retried: the caller would wait twice. A listing
// that fails with an *mlsdError runs once more on a new connection that
// lists with LIST.
func (d *Driver) do(ctx context.Context, u *uri.URL, dir []string, req *proto.Request, op func(*conn) (*proto.Response, error)) (*proto.Response, error) {
	fresh, connRetried, mlsdRetried := false, false, false
	for {
		c, err := d.open(ctx, u, dir, req, fresh)
		if err != nil {
			return nil, err
		}
		reused := c.uses > 1
		resp, err := op(c)
		var me *mlsdError
		switch {
		case err == nil:
			return resp, nil
		case errors.As(err, &me):
			err = me.err
			if mlsdRetried || ctx.Err() != nil {
				return nil, err
			}
			mlsdRetried, fresh = true, true
		case reused && !connRetried && ctx.Err() == nil && goneConn(err):
			if req.Trace != nil {
				io.WriteString(req.Trace, "* "+termtext.Escape(err.Error(), traceMax)+": retrying on a new connection\n")
			}
			connRetried, fresh = true, true
		default:
			return resp, err
		}
	}
}

// goneConn reports whether err says that a reused connection was gone
// (421, or a failed connection; not a timeout), and nothing was handed
// over to the caller yet (handedOver): Driver.do tries once more.
func goneConn(err error) bool {
	var ho *handedOver
	return !errors.As(err, &ho) && !isTimeout(err) &&
		(replyCode(err) == StatusNotAvailable || replyCode(err) == 0 && isConnError(err))
}

// List lists the directory u names (with or without a final "/"; a last
// segment is taken as one more directory) and hands each entry to fn as
// its line arrives, with the URL that fetches it (without the password;
// none with Options.FTP.Lean). It implements proto.Lister: the listing's
// bytes and entries are not held (liststream.go), and its notes come
// typed. A listing that fails after it handed entries over is not run
// again on a new connection.
func (d *Driver) List(ctx context.Context, u *uri.URL, req *proto.Request, fn func(proto.Entry) error) (*proto.Listing, error) {
	if req == nil {
		req = &proto.Request{}
	}
	p, err := u.FTP()
	if err != nil {
		return nil, err
	}
	if p.Name != "" {
		p.CWD = append(p.CWD, p.Name)
		p.Name = ""
	}
	p.Type = ""
	pl, err := makePlan(p, req)
	if err != nil {
		return nil, err
	}
	base := ""
	if !req.Options.FTP.Lean {
		base = entryBase(u)
	}
	st := newStream(fn, base)
	var out *proto.Listing
	_, err = d.do(ctx, u, p.CWD, req, func(c *conn) (*proto.Response, error) {
		defer d.release(c)
		if err := c.checkIAC(pl.args()...); err != nil {
			return nil, err
		}
		format, got, notes, err := d.runListing(c, pl, st)
		if err != nil {
			if st.n > 0 {
				return nil, &handedOver{err}
			}
			return nil, err
		}
		out = notes.listing(format, got.unparsed)
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// handedOver is the failure of a listing that handed entries over
// (List): Driver.do does not run it again (goneConn).
type handedOver struct{ err error }

func (e *handedOver) Error() string { return e.err.Error() }
func (e *handedOver) Unwrap() error { return e.err }

// open finds (unless fresh) or makes a logged-in connection for u, bound
// to ctx: an idle one already in dir, the CWD segments of u's view, when
// there is one (connPool.takeIdle).
func (d *Driver) open(ctx context.Context, u *uri.URL, dir []string, req *proto.Request, fresh bool) (*conn, error) {
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("ftp: URL has no host")
	}
	addr := net.JoinHostPort(host, strconv.Itoa(u.PortNumber()))
	cr, err := d.credentials(ctx, u, req, addr)
	if err != nil {
		return nil, err
	}
	for _, a := range []string{cr.user, cr.pass} {
		if err := proto.CheckArg(a); err != nil {
			return nil, fmt.Errorf("ftp: login: %w", err)
		}
	}
	mode, err := tlsMode(req)
	if err != nil {
		return nil, err
	}
	if port := req.Options.FTP.Port; port != "" {
		if err := ParseActivePort(port); err != nil {
			return nil, err
		}
	}
	key := poolKey{addr: addr, user: cr.user, pass: cr.pass, tls: mode}
	p := d.pool()
	if err := p.acquire(ctx, key); err != nil {
		return nil, err
	}
	for !fresh {
		c := p.takeIdle(key, dir)
		if c == nil {
			break
		}
		if c.mlsd && p.refuses(addr, "MLSD") {
			// It would list with MLSD, which this server refuses.
			c.close()
			continue
		}
		c.bind(ctx, req)
		c.uses++
		c.pipeCWD = d.PipelinePassive
		c.w.note("reusing the connection to %s (logged in as %s)", addr, cr.user)
		return c, nil
	}
	noMLSD := ""
	switch {
	case p.refuses(addr, "MLSD"):
		noMLSD = "this server refused MLSD before"
	case d.DisableMLSD:
		noMLSD = "MLSD disabled (Driver.DisableMLSD)"
	}
	lim := d.limits()
	if mode != "" {
		lim.tlsMode = mode
		if lim.tlsCfg, err = d.tlsConfig(req, host); err != nil {
			p.releaseToken(key)
			return nil, err
		}
	}
	c, err := dialConn(ctx, req, key, cr, lim, noMLSD, d.firstDir(req, mode, dir))
	if cr.prompted {
		p.remember(addr, cr.user, cr.pass, err == nil)
	}
	if err != nil {
		p.releaseToken(key)
		return nil, err
	}
	c.uses = 1
	c.pipeCWD = d.PipelinePassive
	return c, nil
}

// firstDir is the directory a new connection enters with its login
// (conn.login): dir, for a mirror's request (DirectCWD) that pipelines in
// passive mode without TLS on reused connections, when its segments are
// plain names (none: not nil); else nil.
func (d *Driver) firstDir(req *proto.Request, mode proto.FTPTLS, dir []string) []string {
	o := req.Options.FTP
	if !o.DirectCWD || !d.PipelinePassive || d.MaxIdleConnsPerHost < 0 || o.Port != "" || mode != proto.TLSOff ||
		o.Method != proto.MethodDefault && o.Method != proto.MethodMultiCWD || len(dir) > 0 && !plainDirs(dir) {
		return nil
	}
	return append([]string{}, dir...)
}

// release gives c back after a use: checked with NOOP after a failure,
// closed when it cannot be reused (dead, cancelled, no usable login
// directory, or listing with MLSD on a server that refuses it).
func (d *Driver) release(c *conn) {
	p := d.pool()
	retire := c.mlsd && p.refuses(c.key.addr, "MLSD")
	if c.dirty && !c.dead && !retire {
		if err := c.noop(); err != nil {
			c.w.note("NOOP failed after an error: closing the connection")
			c.dead = true
		}
		c.dirty = false
	}
	if !c.dead && !c.epsvAhead && c.unasked() != nil {
		c.w.note("the server sent lines no command asked for: closing the connection")
	}
	alive := c.unbind()
	switch {
	case !alive, c.pwd == "", !d.limits().reuse, retire:
		c.close()
	default:
		if ev := p.putIdle(c); ev != nil {
			ev.close()
		}
	}
	p.releaseToken(c.key)
}

// listing runs a directory plan: MLSD (when the server's FEAT offers
// MLST) or LIST, or NLST for ;type=d.
func (d *Driver) listing(c *conn, u *uri.URL, pl plan) (*proto.Response, error) {
	defer d.release(c)
	format, got, notes, err := d.runListing(c, pl, nil)
	if err != nil {
		return nil, err
	}
	return listingResponse(c, u, pl, format, got, notes), nil
}

// runListing runs a directory plan on c (see listing) and returns the
// format the listing ended in, what it held, and its notes. With st, the
// entries go to st as they arrive, and got holds none.
func (d *Driver) runListing(c *conn, pl plan, st *stream) (string, listed, listNotes, error) {
	format, got, notes, err := d.listIn(c, pl, st, true)
	if errors.Is(err, errLeadRefused) {
		c.dirty = false
		format, got, notes, err = d.listIn(c, pl, st, false)
	}
	return format, got, notes, err
}

// listIn is runListing once; with lead, the CWD into pl's directory may
// go with the listing command (conn.leadCWD).
func (d *Driver) listIn(c *conn, pl plan, st *stream, lead bool) (string, listed, listNotes, error) {
	format, verb := listVerb(c, pl)
	var warnings []string
	if ahead := d.listAhead(c, format); !lead || !c.leadCWD(pl, ahead) {
		var err error
		if warnings, err = c.enterThen(pl, ahead); err != nil {
			return "", listed{}, listNotes{}, err
		}
	}
	if format == formatLIST {
		if err := c.askSYST(); err != nil {
			return "", listed{}, listNotes{}, err
		}
	}
	l := &dirList{d: d, c: c, verb: verb, arg: pl.arg, format: format, cap: d.listingCap(c), st: st}
	if st != nil {
		st.links = format == formatMLSD && pl.arg == ""
	}
	got, notes, err := d.readListing(l, pl)
	if err != nil {
		return "", got, notes, err
	}
	if l.format == formatLIST && got.n == 0 && len(got.unparsed) > 0 && pl.arg == "" {
		// Not one line fits a known layout: the names, at least, can
		// be had (fallback.go).
		if got, err = d.fallBack(c, pl, got, st); err != nil {
			return "", got, notes, err
		}
		notes.fallback = got.n > 0
	}
	if c.tlsWarning != "" {
		warnings = append(warnings, c.tlsWarning)
		c.tlsWarning = ""
	}
	notes.warnings = warnings
	notes.mdtm = c.feat.has("MDTM")
	return l.format, got, notes, nil
}

// fallBack lists with NLST the directory whose LIST fit no known layout
// (fallback.go), and gives got the names it found, or st.
func (d *Driver) fallBack(c *conn, pl plan, got listed, st *stream) (listed, error) {
	fb, err := d.nlstFallback(c, pl)
	if err != nil || fb == nil {
		return got, err
	}
	got.n = len(fb)
	if st == nil {
		got.entries = fb
		return got, nil
	}
	for _, e := range fb {
		if err := st.emit(e); err != nil {
			return got, err
		}
	}
	return got, nil
}

// listVerb is the listing command of a plan and the format of its
// answer: NLST for ;type=d, else MLSD when the server's FEAT offers
// MLST, else LIST.
func listVerb(c *conn, pl plan) (format, verb string) {
	if pl.act == actNLST {
		return formatNLST, "NLST"
	}
	if c.mlsd {
		return formatMLSD, "MLSD"
	}
	return formatLIST, "LIST"
}

// listAhead is what a listing to be pipelined (dirList.once) sends with
// its CWDs, in one round trip: its EPSV, and before a LIST the
// connection's first SYST. It is nil for a listing not pipelined.
func (d *Driver) listAhead(c *conn, format string) []string {
	if !d.PipelinePassive || c.noPipeline || c.activePort() != nil {
		return nil
	}
	var ahead []string
	if format == formatLIST && !c.systAsked {
		ahead = append(ahead, "SYST")
	}
	if c.hasEPSV() {
		return ahead // the EPSV sent after the last transfer serves
	}
	return append(ahead, "EPSV")
}

// listNotes is what a listing's response says besides its entries.
type listNotes struct {
	warnings  []string
	dotNames  string // how names beginning with a dot were asked for (listall.go)
	truncated string // the listing was cut at the server's limit (truncated.go)
	fallback  bool   // the entries are NLST's names (fallback.go)
	mdtm      bool   // the server has MDTM
}

// listing is the notes of a listing that ended in format, with the
// lines unparsed, as the proto.Lister contract gives them.
func (n listNotes) listing(format string, unparsed []string) *proto.Listing {
	return &proto.Listing{
		Unparsed:  unparsed,
		Fallback:  n.fallback,
		DotNames:  n.dotNames,
		Truncated: n.truncated,
		// A LIST line gives minutes or days, where MLSD and MDTM give
		// seconds (RFC 3659 sections 2.3 and 7.5.3); the names of the
		// NLST fallback have their times from MDTM already.
		CoarseTimes: format == formatLIST && n.mdtm && !n.fallback,
		Warnings:    n.warnings,
	}
}

// readListing runs l and checks what it read: the names that begin with a
// dot (listall.go), a refused MLSD (listFailed), a directory the server
// could not read (unreadable.go), a listing cut short (truncated.go), and
// the targets of links.
func (d *Driver) readListing(l *dirList, pl plan) (listed, listNotes, error) {
	c := l.c
	var notes listNotes
	listAll, dotNames := l.askAll(pl.arg)
	got, err := l.run()
	if listAll {
		var note string
		if got, note, err = l.allOrPlain(pl.arg, got, err); note != "" {
			dotNames = note
		}
	}
	notes.dotNames = dotNames
	if err != nil {
		return got, notes, d.listFailed(c, l.format, err)
	}
	if err := l.unreadable(got); err != nil {
		return got, notes, err
	}
	got, notes.truncated, err = l.complete(pl.arg, got)
	if err != nil {
		return got, notes, c.fail("", err)
	}
	return got, notes, l.targets(pl.arg, got)
}

// listFailed is the error of a listing command that failed. Some servers
// list MLST in FEAT but answer MLSD with 500 or 502 (RFC 959 section
// 4.2). A connection chooses MLSD or LIST at login (conn.mlsd), so such a
// refusal is recorded for the server and returned as an *mlsdError:
// Driver.do lists again on a new connection, which lists with LIST.
func (d *Driver) listFailed(c *conn, format string, err error) error {
	code := replyCode(err)
	err = c.fail("", err)
	if format == formatMLSD && (code == StatusBadCommand || code == StatusNotImplemented) {
		c.w.note("MLSD refused (%d), though FEAT lists MLST: listing with LIST on a new connection", code)
		d.pool().refuse(c.key.addr, "MLSD")
		return &mlsdError{err: err}
	}
	return err
}

// listingResponse is the response of a listing read in format: its bytes
// as the body (NLST's with local line ends), the entries with their URLs,
// its notes as the Listing, its format and warnings in Info.
func listingResponse(c *conn, u *uri.URL, pl plan, format string, got listed, notes listNotes) *proto.Response {
	entries := got.entries
	body, size := got.text.reader(), int64(got.text.len())
	if format == formatNLST {
		b := localLineEnds(got.text.String())
		body, size = bytes.NewReader(b), int64(len(b))
	} else if !c.req.Options.FTP.Lean {
		base := entryBase(u)
		for i := range entries {
			entries[i].URL = entryURL(base, entries[i])
		}
	}
	resp := &proto.Response{
		Kind:    proto.KindDirectory,
		Body:    io.NopCloser(body),
		Size:    size,
		Name:    pl.name,
		Entries: entries,
		Info:    map[string]any{"ftp_listing": format},
		Listing: notes.listing(format, got.unparsed),
	}
	if len(notes.warnings) > 0 {
		resp.Info["warnings"] = notes.warnings
	}
	return resp
}

// mlsdError is a listing that failed because the server refused MLSD;
// Driver.do runs it again with LIST. Err is the refusal, a *CommandError.
type mlsdError struct{ err error }

func (e *mlsdError) Error() string { return e.err.Error() }
func (e *mlsdError) Unwrap() error { return e.err }

// retrieve runs a file plan: TYPE, SIZE and MDTM, then REST (to resume)
// and RETR.
func (d *Driver) retrieve(c *conn, pl plan) (*proto.Response, error) {
	warnings, err := c.enterFile(&pl)
	if err == nil {
		err = c.setType(pl.typ)
	}
	if err != nil {
		d.release(c)
		return nil, err
	}
	size, mtime, err := c.statFor(pl)
	if err != nil {
		d.release(c)
		return nil, err
	}
	if notModified(c.req, mtime) {
		d.release(c)
		return &proto.Response{Kind: proto.KindData, Size: -1, ModTime: mtime, Name: pl.name, NotModified: true,
			Body: io.NopCloser(strings.NewReader("")), Info: map[string]any{"ftp_type": pl.typ}}, nil
	}
	offset := c.resumeOffset(pl.typ, size)
	resp := &proto.Response{
		Kind:    proto.KindData,
		Size:    size,
		ModTime: mtime,
		Name:    pl.name,
		Info:    map[string]any{"ftp_type": pl.typ},
	}
	if c.tlsWarning != "" {
		warnings = append(warnings, c.tlsWarning)
		c.tlsWarning = ""
	}
	if len(warnings) > 0 {
		resp.Info["warnings"] = warnings
	}
	if pl.guessed {
		resp.Info["ftp_type_guessed"] = true
	}
	if pl.typ == "A" {
		resp.Size = -1 // SIZE counts stored bytes, not the converted text
		resp.MediaType = "text/plain"
	}
	if offset > 0 && offset == size {
		c.w.note("nothing left to fetch: the file has %d bytes", size)
		resp.Offset = offset
		resp.Body = io.NopCloser(strings.NewReader(""))
		d.release(c)
		return resp, nil
	}
	t, offset, err := d.startRetr(c, pl.arg, offset)
	if err != nil {
		err = c.fail("", err)
		d.release(c)
		return nil, err
	}
	// want is how many bytes the data connection must bring.
	want := int64(-1)
	if size >= 0 && pl.typ == "I" {
		want = size - offset
	}
	b := newBody(d, c, t, c.converts(pl.typ, resp), want)
	resp.Offset = offset
	resp.Body = b
	return resp, nil
}

// statFor returns the size and time of the file of pl as the request's
// FTPOptions.Stat asks: from SIZE and MDTM, from MDTM and the caller's
// size (StatTime), or from the caller alone (StatNone).
func (c *conn) statFor(pl plan) (size int64, mtime time.Time, err error) {
	o := c.req.Options.FTP
	switch o.Stat {
	case proto.StatNone, proto.StatTime:
		size = -1
		if o.Size > 0 && pl.typ == "I" {
			size = o.Size // the caller's listing said it
		}
		if o.Stat == proto.StatTime {
			_, mtime, err = c.fileFacts(pl.arg, false, true)
		}
		return size, mtime, err
	}
	// SIZE in TYPE I only: in TYPE A it would count stored bytes.
	return c.fileFacts(pl.arg, pl.typ == "I", o.Stat != proto.StatSize)
}

// notModified reports whether MDTM's time (mtime) of a retrieval with
// StatTime is not after the request's IfModifiedSince: the file is not
// retrieved.
func notModified(req *proto.Request, mtime time.Time) bool {
	ims := req.Options.IfModifiedSince
	return !ims.IsZero() && req.Options.FTP.Stat == proto.StatTime && !mtime.IsZero() && !mtime.After(ims)
}

// resumeOffset is the byte the retrieval starts at: Request.Offset, or 0
// when that cannot be resumed (TYPE A, or beyond the file's size).
func (c *conn) resumeOffset(typ string, size int64) int64 {
	offset := c.req.Offset
	switch {
	case offset > 0 && typ == "A":
		c.w.note("no resume in TYPE A (a REST offset counts stored bytes): restarting from 0")
		offset = 0
	case offset > 0 && size >= 0 && offset > size:
		c.w.note("resume offset %d is beyond the file's %d bytes: restarting from 0", offset, size)
		offset = 0
	}
	return offset
}

// startRetr sends RETR arg (with REST offset when offset > 0) in active,
// pipelined passive or plain passive mode, and returns the transfer and
// the offset its data starts at (0 when the server refused REST).
func (d *Driver) startRetr(c *conn, arg string, offset int64) (*pipedTransfer, int64, error) {
	sp := c.activePort()
	if sp == nil && offset == 0 && d.PipelinePassive && !c.noPipeline {
		t, err := c.pipelinedRetr(arg, !c.req.Options.FTP.NoSendAhead)
		if !errors.Is(err, errNoPipeline) {
			return t, 0, err
		}
	}
	return c.plainRetr(sp, arg, offset)
}

// converts reports whether the data of a retrieval in type typ, just
// started, is to be converted from CRLF to local line ends: in TYPE A,
// unless the preliminary reply says binary (saysBinary), and then
// resp.Info["ftp_type"] becomes "I".
func (c *conn) converts(typ string, resp *proto.Response) bool {
	if typ != "A" {
		return false
	}
	if p := c.w.prelim; p != nil && saysBinary(p.Msg) {
		c.w.note("TYPE A, but the server sends binary (%s): nothing converted", p.Msg)
		resp.Info["ftp_type"] = "I"
		resp.Info["ftp_server_binary"] = true
		return false
	}
	return true
}

// entryBase is u's directory as a URL prefix ending in "/", with no
// password, typecode, query or fragment.
func entryBase(u *uri.URL) string {
	v := *u
	if u.User != nil {
		v.User = uri.User(u.User.EscapedUsername())
	}
	p := u.Path
	if u.RawQuery != "" || u.ForceQuery {
		p += "?" + u.RawQuery
	}
	if i := strings.LastIndex(p, ";"); i >= 0 && strings.LastIndexByte(p, '/') < i {
		p = p[:i]
	}
	if !strings.HasSuffix(p, "/") {
		p += "/"
	}
	v.Path, v.RawQuery, v.ForceQuery, v.Fragment, v.HasFragment = p, "", false, "", false
	return v.String()
}

// entryURL is the URL of one listed entry: a directory ends in "/", a file
// gets no typecode (the client decides).
func entryURL(base string, e proto.Entry) string {
	s := base + uri.Escape(e.Name, "")
	if e.Type == proto.EntryDir {
		s += "/"
	}
	return s
}
