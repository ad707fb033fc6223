package fetch

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
	"github.com/rfc1738/fetch/warc"
)

// This file records what the client fetches into Client.WARC: the body of
// each response is teed into a warc.Recorder as the caller reads it, and
// the records are written when the body has been read to its end and is
// closed. A body closed early, a resumed transfer (Offset) and a 304 write
// nothing.

// maxTranscript bounds the FTP control conversation kept for one
// capture's metadata record.
const maxTranscript = 64 << 10

// maxListing bounds what is read of a listing that its caller closes
// unread, to record it.
const maxListing = proto.DefaultListingCap

// warcRequest prepares r, the request of a fetch of u (made by
// Client.request: a copy the client owns), for a capture: u's driver, when
// it is a proto.Archiver, asks for what it records (the HTTP exchange's
// bytes), and the transcript it wants kept for the metadata record (FTP's)
// goes to the buffer returned (nil when none).
func (c *Client) warcRequest(u *uri.URL, r *proto.Request, lookup lookupFunc) *capBuf {
	if r.Offset > 0 {
		return nil
	}
	d, _ := lookup(u.Scheme)
	a, ok := d.(proto.Archiver)
	if !ok || !a.ArchiveRequest(r) {
		return nil
	}
	tb := &capBuf{max: maxTranscript}
	if r.Trace != nil {
		r.Trace = io.MultiWriter(r.Trace, tb)
	} else {
		r.Trace = tb
	}
	return tb
}

// archiveRecord is what resp's driver says of its capture (nothing when
// it is no proto.Archiver).
func archiveRecord(resp *Response, lookup lookupFunc) proto.ArchiveRecord {
	d, _ := lookup(resp.URL.Scheme)
	if a, ok := d.(proto.Archiver); ok {
		return a.ArchiveRecord(resp.URL, &resp.Response)
	}
	return proto.ArchiveRecord{}
}

// warcBody wraps resp's body so that what the caller reads is recorded.
// It leaves resp unchanged when there is nothing to record. It fails when
// the writer refuses the capture: a body the archive would silently lack
// is not handed out.
func (c *Client) warcBody(resp *Response, req *proto.Request, tb *capBuf, start time.Time, lookup lookupFunc) error {
	if resp.NotModified || (req != nil && req.Offset > 0) || resp.Offset > 0 || resp.Kind == proto.KindAdvisory {
		return nil
	}
	// Part of a resource: an article's head or body alone is not the
	// article; an HTTP HEAD is a response without payload (its "body"
	// is the header, already in the record).
	opts := c.Options
	if req != nil {
		opts = req.Options // the client's merged already (Client.request)
	}
	partial := opts.HeadersOnly || opts.BodyOnly
	ar := archiveRecord(resp, lookup)
	if partial && !ar.Partial {
		return nil
	}
	ip := c.WARC.AddressOf(resp.URL.Host)
	cp := warc.Capture{URI: warcTarget(*resp.URL, ar), Date: start, IP: ip, ContentType: warcType(resp, ar), SizeHint: resp.Size}
	x := resp.Exchange
	if x != nil {
		cp.HTTPRequest, cp.HTTPResponse, cp.HTTPStatus = x.Request, x.Response, x.Status
		cp.ContentType = resp.MediaType
		cp.HTTPFramed = x.Framed != nil
	}
	if ar.Metadata {
		cp.AsMetadata = true
		cp.ContentType = ar.ContentType
	}
	rec, err := c.WARC.Begin(cp)
	if err == nil && cp.HTTPFramed {
		// The body as received (chunked) goes to the record's block
		// from the connection; what the caller reads is the payload.
		if err = x.Framed(blockWriter{rec}); err != nil {
			rec.Abort()
		}
	}
	if err != nil {
		return &Error{Op: "warc", URL: resp.URL.Redacted(), Err: err}
	}
	want := int64(-1)
	if resp.Size >= 0 && !partial {
		want = resp.Size
	}
	resp.Body = &warcBodyRC{rc: resp.Body, rec: rec, tb: tb, url: resp.URL, dir: resp.Kind == proto.KindDirectory, noPayload: partial, want: want}
	return nil
}

// warcTarget is the WARC-Target-URI of a response from u: the driver's
// (ar), else u without user or password.
func warcTarget(u uri.URL, ar proto.ArchiveRecord) string {
	if ar.Target != "" {
		return ar.Target
	}
	u.User = nil
	return u.String()
}

