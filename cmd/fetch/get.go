package main

import (
	"crypto/tls"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto"
)

// getOptions are the flags of "fetch get".
type getOptions struct {
	urls []string

	output     string // -o FILE
	remoteName bool   // -O
	outputDir  string // --output-dir DIR

	verbose, silent bool
	continueAt      string // -C: "" none, "-" automatic, or a byte offset
	remoteTime      bool   // -R

	connectTimeout, maxTime time.Duration

	retry        int           // --retry: attempts after the first
	retryMaxTime time.Duration // --retry-max-time
	speedLimit   int64         // --speed-limit: bytes a second
	speedTime    time.Duration // --speed-time

	allowPorts  []int
	denyPrivate bool
	redirect    redirectOptions // --proto-redir, --allow-private-redirect (redirectflags.go)

	json, raw   bool
	search      string
	form        []string // NAME=VALUE
	nntpServer  string
	email       string
	netrc       bool
	netrcFile   string
	ftpMethod   string
	headersOnly bool
	bodyOnly    bool
	gateways    []string // SCHEME=TEMPLATE
	fileViaFTP  bool
	interactive bool

	// FTP active mode, FTPS (tls.go in proto/ftp) and TLS (ftpflags.go).
	ftpPort      string      // --ftp-port ADDRESS|-
	ssl, sslReqd bool        // --ssl, --ssl-reqd
	cacert       string      // --cacert FILE
	insecure     bool        // -k
	tls          *tls.Config // of --cacert and -k (validateTLS)

	binary bool   // --binary: no transfer type guessed from the name (ftptype.go)
	user   string // -u USER[:PASSWORD] (user.go)

	parallel       bool          // -Z (parallel.go)
	parallelMax    int           // --parallel-max
	parallelMaxSet bool          // --parallel-max given
	tally          *atomic.Int64 // with -Z and a bar: bytes written, for the bar

	polite politeOptions // --limit-rate, --wait, --max-host-conns (politeflags.go)

	warc warcOptions // --warc-file and friends (warcflags.go)
}

func newGetCmd(e *env) *cobra.Command {
	o := &getOptions{}
	var cont bool
	cmd := &cobra.Command{
		Use:   "get [flags] URL...",
		Short: "Retrieve URLs to stdout or files",
		Long: `Retrieve each URL: data to stdout (or -o FILE, -O, --output-dir DIR), directory
listings and gopher menus shown for people (or as JSON with --json), telnet and
mailto URLs described.

Files are written under a temporary name in the same directory and renamed into
place when complete; with -C - the partial data is kept in FILE.part and the
next run resumes from it. With several URLs, the ones that can be fetched are,
and the exit status is 8 when some failed.

An FTP URL without ;type= whose name is text by convention (README, *.txt, ...)
is fetched in TYPE A with local line ends, as RFC 1738 asks, and a note on
stderr says so; --binary keeps the stored bytes. FILE.part.type records the
type a FILE.part was written in: converted text is fetched whole again, never
resumed.

An FTP listing line that fits no known layout, or a gopher menu line that is
no menu line (a NUL byte, a port that is not a number), is named in a warning
on stderr (and under "unparsed" with --json), and the exit status is 8: the
listing may lack entries. A gopher menu with no item at all, and no "." line
to say it is empty, is the server breaking the protocol (exit 9).

With -Z (--parallel), up to --parallel-max URLs (default 8) are fetched at a
time, sharing connections per server (FTP logins reused and pipelined, HTTP
kept alive); data for stdout still comes out in the order of the URLs.`,
		Example: `  fetch ftp://ftp.example.org/pub/README
  fetch -O http://127.0.0.1:8080/big.iso
  fetch -C - -O ftp://ftp.example.org/pub/big.iso
  fetch --json gopher://gopher.example.org/1/
  fetch -v --deny-private http://example.org/
  fetch -Z --parallel-max 8 -O ftp://ftp.example.org/pub/a.txt ftp://ftp.example.org/pub/b.txt`,
		Args: minArgs("URL"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cont {
				o.continueAt = "-"
			}
			o.urls = args
			o.parallelMaxSet = cmd.Flags().Changed("parallel-max")
			return runGet(cmd.Context(), o, e)
		},
	}
	addGetFlags(cmd.Flags(), o, &cont)
	return cmd
}

