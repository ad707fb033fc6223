package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// runGet fetches every URL of o, reporting each failure on stderr. With
// several URLs the others are still fetched; the exit code is then
// ExitPartial unless every URL failed the same way.
func runGet(ctx context.Context, o *getOptions, e *env) (err error) {
	if err := o.validate(); err != nil {
		return err
	}
	args := o.parseArgs()
	if o.parallel {
		return runParallel(ctx, o, args, e)
	}
	red := redactorOf(args)
	c := o.client(e, red, o.commandDrivers())
	defer c.CloseIdleConnections()
	if c.WARC, err = o.warc.open(e, red); err != nil {
		return err
	}
	defer closeWARC(c, e, &err)
	o.warnAllowPorts(e)
	codes := make([]int, 0, len(o.urls))
	for _, a := range args {
		err := getOne(ctx, c, a, o, e, red)
		if err != nil && ctx.Err() == nil { // an interruption is said once, at the end
			fmt.Fprintf(e.err, "fetch: %s\n", red.redact(message(err)))
		}
		codes = append(codes, codeOf(err))
		if ctx.Err() != nil {
			break
		}
	}
	return exitFor(codes)
}

// commandDrivers is the configuration of the command's own registry. HTTP
// connections are kept open between the URLs of one command (and the
// hops of a redirect), as curl does; the command closes them when it
// returns. With several URLs, the EPSV of the next FTP file goes out with
// the RETR of this one, which saves a round trip per file on a connection
// kept between the URLs. With -Z, the FTP pool keeps up to --parallel-max
// logged-in connections per server and user, all kept between URLs (the
// mirror's settings, fetch.Mirror). --max-host-conns bounds the FTP pool
// (politeOptions.limitFTP).
func (o *getOptions) commandDrivers() fetch.Drivers {
	d := o.tlsDrivers()
	d.HTTP.KeepAlive = true
	d.FTP.PipelinePassive = o.parallel || len(o.urls) > 1
	if o.parallel {
		d.FTP.MaxConnsPerHost, d.FTP.MaxIdleConnsPerHost = o.parallelMax, o.parallelMax
	}
	o.polite.limitFTP(&d.FTP)
	return d
}

// tlsDrivers is the configuration of drivers that make every TLS
// connection (https, FTPS) with the TLS flags (validateTLS).
func (o *getOptions) tlsDrivers() fetch.Drivers {
	return fetch.Drivers{HTTP: http.Config{TLSClientConfig: o.tls}, FTP: ftp.Config{TLSClientConfig: o.tls}}
}

// exitFor is the error of a command whose URLs ended with codes: nil
// when every one succeeded, else the code they share, or ExitPartial.
func exitFor(codes []int) error {
	code := fetch.ExitOK
	if len(codes) > 0 {
		code = codes[0]
	}
	if slices.ContainsFunc(codes, func(c int) bool { return c != code }) {
		code = fetch.ExitPartial
	}
	if code == fetch.ExitOK {
		return nil
	}
	return &exitError{code: code}
}

// client builds the fetch.Client of o, with a registry of drivers d (the
// env's in tests).
func (o *getOptions) client(e *env, red *redactor, d fetch.Drivers) *fetch.Client {
	c := &fetch.Client{
		Policy:         safety.Policy{AllowPorts: o.allowPorts, DenyPrivate: o.denyPrivate},
		ConnectTimeout: o.connectTimeout,
		MaxTime:        o.maxTime,
		Prompt:         e.prompt,
		Options:        o.requestOptions(e),
		Resolver:       e.resolver,
		Dial:           e.dial,
		Registry:       cmp.Or(e.registry, d.Registry()),
	}
	c.SpeedLimit, c.SpeedTime = o.speed()
	o.polite.apply(c)
	o.redirect.apply(c)
	if o.verbose {
		c.Trace = red.writer(e.err)
	}
	return c
}

