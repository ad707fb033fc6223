package proto

import (
	"cmp"
	"maps"
	"time"
)

// Options are the scheme-specific settings of a Request. The zero value
// asks every driver for its default behaviour, and a driver ignores the
// fields of other schemes. Options are plain values: copy them freely
// (Gateways is shared by copies; Merge makes a new map).
//
// Each field says which drivers read it and which flag of the fetch
// command sets it.
type Options struct {
	// Email is the password of an anonymous FTP login, the user's e-mail
	// address (RFC 1738 section 3.2.1). Read by ftp. Empty means
	// ftp.DefaultEmail. Flag: --email (else $FETCH_EMAIL).
	Email string

	// Netrc is the path of a .netrc file to look up logins (for a URL
	// without a user) and passwords in. Read by
	// ftp and nntp. Empty means none is read. Flags: --netrc (~/.netrc),
	// --netrc-file.
	Netrc string

	// IfModifiedSince asks for the resource only if it changed after this
	// time. A driver that can ask the server so (http: If-Modified-Since,
	// RFC 9110 section 13.1.3) returns a Response with NotModified set and
	// an empty Body when it did not; the others send the resource. Read by
	// http, and by ftp with FTPOptions.Stat StatTime: NotModified when
	// MDTM gives this time or an earlier one.
	// The zero time means no condition. No flag: the mirror sets it.
	IfModifiedSince time.Time

	// IfRange, with Request.Offset, is the modification time of the
	// version whose first bytes the caller holds: http sends If-Range (RFC
	// 9110 section 13.1.5), and a server whose resource changed since
	// sends it whole, from byte 0. The zero time means no condition. No
	// flag: fetch get -C - takes it from FILE.part's time.
	IfRange time.Time

	// HeadersOnly asks for the header alone: http sends HEAD and returns
	// the status line and header as the body; nntp sends HEAD for an
	// article. False means the whole resource. Flag: --headers-only.
	HeadersOnly bool

	// BodyOnly asks nntp for an article's body alone (BODY). With
	// HeadersOnly it is an error. False means the whole article. Flag:
	// --body-only.
	BodyOnly bool

	// Gateways maps a scheme name in lower case ("wais", "prospero") to the
	// gateway URL template that its URLs are fetched through (package
	// proto/gateway). Read by wais and prospero. Nil, or no entry for the
	// scheme, means no gateway. Flag: --gateway SCHEME=TEMPLATE.
	Gateways map[string]string

	// ListingCap bounds the bytes of one directory listing or gopher
	// menu (or attribute response), enforced as they arrive: a longer one
	// is an error wrapping ErrProtocol. Read by ftp and gopher, and by
	// the mirror for every listing and index page it reads. Zero means
	// the driver's own limit field, else DefaultListingCap. Flag:
	// --max-listing (mirror).
	ListingCap int64

	// FTP holds the settings of the ftp driver.
	FTP FTPOptions

	// HTTP holds the settings of the http driver.
	HTTP HTTPOptions

	// NNTP holds the settings of the nntp driver.
	NNTP NNTPOptions

	// File holds the settings of the file driver.
	File FileOptions
}