// addGetFlags declares the flags of "fetch get" (curl's spelling where curl
// has one).
func addGetFlags(f *pflag.FlagSet, o *getOptions, cont *bool) {
	f.SortFlags = false
	f.StringVarP(&o.output, "output", "o", "", "write to `FILE` instead of stdout")
	f.BoolVarP(&o.remoteName, "remote-name", "O", false, "write to a file named like the remote file")
	f.StringVar(&o.outputDir, "output-dir", "", "put files written with -O in `DIR`")
	f.BoolVarP(&o.verbose, "verbose", "v", false, "trace the protocol on stderr (passwords hidden)")
	f.BoolVarP(&o.silent, "silent", "s", false, "no progress bar and no warnings")
	f.StringVarP(&o.continueAt, "continue-at", "C", "", "resume at byte `OFFSET`; - resumes FILE.part")
	f.BoolVar(cont, "continue", false, "same as -C -")
	f.BoolVarP(&o.remoteTime, "remote-time", "R", false, "give the file the remote modification time")
	f.Var((*seconds)(&o.connectTimeout), "connect-timeout", "give up connecting after `SECONDS`")
	f.Var((*seconds)(&o.maxTime), "max-time", "give up the whole transfer after `SECONDS`")
	addRetryFlags(f, o, 0)
	addPoliteFlags(f, &o.polite)
	f.IntSliceVar(&o.allowPorts, "allow-port", nil, "lift the port rules for `PORT` (repeatable)")
	f.BoolVar(&o.denyPrivate, "deny-private", false, "refuse loopback, private and link-local addresses")
	addRedirectFlags(f, &o.redirect)
	f.BoolVar(&o.json, "json", false, "listings, menus, advice and attributes as JSON")
	f.BoolVar(&o.raw, "raw", false, "bytes as the server sent them (no menu parsing, no dot-unstuffing or line-end conversion)")
	f.StringVar(&o.search, "search", "", "search `STRING` for gopher type 7 items")
	f.StringArrayVar(&o.form, "form", nil, "answer a Gopher+ +ASK question, `NAME=VALUE` (repeatable)")
	f.StringVar(&o.nntpServer, "nntp-server", "", "news server `HOST[:PORT]` for news: URLs (default $NNTPSERVER)")
	f.StringVar(&o.email, "email", "", "`ADDRESS` sent as the anonymous FTP password (default $FETCH_EMAIL)")
	f.BoolVar(&o.netrc, "netrc", false, "look up logins and passwords in ~/.netrc")
	f.StringVar(&o.netrcFile, "netrc-file", "", "look up logins and passwords in `FILE`")
	f.StringVar(&o.ftpMethod, "ftp-method", "", "reach the file by `METHOD`: multicwd (a CWD per directory), singlecwd (one CWD) or nocwd (the full path in RETR)")
	addFTPFlags(f, o)
	f.BoolVar(&o.binary, "binary", false, "FTP: fetch a URL without ;type= in binary (TYPE I), even a name that looks like text")
	f.BoolVar(&o.headersOnly, "headers-only", false, "only the headers (news articles, HTTP)")
	f.BoolVar(&o.bodyOnly, "body-only", false, "only the body of news articles")
	f.StringArrayVar(&o.gateways, "gateway", nil, "fetch `SCHEME=TEMPLATE` URLs through a gateway (wais, prospero)")
	f.BoolVar(&o.fileViaFTP, "file-via-ftp", false, "fetch file://host/ URLs of other hosts over ftp")
	f.BoolVar(&o.interactive, "interactive", false, "open telnet URLs as a session on this terminal")
	f.BoolVarP(&o.parallel, "parallel", "Z", false, "fetch several URLs at a time (stdout data kept in URL order)")
	f.IntVar(&o.parallelMax, "parallel-max", defaultParallelMax, "with -Z, at most `N` transfers at a time")
	addWARCFlags(f, &o.warc)
}

// addRetryFlags declares --retry (with its default, which differs
// between get and mirror), --retry-max-time, --speed-limit and
// --speed-time, as curl spells them.
func addRetryFlags(f *pflag.FlagSet, o *getOptions, retries int) {
	f.IntVar(&o.retry, "retry", retries, "try a transient failure again up to `N` times, resuming where it stopped")
	f.Var((*seconds)(&o.retryMaxTime), "retry-max-time", "start no retry after `SECONDS` from the first attempt")
	f.Int64Var(&o.speedLimit, "speed-limit", 0, "cut a transfer slower than `BYTES` a second for --speed-time (default 30 s)")
	f.Var((*seconds)(&o.speedTime), "speed-time", "cut a transfer slower than --speed-limit (default 1 byte/s) for `SECONDS`")
}

// retryPolicy is the policy of --retry and --retry-max-time. Each retry
// is announced on w (stderr, or above the progress bars), with the
// failure it answers, unless -s.
func (o *getOptions) retryPolicy(w io.Writer, red *redactor) *fetch.Retry {
	p := &fetch.Retry{Max: max(o.retry, 0), MaxTime: o.retryMaxTime}
	if !o.silent {
		p.OnRetry = func(n, max int, wait time.Duration, err error) {
			fmt.Fprintf(w, "fetch: retrying in %.1f s (%d/%d): %s\n", wait.Seconds(), n, max, red.redact(message(err)))
		}
	}
	return p
}

// speed returns the --speed-limit and --speed-time in force: either flag
// alone gets curl's default for the other (1 byte a second; 30 seconds).
func (o *getOptions) speed() (int64, time.Duration) {
	switch {
	case o.speedLimit > 0 && o.speedTime == 0:
		return o.speedLimit, 30 * time.Second
	case o.speedLimit == 0 && o.speedTime > 0:
		return 1, o.speedTime
	}
	return o.speedLimit, o.speedTime
}