// requestOptions are the proto.Request options of o, with the
// environment's defaults (FETCH_EMAIL, NNTPSERVER, HOME).
func (o *getOptions) requestOptions(e *env) proto.Options {
	opts := proto.Options{
		Email:       cmp.Or(o.email, e.getenv("FETCH_EMAIL")),
		HeadersOnly: o.headersOnly,
		BodyOnly:    o.bodyOnly,
		FTP:         proto.FTPOptions{Method: proto.FTPMethod(o.ftpMethod)},
		NNTP:        proto.NNTPOptions{Server: cmp.Or(o.nntpServer, e.getenv("NNTPSERVER"))},
		File:        proto.FileOptions{ViaFTP: o.fileViaFTP},
	}
	o.setFTPOptions(&opts.FTP)
	if o.netrcFile != "" {
		opts.Netrc = o.netrcFile
	} else if o.netrc && e.getenv("HOME") != "" {
		opts.Netrc = filepath.Join(e.getenv("HOME"), ".netrc")
	}
	gw, _ := pairs("--gateway", o.gateways)
	for scheme, tmpl := range gw {
		if opts.Gateways == nil {
			opts.Gateways = map[string]string{}
		}
		opts.Gateways[strings.ToLower(scheme)] = tmpl
	}
	return opts
}

// warnAllowPorts says that port rules were lifted: a protection turned
// off is always reported, even with -s.
func (o *getOptions) warnAllowPorts(e *env) {
	for _, p := range o.allowPorts {
		fmt.Fprintf(e.err, "fetch: warning: the port rules are lifted for port %d (--allow-port)\n", p)
	}
	o.redirect.warn(e)
	o.warnInsecure(e)
}

// getOne fetches one URL to its destination. The policy evaluates a.u
// once: its findings are the warnings printed here, and its refusal is
// the failure of the fetch, reported after the checks of the destination
// as the client's own refusal would be.
func getOne(ctx context.Context, c *fetch.Client, a arg, o *getOptions, e *env, red *redactor) error {
	if a.err != nil {
		return a.err
	}
	if a.note != "" {
		fmt.Fprintln(e.err, a.note)
	}
	u := a.u
	ck, findings, refused := c.Check(u)
	o.warnFindings(e, u, findings)
	driver, _ := c.Registry.Lookup(u.Scheme)
	if s, ok := driver.(proto.Sessioner); ok && o.interactive {
		return interactive(ctx, c, s, u, e)
	}
	d, err := o.destination(u)
	if err != nil {
		return err
	}
	o.checkResume(e, u, d)
	form, _ := pairs("--form", o.form)
	req := &proto.Request{Offset: d.offset, Search: o.search, Raw: o.raw}
	req.Options.IfRange = d.since
	if c.WARC != nil && req.Offset > 0 {
		// A resumed transfer could not be archived: the whole file is
		// asked for, and the output skips (stdout) or writes again
		// (FILE.part) the bytes it has.
		if !o.silent {
			fmt.Fprintf(e.err, "fetch: warning: %s: -C with --warc-file: fetching the whole file, so that the archive holds it\n", u.Redacted())
		}
		req.Offset = 0
	}
	if len(form) > 0 {
		req.Form = form
	}
	if !o.remoteTime {
		// Nothing keeps the modification time: FTP asks SIZE (for the
		// progress bar and the length check) but not MDTM.
		req.Options.FTP.Stat = proto.StatSize
	}
	if refused != nil {
		return refused
	}
	return deliver(ctx, c, ck, req, d, o, e, red)
}

// listingError reports a directory listing that was delivered but is not
// known to be whole: some of its lines fit no known layout, or the server
// said it cut the listing short. It makes the exit code ExitPartial.
type listingError struct {
	url       string // redacted
	unparsed  int
	fallback  bool
	truncated string // the server's completion reply, when it cut the listing
}

func (e *listingError) Error() string {
	switch {
	case e.truncated != "":
		return fmt.Sprintf("%s: the server cut the listing short (%s): entries past its limit are missing", e.url, termtext.Listing(e.truncated))
	case e.fallback:
		return fmt.Sprintf("%s: no line of the listing (%d) fits a known layout: the entries are NLST's names, probed with CWD, SIZE and MDTM", e.url, e.unparsed)
	}
	return fmt.Sprintf("%s: %d listing lines fit no known layout: some entries may be missing", e.url, e.unparsed)
}