// warcType is the Content-Type of a capture: the driver's (ar), its media
// type, the one its name implies, else application/octet-stream (as wget
// does for ftp).
func warcType(resp *Response, ar proto.ArchiveRecord) string {
	switch {
	case ar.ContentType != "":
		return ar.ContentType
	case resp.MediaType != "" && resp.MediaType != "application/octet-stream":
		return resp.MediaType
	}
	p, _, _ := strings.Cut(resp.URL.Path, ";") // ";type=i"
	// Without an extension there is nothing to look up (and the
	// system's table, read the first time, about 2 ms, is not read).
	if ext := path.Ext(p); ext != "" {
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return "application/octet-stream"
}

// warcBodyRC tees a body into a recorder; Close commits the capture when
// the body was read to its end, and drops it otherwise.
type warcBodyRC struct {
	rc  io.ReadCloser
	rec *warc.Recorder
	tb  *capBuf
	url *uri.URL // for an error
	eof bool
	dir bool // a listing or menu: recorded even when not read
	// noPayload: the bytes read are not the payload (an HTTP HEAD's
	// header as text); the record gets none.
	noPayload bool
	read      bool // some of the body was read
	// want is the length the driver announced (Response.Size), -1 when
	// unknown; n counts the bytes that passed. A body that ends short
	// of want is not recorded, even when its driver saw no error: the
	// archive never holds part of a file as the file.
	want, n int64
	once    sync.Once
	err     error
	tee     teeWriter // for WriteTo
}

func (b *warcBodyRC) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	b.read = true
	b.n += int64(n)
	if n > 0 && !b.noPayload {
		b.rec.Write(p[:n])
	}
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// WriteTo keeps the driver's own copy loop (see closeBody.WriteTo).
func (b *warcBodyRC) WriteTo(w io.Writer) (int64, error) {
	b.read = true
	b.tee = teeWriter{w: w, rec: b.rec}
	var tw io.Writer = &b.tee
	if b.noPayload {
		tw = w
	}
	n, err := copyTo(tw, b.rc)
	b.n += n
	if err == nil {
		b.eof = true
	}
	return n, err
}

func (b *warcBodyRC) Close() error {
	b.once.Do(func() {
		if b.dir && !b.read && !b.noPayload {
			// A listing shown from its parsed entries: its bytes,
			// already read by the driver, are recorded all the same.
			n, err := io.Copy(b.rec, io.LimitReader(b.rc, maxListing))
			b.n += n
			b.eof = err == nil
		}
		b.err = b.rc.Close()
		if !b.eof || b.err != nil || b.n < b.want {
			b.rec.Abort()
			return
		}
		if b.tb != nil {
			b.rec.SetMetadata(b.tb.Bytes())
		}
		if err := b.rec.Commit(); err != nil {
			b.err = &Error{Op: "warc", URL: b.url.Redacted(), Err: err}
		}
	})
	return b.err
}

// blockWriter writes to a capture's block (warc.Recorder.WriteBlock).
type blockWriter struct{ rec *warc.Recorder }

func (b blockWriter) Write(p []byte) (int, error) { return b.rec.WriteBlock(p) }

type teeWriter struct {
	w   io.Writer
	rec *warc.Recorder
}

func (t *teeWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if n > 0 {
		t.rec.Write(p[:n])
	}
	return n, err
}

// capBuf keeps the first max bytes written to it.
type capBuf struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (c *capBuf) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capBuf) Bytes() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.buf.Bytes())
}

// warcManifest tells the WARC writer what the last mirror into dir
// fetched (DIR/.fetch/manifest.json: URL and SHA-256 of every file), so
// that a file found again unchanged is not archived twice and a copy under
// another name is a revisit. A missing or unreadable manifest is no
// error: there is nothing to tell.
func (c *Client) warcManifest(dir string) {
	f, err := os.Open(filepath.Join(dir, ".fetch", "manifest.json"))
	if err != nil {
		return
	}
	defer f.Close()
	var m struct {
		Files map[string]struct {
			URL    string `json:"url"`
			SHA256 string `json:"sha256"`
		} `json:"files"`
	}
	if json.NewDecoder(io.LimitReader(f, maxManifest)).Decode(&m) != nil {
		return
	}
	for _, r := range m.Files {
		// Named as the FTP driver names a capture (ArchiveRecord): a mirror fetches
		// every FTP file with ";type=i".
		u := r.URL
		if strings.HasPrefix(u, "ftp:") && strings.HasSuffix(strings.ToLower(u), ";type=i") {
			u = ftp.WithoutTypecode(u)
		}
		c.WARC.Known(u, r.SHA256)
	}
}

// maxManifest bounds the manifest read for warcManifest.
const maxManifest = 1 << 30