// validate checks the combinations of flags that cannot work.
func (o *getOptions) validate() error {
	if err := o.validateRetry(); err != nil {
		return err
	}
	if err := o.checkParallel(); err != nil {
		return err
	}
	if err := o.validateOutput(); err != nil {
		return err
	}
	switch {
	case o.headersOnly && o.bodyOnly:
		return flagErrorf("--headers-only and --body-only exclude each other")
	case !slices.Contains([]proto.FTPMethod{proto.MethodDefault, proto.MethodMultiCWD, proto.MethodSingleCWD, proto.MethodNoCWD}, proto.FTPMethod(o.ftpMethod)):
		return flagErrorf("--ftp-method %q: want multicwd, singlecwd or nocwd", o.ftpMethod)
	}
	if err := o.validateGroups(); err != nil {
		return err
	}
	return o.validateLists()
}

// validateRetry checks --retry, --retry-max-time and --speed-limit, of
// get and mirror.
func (o *getOptions) validateRetry() error {
	switch {
	case o.retry < 0:
		return flagErrorf("--retry %d: want 0 or more", o.retry)
	case o.retryMaxTime != 0 && o.retry == 0:
		return flagErrorf("--retry-max-time needs --retry")
	case o.speedLimit < 0:
		return flagErrorf("--speed-limit %d: want 0 or more bytes a second", o.speedLimit)
	}
	return nil
}

// validateOutput checks the flags that name the output: -o, -O,
// --output-dir, and -C - and -R, which act on a file only.
func (o *getOptions) validateOutput() error {
	switch {
	case o.output != "" && o.remoteName:
		return flagErrorf("-o and -O exclude each other")
	case o.output != "" && len(o.urls) > 1:
		return flagErrorf("-o takes one URL; use -O or --output-dir for several")
	case o.outputDir != "" && !o.remoteName:
		return flagErrorf("--output-dir needs -O")
	case o.continueAt == "-" && o.toStdout():
		return flagErrorf("-C - needs an output file (-o or -O)")
	case o.remoteTime && o.toStdout():
		return flagErrorf("-R needs an output file (-o or -O)")
	}
	return o.checkNames()
}

// toStdout says whether the data goes to stdout: no -o or -O, or -o -.
func (o *getOptions) toStdout() bool {
	return o.output == "-" || o.output == "" && !o.remoteName
}

// checkPorts refuses an --allow-port that is no port number.
func checkPorts(ports []int) error {
	for _, p := range ports {
		if p < 0 || p > 65535 {
			return flagErrorf("--allow-port %d: not a port number", p)
		}
	}
	return nil
}

// validateLists checks the flags given once per value: --allow-port,
// --form and --gateway.
func (o *getOptions) validateLists() error {
	if err := checkPorts(o.allowPorts); err != nil {
		return err
	}
	if _, err := pairs("--form", o.form); err != nil {
		return err
	}
	gw, err := pairs("--gateway", o.gateways)
	if err != nil {
		return err
	}
	return checkGateways(drivers(), gw)
}

// validateGroups checks the flags that have a validation of their own:
// FTP, politeness, -C, --proto-redir.
func (o *getOptions) validateGroups() error {
	if err := o.validateFTP(); err != nil {
		return err
	}
	if err := o.polite.validate(); err != nil {
		return err
	}
	if _, err := o.offset(); err != nil {
		return err
	}
	_, err := o.redirect.protocols()
	return err
}

// checkGateways checks each --gateway template with the driver of its
// scheme in reg (proto.Gateway), so that a bad template is a usage error
// before anything is fetched.
func checkGateways(reg *fetch.Registry, gw map[string]string) error {
	for scheme, tmpl := range gw {
		d, _ := reg.Lookup(scheme)
		g, ok := d.(proto.Gateway)
		if !ok {
			return flagErrorf("--gateway %s=...: gateways exist for wais and prospero only", scheme)
		}
		if err := g.CheckTemplate(tmpl); err != nil {
			return flagErrorf("--gateway %s: %v", scheme, err)
		}
	}
	return nil
}

// offset returns the -C byte offset; -1 means "-" (from FILE.part).
func (o *getOptions) offset() (int64, error) {
	switch o.continueAt {
	case "":
		return 0, nil
	case "-":
		return -1, nil
	}
	n, err := strconv.ParseInt(o.continueAt, 10, 64)
	if err != nil || n < 0 {
		return 0, flagErrorf("-C %q: want - or a byte offset", o.continueAt)
	}
	return n, nil
}

// pairs splits NAME=VALUE arguments of flag.
func pairs(flag string, args []string) (map[string]string, error) {
	m := map[string]string{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, flagErrorf("%s %q: want NAME=VALUE", flag, a)
		}
		m[k] = v
	}
	return m, nil
}

// seconds is a duration flag written as seconds ("2.5"), as curl does, or
// as a Go duration ("1m30s").
type seconds time.Duration

var _ pflag.Value = (*seconds)(nil)

func (s *seconds) String() string {
	if *s == 0 {
		return ""
	}
	return strconv.FormatFloat(time.Duration(*s).Seconds(), 'f', -1, 64)
}

func (s *seconds) Set(v string) error {
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		*s = seconds(f * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a number of seconds", v)
	}
	*s = seconds(d)
	return nil
}

func (s *seconds) Type() string { return "seconds" }