// checkListing warns about each line of an FTP listing that fits no known
// layout (unless -s), quoting it with its control characters escaped, and
// returns a *listingError when there was any, or when the server said it
// cut the listing short (proto.Listing.Truncated).
func (o *getOptions) checkListing(e *env, red *redactor, resp *fetch.Response) error {
	lines := unparsedLines(resp)
	var notes proto.Listing
	if resp.Listing != nil {
		notes = *resp.Listing
	}
	if resp.Kind != proto.KindDirectory || len(lines) == 0 && notes.Truncated == "" {
		return nil
	}
	u := resp.URL.Redacted()
	if !o.silent {
		for _, line := range lines {
			fmt.Fprintln(e.err, red.redact(fmt.Sprintf("fetch: warning: %s: listing line fits no known layout: %s", u, fetch.QuoteListingLine(line))))
		}
	}
	return &listingError{url: u, unparsed: len(lines), fallback: notes.Fallback, truncated: notes.Truncated}
}

// warnResponse prints the driver's warnings about resp (Info["warnings"]:
// problems that did not stop the retrieval, such as a null CWD the FTP
// server refused), unless -s. The text comes from the server: control
// characters are removed and passwords hidden.
func (o *getOptions) warnResponse(e *env, red *redactor, resp *fetch.Response) {
	o.noteConverted(e, red, resp)
	if o.silent {
		return
	}
	var ws []string
	switch v := resp.Info["warnings"].(type) {
	case []string:
		ws = v
	case string:
		ws = []string{v}
	}
	for _, w := range ws {
		line := fmt.Sprintf("fetch: warning: %s: %s", resp.URL.Redacted(), termtext.Strip(w))
		fmt.Fprintln(e.err, red.redact(line))
	}
}

// parseURL parses a URL given on the command line. A reference without a
// scheme is completed by the abbreviation heuristic of RFC 2396 Appendix F
// (www. -> http, ftp. -> ftp, gopher. -> gopher, user@host -> mailto), with
// a note for stderr; otherwise it is malformed. So is a host with a port,
// "www.example.org:8080/", which parses as a URL of the scheme
// "www.example.org" (a scheme may hold dots, RFC 1738 section 2.1).
func parseURL(raw string) (u *uri.URL, note string, err error) {
	u, err = uri.Parse(raw)
	if err != nil {
		return nil, "", &fetch.Error{Op: "parse", URL: safety.Redact(raw), Err: err}
	}
	if u.Scheme != "" && !strings.Contains(u.Scheme, ".") {
		return u, "", nil
	}
	if a, ok := uri.Abbreviated(raw); ok {
		return a, fmt.Sprintf("fetch: note: taking %s as %s", safety.Redact(raw), a.Redacted()), nil
	}
	if u.Scheme != "" {
		return u, "", nil
	}
	return nil, "", &fetch.Error{Op: "parse", URL: safety.Redact(raw),
		Err: &uri.Error{Component: "scheme", Err: uri.Reason("URL has no scheme")}}
}

// arg is a URL of the command line, parsed once, with -u's login in it.
type arg struct {
	u    *uri.URL // nil when err is not
	note string   // parseURL's note, printed when the URL's turn comes
	err  error    // the parse failure, reported when the URL's turn comes
}

// parseArgs parses the URLs of o and puts the -u login into them. An
// abbreviated URL that takes the login is completed without a note, and
// o.urls then holds its completed form, as withUser returns it.
func (o *getOptions) parseArgs() []arg {
	args := make([]arg, len(o.urls))
	for i, raw := range o.urls {
		a := &args[i]
		a.u, a.note, a.err = parseURL(raw)
		if a.err == nil && o.setUser(a.u) {
			a.note = ""
			o.urls[i] = a.u.String()
		}
	}
	return args
}