// FTPOptions are the settings read by the ftp driver only. The zero value
// is the driver's default behaviour.
type FTPOptions struct {
	// Method is how a url-path becomes commands. MethodDefault is
	// MethodMultiCWD. Flag: --ftp-method.
	Method FTPMethod

	// Stat says which of SIZE and MDTM are sent before a retrieval. StatAll
	// (the zero value) sends both. No flag: "fetch get" without
	// --remote-time sets StatSize, and the mirror StatNone.
	Stat FTPStat

	// Size is the file's length in bytes as the caller knows it from a
	// listing, for a retrieval with StatNone: in TYPE I the data
	// connection must then bring exactly that many bytes (from the
	// offset), as after SIZE, or the body's Read fails with
	// io.ErrUnexpectedEOF; a transfer cut short never looks complete.
	// Zero or less means unknown. No flag: the mirror sets it.
	Size int64

	// Binary turns off the transfer type guessed from the file name: a URL
	// without ;type= is always fetched as TYPE I, the stored bytes. False
	// means the guess (RFC 1738 section 3.2.2): names that are text by
	// convention (README, *.txt, ...) come in TYPE A with their line ends
	// converted, and the response says so (Info["ftp_type"] "A",
	// Info["ftp_type_guessed"] true). Flag: --binary.
	Binary bool

	// ListAll asks for every name of a directory, those that begin with
	// a dot too. MLSD lists them anyway; a Unix server that lists with
	// LIST (vsftpd) leaves them out unless asked with LIST -a, which the
	// driver then sends, and takes back where the server refuses it
	// (Response.Listing.DotNames says so). False lists as ls does.
	// No flag: the mirror sets it.
	ListAll bool

	// Lean asks for listing entries that hold only what a mirror reads:
	// no URL, and of Extra only "unique" and "vms_version". A listing of
	// many entries then takes much less memory (a map for each entry is
	// most of it). False gives every field. No flag: the mirror sets it.
	Lean bool

	// DirectCWD lets a change of directory be one CWD to the directory's
	// absolute path, and a retrieval a RETR of the file's absolute path
	// with no CWD, on a server whose login directory (PWD) is a Unix
	// path and for a path of plain segments, instead of RFC 1738's one
	// CWD per segment from the login directory; both end in the same
	// directory there. A refused CWD is tried again segment by segment.
	// False keeps to RFC 1738 section 3.2.2. No flag: the mirror sets it.
	DirectCWD bool

	// NoSendAhead leaves out the EPSV that a pipelined retrieval sends
	// ahead for the connection's next transfer: the caller has no next
	// one (a mirror's last files), and the port would go unused.
	NoSendAhead bool

	// ListAhead has a pipelined listing from vsftpd send the EPSV of the
	// connection's next transfer with its LIST or MLSD, as a retrieval
	// does: for a caller with transfers to follow (a mirror into an
	// empty directory).
	ListAhead bool

	// Port asks for active mode (curl's --ftp-port): "-" listens on the
	// control connection's local address; an IP address, optionally with a
	// port or a port range ("192.0.2.7", "192.0.2.7:40000",
	// "192.0.2.7:40000-40009", "[2001:db8::7]:40000"), listens there. Host
	// and interface names are not accepted (ftp.ParseActivePort checks a
	// value). Empty means passive mode. Flag: --ftp-port, -P.
	Port string

	// TLS asks for FTP over explicit TLS (RFC 4217). TLSOff (the zero
	// value) means plain FTP. Flags: --ssl (TLSTry), --ssl-reqd
	// (TLSRequire).
	TLS FTPTLS

	// CACert names a PEM file of certificates that replaces the system's
	// roots for verifying the server. Empty means the system's roots.
	// Flag: --cacert.
	CACert string

	// Insecure skips the verification of the server's certificate: the
	// connection is encrypted but the server is not authenticated. False
	// means the certificate is verified. Flag: --insecure, -k.
	Insecure bool
}

// FTPMethod is how the ftp driver turns a url-path into commands (the
// names are curl's --ftp-method values).
type FTPMethod string

const (
	// MethodDefault is the zero value: MethodMultiCWD.
	MethodDefault FTPMethod = ""
	// MethodMultiCWD sends one CWD per directory segment, as RFC 1738
	// section 3.2.2 says.
	MethodMultiCWD FTPMethod = "multicwd"
	// MethodSingleCWD sends one CWD with the directory segments joined by
	// "/" (for servers that accept paths but are slow with many CWDs).
	MethodSingleCWD FTPMethod = "singlecwd"
	// MethodNoCWD sends no CWD: RETR, NLST or LIST get the whole path.
	MethodNoCWD FTPMethod = "nocwd"
)

// FTPStat says which of SIZE and MDTM the ftp driver sends before a
// retrieval.
type FTPStat string

const (
	// StatAll, the zero value, sends SIZE, and MDTM when the server lists
	// it in FEAT.
	StatAll FTPStat = ""
	// StatSize sends SIZE but not MDTM, for a caller that keeps no
	// modification times.
	StatSize FTPStat = "size"
	// StatNone sends neither, for a caller that knows both (a mirror, from
	// the listing).
	StatNone FTPStat = "none"
	// StatTime sends MDTM but not SIZE (when FEAT lists MDTM), for a
	// caller that knows the size from a listing whose time is coarser
	// than MDTM's (LIST: minutes or days), and wants the exact time
	// (Response.ModTime) or, with Options.IfModifiedSince, to learn
	// whether the file changed without retrieving it.
	StatTime FTPStat = "time"
)

// FTPTLS says whether the ftp driver uses TLS (RFC 4217).
type FTPTLS string

const (
	// TLSOff, the zero value, is plain FTP.
	TLSOff FTPTLS = ""
	// TLSTry uses TLS when the server accepts AUTH TLS and goes on in
	// clear (with a warning) when it refuses (curl's --ssl).
	TLSTry FTPTLS = "try"
	// TLSRequire fails before USER when the server refuses AUTH TLS:
	// neither the user name nor the password is ever sent in clear
	// (curl's --ssl-reqd).
	TLSRequire FTPTLS = "require"
)

// HTTPOptions are the settings read by the http driver only.
type HTTPOptions struct {
	// Exchange asks for the bytes of the exchange as they passed on the
	// connection, in Response.Exchange, for an archive record (package
	// warc). False means none. No flag: package fetch sets it when it
	// writes a WARC file (--warc-file).
	Exchange bool
}

// NNTPOptions are the settings read by the nntp driver only.
type NNTPOptions struct {
	// Server is the news server of news: URLs, which name none:
	// host, host:port, [v6]:port, [v6] or a bare IPv6 address (the port
	// defaults to 119). Empty means none; a news://server/ URL names its
	// own. Flag: --nntp-server (else $NNTPSERVER).
	Server string
}

// FileOptions are the settings read by the file driver only.
type FileOptions struct {
	// ViaFTP turns a file URL naming another host into a *Redirect to the
	// same path over ftp, as early browsers did. False means such a URL is
	// an error wrapping ErrNoAccessMethod. Flag: --file-via-ftp.
	ViaFTP bool
}

// Merge returns o with every field that over sets (a non-zero value)
// replaced by over's. Gateways are merged scheme by scheme into a new map,
// over's template winning; neither o nor over is changed. A field cannot
// be set back to its zero value this way.
func (o Options) Merge(over Options) Options {
	r := o
	r.Email = cmp.Or(over.Email, o.Email)
	r.Netrc = cmp.Or(over.Netrc, o.Netrc)
	if !over.IfModifiedSince.IsZero() {
		r.IfModifiedSince = over.IfModifiedSince
	}
	if !over.IfRange.IsZero() {
		r.IfRange = over.IfRange
	}
	r.HeadersOnly = o.HeadersOnly || over.HeadersOnly
	r.BodyOnly = o.BodyOnly || over.BodyOnly
	if len(over.Gateways) > 0 {
		r.Gateways = make(map[string]string, len(o.Gateways)+len(over.Gateways))
		maps.Copy(r.Gateways, o.Gateways)
		maps.Copy(r.Gateways, over.Gateways)
	}
	if over.ListingCap > 0 {
		r.ListingCap = over.ListingCap
	}
	r.FTP = o.FTP.merge(over.FTP)
	r.HTTP.Exchange = o.HTTP.Exchange || over.HTTP.Exchange
	r.NNTP.Server = cmp.Or(over.NNTP.Server, o.NNTP.Server)
	r.File.ViaFTP = o.File.ViaFTP || over.File.ViaFTP
	return r
}

func (o FTPOptions) merge(over FTPOptions) FTPOptions {
	o.Method = cmp.Or(over.Method, o.Method)
	o.Stat = cmp.Or(over.Stat, o.Stat)
	if over.Size > 0 {
		o.Size = over.Size
	}
	o.Binary = o.Binary || over.Binary
	o.ListAll = o.ListAll || over.ListAll
	o.Lean = o.Lean || over.Lean
	o.DirectCWD = o.DirectCWD || over.DirectCWD
	o.NoSendAhead = o.NoSendAhead || over.NoSendAhead
	o.ListAhead = o.ListAhead || over.ListAhead
	o.Port = cmp.Or(over.Port, o.Port)
	o.TLS = cmp.Or(over.TLS, o.TLS)
	o.CACert = cmp.Or(over.CACert, o.CACert)
	o.Insecure = o.Insecure || over.Insecure
	return o
}