// warnFindings prints the warning-level findings of the policy's
// evaluation of u (the refusals are reported as errors), unless -s. A
// password given with -u is in u only because setUser put it there: the
// user did not write it into a URL, so password-in-url does not apply.
func (o *getOptions) warnFindings(e *env, u *uri.URL, findings []safety.Finding) {
	if o.silent {
		return
	}
	_, fromFlag, _ := strings.Cut(o.user, ":")
	for _, f := range findings {
		if f.Rule == safety.RulePasswordInURL && fromFlag != "" {
			continue
		}
		if f.Level == safety.Warning {
			fmt.Fprintf(e.err, "fetch: warning: %s: %s: %s\n", u.Redacted(), f.Rule, f.Message)
		}
	}
}

// message is the text of err for people: safety refusals name the URL and
// the rule id first.
func message(err error) string {
	var (
		re *safety.RefusedError
		rd *fetch.RedirectError
		ae *safety.AddressError
		fe *fetch.Error
	)
	switch {
	case errors.As(err, &re):
		f := firstError(re.Findings)
		return fmt.Sprintf("refused: %s: %s: %s", re.URL, f.Rule, f.Message)
	case errors.As(err, &rd) && rd.Address != "":
		return fmt.Sprintf("refused: %s: %s: redirect to %s (%s is %s)", rd.From, rd.Rule, rd.To, rd.Address, rd.Reason)
	case errors.As(err, &rd):
		return fmt.Sprintf("refused: %s: %s: redirect to %s", rd.From, rd.Rule, rd.To)
	case errors.As(err, &ae) && errors.As(err, &fe):
		return fmt.Sprintf("refused: %s: deny-private: connection to %s (%s)", fe.URL, ae.Address, ae.Reason)
	}
	return strings.TrimPrefix(err.Error(), "fetch: ")
}

func firstError(fs []safety.Finding) safety.Finding {
	i := slices.IndexFunc(fs, func(f safety.Finding) bool { return f.Level == safety.Error })
	if i < 0 {
		return safety.Finding{Rule: "refused"}
	}
	return fs[i]
}

// render writes resp into w as it is shown rather than copied: a
// listing, a menu or advice, or the --json document of a data response.
func render(w io.Writer, resp *fetch.Response, o *getOptions) error {
	switch resp.Kind {
	case proto.KindDirectory:
		return renderListing(w, resp, o.json)
	case proto.KindAdvisory:
		return renderAdvisory(w, resp, o.json)
	}
	if err := writeJSON(w, document{URL: resp.URL.Redacted(), Kind: "data", Info: resp.Info}); err != nil {
		return err
	}
	if o.warc.file != "" {
		// The document replaces the body on output, but the archive
		// asked for holds the resource: it is recorded once read to
		// its end (a body closed early is not).
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return fmt.Errorf("reading %s for the WARC file: %w", resp.URL.Redacted(), err)
		}
	}
	return nil
}

// copyBody streams the body into w, with a progress bar when wanted, and
// checks that as many bytes arrived as the server announced. io.Copy
// hands the copy to the body's WriteTo (fetch.Client's bodies have one),
// which reads in large blocks. It returns the bytes read from the body.
func copyBody(ctx context.Context, w io.Writer, resp *fetch.Response, o *getOptions, e *env) (int64, error) {
	pw, done := o.progress(ctx, w, resp, e)
	n, err := io.Copy(pw, resp.Body)
	done(err == nil)
	var we *writeError
	switch {
	case errors.As(err, &we):
		return n, err
	case err != nil:
		return n, &fetch.Error{Op: "read", URL: resp.URL.Redacted(), Err: err}
	case resp.Size >= 0 && n != resp.Size-resp.Offset:
		return n, &fetch.Error{Op: "read", URL: resp.URL.Redacted(),
			Err: fmt.Errorf("got %d of %d bytes: %w", n, resp.Size-resp.Offset, io.ErrUnexpectedEOF)}
	}
	return n, nil
}
