// Package warc writes what a fetch or a mirror captures as WARC/1.1 files
// (ISO 28500:2017), gzip-compressed record by record, with an optional
// CDXJ index beside each file, in the line format pywb reads.
//
// The writer builds and serialises the records itself (see docs/warc.md
// in the repository for why not with gowarc, which the tests use to read every record
// back and check it): a record's block is spooled to a temporary file once
// it passes 1 MiB, so memory stays bounded whatever the size of a capture;
// every digest (sha1, base32, as web archives expect) is computed as the
// bytes pass; each record is a gzip member of its own (see fileWriter).
//
// A Writer is made once per run (Create) and shared by every fetch of the
// run; it is safe for concurrent use. Each capture is one Recorder
// (Writer.Begin): the bytes are written to it as they arrive, and Commit
// writes the records. A capture whose payload digest matches an earlier one
// (from this run, or from an index given in Options.Dedup) is written as a
// revisit record of the identical-payload-digest profile instead.
//
// Package warc never sees a password: the caller gives it URLs and
// transcripts already redacted, and Begin refuses a URL that still holds
// one.
package warc

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rfc1738/fetch/internal/secret"
)

// Options configures a Writer. Only Name is required.
type Options struct {
	// Name is the path of the WARC files without extension: the first
	// file is Name.warc.gz, the next ones (rotation, or when that name is
	// taken by an earlier run) Name-00001.warc.gz, Name-00002.warc.gz, ...
	Name string

	// MaxSize starts a new file once a file passes this many bytes
	// (compressed). Zero means no limit.
	MaxSize int64

	// CDX writes a CDXJ index beside each WARC file (Name.cdxj for
	// Name.warc.gz), sorted, when the Writer is closed.
	CDX bool

	// Dedup lists CDXJ index files of earlier captures: a capture whose
	// payload digest one of them holds is written as a revisit record.
	// Nil means only this run's captures count (and the CDXJ indexes of
	// Name's earlier files, which are always read when they exist).
	Dedup []string

	// Software names the program in the warcinfo record ("fetch 1.2").
	// Empty means "fetch".
	Software string

	// CommandLine is recorded in the warcinfo record. The caller removes
	// passwords first; Create refuses one that holds a URL with a
	// password. Empty means none recorded.
	CommandLine string

	// TempDir is where record blocks over 1 MiB are spooled. Empty means
	// os.TempDir().
	TempDir string
}

// Record types, as CDXJ and Capture use them.
const (
	TypeResource = "resource"
	TypeResponse = "response"
	TypeRevisit  = "revisit"
	TypeMetadata = "metadata"
)

// ProfileIdenticalPayload is the WARC-Profile of a revisit record whose
// payload is identical to the one it refers to (WARC 1.1 section 6.7.2).
const ProfileIdenticalPayload = "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"

// errWriterClosed: a capture or Sync after Close.
var errWriterClosed = errors.New("warc: writer closed")

// ErrPassword: a URL or command line given to the writer still holds a
// password.
var ErrPassword = errors.New("warc: refusing to record a password")

// FieldError is a value that the writer refuses to put in a record's
// header because it holds a control character (WARC 1.1 section 4: a
// field value is TEXT; a CR or LF would end the header early and let the
// value add fields of its own). From Begin, Field names the Capture field
// ("URI", "IP", "ContentType", "MetadataType"); from the record's own
// check, the WARC header field.
type FieldError struct {
	Field string
	Value string
	At    int // the byte offset of the first control character in Value
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("warc: field %s %q: control character at byte %d", e.Field, e.Value, e.At)
}

// Writer writes WARC files. It is safe for concurrent use.
type Writer struct {
	opts  Options
	names *names
	fw    *fileWriter // only the writer's goroutine uses it, then Close

	// What the captures share is read without a lock where it can be
	// (closed, hasKnown, hosts, hasErr): the goroutines that commit run
	// on every processor, and a lock taken by each of them, and by the
	// writer's goroutine, moved its memory between the processors for
	// every capture.
	closed   atomic.Bool
	hasKnown atomic.Bool                       // known holds some
	hosts    atomic.Pointer[map[string]string] // host -> IP address last dialled; replaced, not changed
	hasErr   atomic.Bool                       // errs holds some

	mu      sync.Mutex
	known   map[string][]string // SHA-256 (hex) -> URIs of a mirror's manifest
	written map[string]bool     // file names written to
	errs    []error             // of the writer's goroutine
	hostsMu sync.Mutex          // held to replace hosts

	// Only the writer's goroutine uses these (and Create and Close,
	// before it starts and after it ends).
	seen map[sha1Sum]origin // payload digest -> first capture
	// at holds the other URIs a payload was captured at, besides its
	// first (seen): most payloads have one, and cost one map entry.
	at     map[capturedAt]bool
	index  map[string]*cdxLines // WARC file name -> its CDXJ lines, unsorted (Options.CDX)
	infoID string               // of the current file's warcinfo record; "" when no file is open

	unfinished []string // open files of earlier runs, found by Create
	// dropped holds the target URI of each capture aborted and not
	// followed by a committed capture of the same URI (a transfer tried
	// again that came whole); dropping is set at the first abort, so
	// that a commit looks at dropped only once there is one.
	dropped  map[string]bool
	dropping atomic.Bool
	// vals holds the header values the writer's goroutine makes for a
	// capture (date, record IDs, digests) while it makes them, and line
	// a CDXJ line; only the writer's goroutine uses them.
	vals, line []byte

	pend   budget       // memory of the jobs not yet written
	sendMu sync.RWMutex // held to send on jobs (read) and to close it
	jobs   chan job     // committed captures, in order
	// wake ends the writer's goroutine's sleep (see run) for a Sync or
	// a Close, which wait for it; timer times the sleep.
	wake  chan struct{}
	timer *time.Timer
	done  chan struct{} // closed when run has written every job
}

// sha1Sum is a SHA-1 digest.
type sha1Sum [sha1.Size]byte

// capturedAt is a payload (its digest) captured at a URI.
type capturedAt struct {
	sum sha1Sum
	uri string
}

// capturedBefore reports whether the payload sum was captured at uri
// before, given its first capture orig (dup: there is one).
func (w *Writer) capturedBefore(sum sha1Sum, uri string, orig origin, dup bool) bool {
	return dup && orig.URI == uri || w.at[capturedAt{sum, uri}]
}

// noteCaptured records that the payload sum was captured at uri; dup says
// whether it was captured before (at orig).
func (w *Writer) noteCaptured(sum sha1Sum, uri string, date time.Time, orig origin, dup bool) {
	switch {
	case !dup:
		w.seen[sum] = origin{URI: uri, Date: date}
	case orig.URI != uri:
		w.at[capturedAt{sum, uri}] = true
	}
}

// origin is where a payload was first captured.
type origin struct {
	URI  string
	Date time.Time
}

// Create opens a writer with opts. Nothing is written until the first
// record. The caller must Close it.
func Create(opts Options) (*Writer, error) {
	if opts.Name == "" {
		return nil, errors.New("warc: no file name given")
	}
	if hasPassword(opts.CommandLine) {
		return nil, fmt.Errorf("%w: in the command line", ErrPassword)
	}
	opts.Software = cmp.Or(opts.Software, "fetch")
	dir := filepath.Dir(opts.Name)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("warc: directory of %q: not a directory", opts.Name)
	}
	w := &Writer{
		opts:    opts,
		names:   &names{base: opts.Name, numbered: opts.MaxSize > 0},
		seen:    map[sha1Sum]origin{},
		known:   map[string][]string{},
		at:      map[capturedAt]bool{},
		written: map[string]bool{},
		index:   map[string]*cdxLines{},
	}
	w.hosts.Store(&map[string]string{})
	w.unfinished = filesOf(opts.Name, ".warc.gz.open")
	// The indexes of this name's earlier files, then the ones given.
	dedup := append(filesOf(opts.Name, ".cdxj"), opts.Dedup...)
	for _, f := range dedup {
		if err := w.loadIndex(f); err != nil {
			return nil, err
		}
	}
	// The writer's goroutine writes the records and the files (see
	// fileWriter), the warcinfo record of each and the rotation included.
	w.fw = newFileWriter(w.names)
	w.jobs = make(chan job, maxPending)
	w.wake = make(chan struct{}, 1)
	w.timer = time.NewTimer(time.Hour)
	w.timer.Stop()
	w.done = make(chan struct{})
	go w.run()
	return w, nil
}

// appendRecordID appends a new WARC-Record-ID to out, with its angle
// brackets: a random (version 4) UUID as a URN (RFC 9562 section 5.4, RFC
// 4122 section 3). The random bytes are read from crypto/rand a batch at
// a time.
func appendRecordID(out []byte) ([]byte, error) {
	var b [16]byte
	if err := ids.read(b[:]); err != nil {
		return out, err
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hexd = "0123456789abcdef"
	out = append(out, "<urn:uuid:"...)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, hexd[c>>4], hexd[c&0xf])
	}
	return append(out, '>'), nil
}

// ids is the batch of random bytes appendRecordID takes from.
var ids randBatch

// randBatch hands out bytes of crypto/rand, read 4 KiB at a time.
type randBatch struct {
	mu   sync.Mutex
	buf  [4096]byte
	next int // into buf; len(buf) when used up
}

func (r *randBatch) read(p []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.next == 0 || r.next+len(p) > len(r.buf) {
		if _, err := rand.Read(r.buf[:]); err != nil {
			return err
		}
		r.next = 0
	}
	r.next += copy(p, r.buf[r.next:])
	if r.next == len(r.buf) {
		r.next = 0
	}
	return nil
}

// placed is where a record was written.
type placed struct {
	File           string // base name of the WARC file
	Offset, Length int64  // of the record's gzip member in the file
}

// emit writes records to the current file, after a warcinfo record when
// the file is new, and closes the file once it reaches Options.MaxSize.
// Only the writer's goroutine calls it.
func (w *Writer) emit(records []*record, res []placed) ([]placed, error) {
	fw := w.fw
	if fw.f == nil {
		if err := fw.open(); err != nil {
			return nil, err
		}
		w.mu.Lock()
		w.written[fw.name] = true
		w.mu.Unlock()
		info, err := w.warcinfo(fw.name)
		if err != nil {
			return nil, err
		}
		if _, _, err = fw.write(info); err != nil {
			return nil, fmt.Errorf("warc: warcinfo: %w", err)
		}
		w.infoID = info.id
	}
	for _, r := range records {
		r.add("WARC-Warcinfo-ID", w.infoID)
		off, n, err := fw.write(r)
		if err != nil {
			return nil, err
		}
		res = append(res, placed{File: fw.name, Offset: off, Length: n})
	}
	if w.opts.MaxSize > 0 && fw.size >= w.opts.MaxSize {
		w.infoID = ""
		if err := fw.close(); err != nil {
			return res, err
		}
	}
	return res, nil
}

// warcinfo builds the first record of the file named file.
func (w *Writer) warcinfo(file string) (*record, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "software: %s\r\n", w.opts.Software)
	fmt.Fprintf(&b, "format: WARC File Format 1.1\r\n")
	fmt.Fprintf(&b, "conformsTo: http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n")
	if w.opts.CommandLine != "" {
		fmt.Fprintf(&b, "description: %s\r\n", oneLine(w.opts.CommandLine))
	}
	id, err := appendRecordID(nil)
	if err != nil {
		return nil, fmt.Errorf("warc: warcinfo: %w", err)
	}
	rec := newRecord("warcinfo", string(id), formatDate(time.Now()), nil)
	rec.setBlock(b.Bytes())
	rec.add("WARC-Filename", file)
	rec.add("Content-Type", "application/warc-fields")
	rec.add("WARC-Block-Digest", digestOf(b.Bytes()))
	return rec, nil
}

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// NoteAddress records that host (host:port, as in a URL) was reached at ip,
// for the WARC-IP-Address of the captures from it that did not dial a
// connection of their own (a kept connection). The address is kept for
// the host, whatever the port: the port does not change what a name
// resolves to, and an FTP mirror dials a data connection to a new port
// for every file.
func (w *Writer) NoteAddress(hostport, ip string) {
	key := hostKey(hostport)
	w.hostsMu.Lock()
	defer w.hostsMu.Unlock()
	old := *w.hosts.Load()
	if v, ok := old[key]; ok && v == ip {
		return
	}
	// A new map, so that lookups need no lock: a host changes its
	// address far less often than a capture looks one up.
	m := maps.Clone(old)
	m[key] = ip
	w.hosts.Store(&m)
}

// Address returns the IP address last noted for the host of hostport, or
// "".
func (w *Writer) Address(hostport string) string {
	return (*w.hosts.Load())[hostKey(hostport)]
}

// AddressOf returns the IP address last noted for host (as in a URL,
// without the port: see NoteAddress), or "". It makes no string: it is
// looked up for every capture.
func (w *Writer) AddressOf(host string) string {
	if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1] // IPv6
	}
	var buf [128]byte
	b := append(buf[:0], host...)
	for i, c := range b {
		switch {
		case c >= utf8.RuneSelf:
			return w.Address(host) // Unicode case
		case 'A' <= c && c <= 'Z':
			b[i] = c + 'a' - 'A'
		}
	}
	return (*w.hosts.Load())[string(b)]
}

// hostKey is the key of hostport (or a host alone) in Writer.hosts: the
// host, in lower case, without brackets.
func hostKey(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if len(host) > 1 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	return strings.ToLower(host)
}

// Known records that uri was captured before with a payload whose SHA-256
// is sha256hex (a mirror's manifest): a capture of the same payload at
// the same URI is then not written again, and at another URI it is a
// revisit record that refers to uri.
func (w *Writer) Known(uri, sha256hex string) {
	if uri == "" || sha256hex == "" || hasPassword(uri) {
		return
	}
	w.mu.Lock()
	w.known[sha256hex] = append(w.known[sha256hex], uri)
	w.hasKnown.Store(true)
	w.mu.Unlock()
}

// Capture describes one retrieval.
type Capture struct {
	// URI is the WARC-Target-URI, without a password.
	URI string
	// Date is when the retrieval started. Zero means now.
	Date time.Time
	// IP is the server's address (WARC-IP-Address). Empty means unknown.
	IP string
	// ContentType is the media type of the resource. Empty means
	// application/octet-stream.
	ContentType string
	// HTTPRequest, when not nil, makes the capture a request/response
	// pair: it holds the request's bytes, and HTTPResponse the response's
	// status line and header (through the blank line); the bytes written
	// to the Recorder are the response body.
	HTTPRequest  []byte
	HTTPResponse []byte
	// HTTPStatus is the response's status code, for the index.
	HTTPStatus int
	// HTTPFramed says that the response body came transfer-coded
	// (chunked): the body as received, its framing included, goes to the
	// block through Recorder.WriteBlock, and Write gets the payload (the
	// body decoded), for the payload digest only (WARC 1.1 section 5.9:
	// the payload of an HTTP response is its entity-body).
	HTTPFramed bool
	// Metadata, when not empty, is written as a metadata record
	// concurrent to the capture (an FTP control conversation). It must
	// hold no password.
	Metadata []byte
	// MetadataType is the Content-Type of Metadata. Empty means
	// text/plain.
	MetadataType string
	// AsMetadata writes the capture itself as a metadata record (Gopher+
	// attribute blocks), never as a revisit; nothing when the same
	// payload was captured at the same URI before (by an earlier run,
	// whose index the writer read).
	AsMetadata bool
	// SizeHint, when above zero, is the payload's length as announced
	// before it arrives (an FTP listing's size, a Content-Length). The
	// record's first buffer is made to fit; a payload that turns out
	// longer is recorded all the same.
	SizeHint int64
}

// Begin starts recording c. The caller writes the payload to the returned
// Recorder as it arrives, then calls Commit (the whole payload was read)
// or Abort.
func (w *Writer) Begin(c Capture) (*Recorder, error) {
	if hasPassword(c.URI) {
		return nil, fmt.Errorf("%w: in a target URI", ErrPassword)
	}
	for _, f := range [...]struct{ name, value string }{
		{"URI", c.URI}, {"IP", c.IP}, {"ContentType", c.ContentType}, {"MetadataType", c.MetadataType},
	} {
		if i := indexControl(f.value); i >= 0 {
			return nil, &FieldError{Field: f.name, Value: f.value, At: i}
		}
	}
	if c.Date.IsZero() {
		c.Date = time.Now()
	}
	c.Date = c.Date.UTC()
	typ := TypeResource
	if c.HTTPRequest != nil {
		typ = TypeResponse
	}
	if c.AsMetadata {
		typ = TypeMetadata
	}
	// The payload as announced and the HTTP header; a payload longer
	// than announced (a file that grew since it was listed) grows the
	// spool.
	hint := 0
	if c.SizeHint > 0 {
		hint = int(min(c.SizeHint+int64(len(c.HTTPResponse)), spoolMem))
	}
	if w.closed.Load() {
		return nil, errWriterClosed
	}
	r := &Recorder{w: w, c: c, typ: typ, framed: c.HTTPFramed && c.HTTPRequest != nil, want256: w.hasKnown.Load()}
	r.sp = &r.spool
	r.spool.init(w.opts.TempDir, hint)
	if c.HTTPRequest != nil {
		r.sp.Write(c.HTTPResponse) // in memory: it cannot fail
		r.head = len(c.HTTPResponse)
	}
	if r.framed {
		r.startSums()
	} else {
		r.lazy = true
	}
	return r, nil
}

// startSums starts the digests of a capture summed as its bytes pass, with
// what the spool's memory holds so far: the HTTP header, and the payload
// of a lazy capture that outgrows the memory.
func (r *Recorder) startSums() {
	r.newSums()
	r.sumPiece(r.sp.mem, 0)
}

// newSums takes the states of the digests summed piece by piece: the
// payload's, the block's (none without an HTTP header: the block is the
// payload, its digest computed once) and, when wanted, the payload's
// SHA-256.
func (r *Recorder) newSums() {
	r.sum = newSHA1()
	if r.c.HTTPRequest != nil {
		r.block = newSHA1()
	}
	if r.want256 {
		r.sum256 = sha256.New()
	}
}

// digestSpool computes the digests of a lazy capture from the spool's
// memory, which holds the whole block.
func (r *Recorder) digestSpool() {
	mem := r.sp.mem
	if n := len(r.zchunks); n > 0 {
		// The pieces are summed already, in order (startChunk).
		<-r.zchunks[n-1].hashed
		r.sumPiece(mem[r.zdone:], r.zdone)
		r.finishSums()
		return
	}
	r.payload = sha1.Sum(mem[r.head:])
	if r.c.HTTPRequest != nil {
		r.blockSum = sha1.Sum(mem)
	}
	if r.want256 {
		r.sum256Sum, r.has256 = sha256.Sum256(mem[r.head:]), true
	}
}

// indexControl returns the index of the first byte of s that may not
// stand in a WARC header field value, or -1 (WARC 1.1 section 4: a field
// value is TEXT, without control characters; a CR or LF would end the
// header early). A byte of a multi-byte UTF-8 sequence is never one of
// them.
func indexControl(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return i
		}
	}
	return -1
}

// sha1s holds the SHA-1 states of committed captures, for the next ones
// (a capture takes one or two).
var sha1s = sync.Pool{New: func() any { return sha1.New() }}

func newSHA1() hash.Hash {
	h := sha1s.Get().(hash.Hash)
	h.Reset()
	return h
}

// Recorder receives the payload of one capture.
type Recorder struct {
	w  *Writer
	c  Capture
	sp *spool // the record's block: the HTTP header, if any, and the payload
	// spool is sp's memory, allocated with the Recorder. The writer's
	// goroutine may replace sp (a revisit's block).
	spool spool
	typ   string
	head  int // length of the HTTP header at the start of the block
	// lazy: the digests are not summed as the bytes pass but computed,
	// once committed, from the spool's memory (digestSpool), off the
	// path of the transfer, which then only copies the bytes: by the
	// writer's goroutine, or, for a block of asyncMin bytes or more,
	// by a goroutine of their own (async). A capture whose payload
	// outgrows the memory is summed as it passes from then on
	// (startSums). One whose body came transfer-coded is never lazy: its
	// payload is not in the spool.
	lazy bool
	// digested is done once the digests of a lazy capture committed
	// are computed (Digest, and the writer's goroutine, wait for it).
	digested sync.WaitGroup
	queued   bool // committed to the writer's goroutine
	async    bool // its digests computed by a goroutine of their own (asyncMin)
	// zchunks are the first zdone bytes of the block, compressed in
	// pieces of zChunk as they arrived, each by a goroutine of its own
	// (zwg), while the transfer goes on; the rest is compressed once the
	// capture is committed, and deflated holds them all then, in order
	// (see compressChunk); nil when the writer's goroutine is to
	// compress the block, or store it.
	zchunks  []*zchunk
	zdone    int
	zwg      sync.WaitGroup
	deflated []piece
	// sum is the digest of the payload summed piece by piece: as the
	// bytes pass, or, for a lazy capture, by the goroutines of zchunks in
	// order; nil for a lazy capture without pieces, and once committed or
	// aborted.
	sum hash.Hash
	// block is the digest of the record's block: the HTTP header and
	// the payload; nil when there is no HTTP header (the block is the
	// payload, its digest sum).
	block hash.Hash
	// payload and blockSum are sum's and block's, kept by Commit and
	// Abort when they give the states back (or by digestSpool).
	payload, blockSum sha1Sum
	n                 int64
	// sum256 is the SHA-256 of the payload, when the writer knows a
	// manifest's (want256); nil otherwise. sum256Sum is its sum, kept
	// as payload is (has256).
	sum256    hash.Hash
	want256   bool
	has256    bool
	sum256Sum [sha256.Size]byte
	// framed: the block's body comes through WriteBlock, not Write
	// (Capture.HTTPFramed).
	framed   bool
	blockErr error // of WriteBlock
	done     bool
	err      error
}

// Write adds p to the payload. It fails only when the spool fails.
func (r *Recorder) Write(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.done {
		return 0, errors.New("warc: Write after Commit or Abort")
	}
	if r.lazy && len(r.sp.mem)+len(p) > spoolMem {
		// Past the memory: the digests could not be computed from it,
		// nor the block compressed.
		r.lazy = false
		r.dropChunks()
		r.startSums()
	}
	if r.framed {
		// The payload, for its digests; the block comes through
		// WriteBlock.
		r.sum.Write(p)
		if r.sum256 != nil {
			r.sum256.Write(p)
		}
		r.n += int64(len(p))
		return len(p), nil
	}
	if !r.lazy {
		r.sumPiece(p, r.head) // payload bytes, past the header
	}
	n, err := r.sp.Write(p)
	r.n += int64(n)
	if err != nil {
		r.err = fmt.Errorf("warc: spool: %w", err)
	}
	for r.lazy && len(r.sp.mem)-r.zdone >= zChunk {
		r.startChunk()
	}
	return n, r.err
}

// zChunk is the size of the pieces of a block compressed as they arrive.
// Each is compressed apart (its deflate blocks refer to none before it),
// which costs little: the window is 32 KiB.
const zChunk = 128 << 10

// zchunk is a piece of a block, made ready by a goroutine of its own, which
// then adds it to the capture's digests once the piece before it is in
// them (hashed is closed then).
type zchunk struct {
	p      piece
	hashed chan struct{}
}

// startChunk compresses the next zChunk bytes of the block, and adds them
// to the digests, in a goroutine of their own: the digests of a large
// block are done but for its last piece when the transfer ends.
func (r *Recorder) startChunk() {
	var prev chan struct{}
	if n := len(r.zchunks); n > 0 {
		prev = r.zchunks[n-1].hashed
	} else {
		r.newSums()
	}
	c := &zchunk{hashed: make(chan struct{})}
	r.zchunks = append(r.zchunks, c)
	// The spool's memory may move if it grows, but these bytes are
	// kept, and never changed.
	start := r.zdone
	data := r.sp.mem[start : start+zChunk]
	r.zdone += zChunk
	r.zwg.Add(1)
	go func() {
		defer r.zwg.Done()
		c.p = compressChunk(data, nil, false)
		if prev != nil {
			<-prev
		}
		r.sumPiece(data, start)
		close(c.hashed)
	}()
}

// sumPiece adds data, the bytes of the block from start, to the digests
// summed piece by piece: the block's all of them, the payload's those past
// the HTTP header.
func (r *Recorder) sumPiece(data []byte, start int) {
	if r.block != nil {
		r.block.Write(data)
	}
	if skip := r.head - start; skip > 0 {
		data = data[min(skip, len(data)):]
	}
	r.sum.Write(data)
	if r.sum256 != nil {
		r.sum256.Write(data)
	}
}

// dropChunks waits for the pieces being made ready and gives them up, and
// the digests summed from them.
func (r *Recorder) dropChunks() {
	r.zwg.Wait()
	for _, c := range r.zchunks {
		putPieces(c.p)
	}
	r.zchunks, r.zdone = nil, 0
	if r.sum != nil {
		sha1s.Put(r.sum)
	}
	if r.block != nil {
		sha1s.Put(r.block)
	}
	r.sum, r.block, r.sum256 = nil, nil, nil
}

// deflateRest compresses what the pieces left of the block, with the two
// CRLFs that end the record, and puts every piece in deflated.
func (r *Recorder) deflateRest() {
	last := compressChunk(r.sp.mem[r.zdone:], crlf2, true)
	r.zwg.Wait()
	r.deflated = make([]piece, 0, len(r.zchunks)+1)
	for _, c := range r.zchunks {
		r.deflated = append(r.deflated, c.p)
	}
	r.deflated = append(r.deflated, last)
	r.zchunks = nil
}

// WriteBlock adds p to the block of a capture whose body came
// transfer-coded (Capture.HTTPFramed): the body as received. It may be
// called from another goroutine than Write, but not at the same time as
// another WriteBlock, and not after Commit or Abort.
func (r *Recorder) WriteBlock(p []byte) (int, error) {
	if !r.framed {
		return 0, errors.New("warc: WriteBlock on a capture not HTTPFramed")
	}
	if r.blockErr != nil {
		return 0, r.blockErr
	}
	if r.block == nil {
		return 0, errors.New("warc: WriteBlock after Commit or Abort")
	}
	r.block.Write(p)
	n, err := r.sp.Write(p)
	if err != nil {
		r.blockErr = fmt.Errorf("warc: spool: %w", err)
	}
	return n, r.blockErr
}

// SetMetadata sets the capture's Metadata (see Capture) before Commit: an
// FTP control conversation known only once the transfer ended.
func (r *Recorder) SetMetadata(b []byte) { r.c.Metadata = b }

// Abort drops the capture; Dropped reports it. It may be called after
// Commit, to no effect.
func (r *Recorder) Abort() {
	if !r.done {
		r.done = true
		r.discard()
		r.w.mu.Lock()
		if r.w.dropped == nil {
			r.w.dropped = map[string]bool{}
		}
		r.w.dropped[r.c.URI] = true
		r.w.dropping.Store(true)
		r.w.mu.Unlock()
	}
}

// maxDropped bounds the URIs Dropped returns.
const maxDropped = 20

// Dropped returns how many target URIs had a capture begun and dropped
// (Abort: the body was not read to its end, or failed) with no capture of
// the same URI committed after it, and the first of those URIs in sorted
// order (at most 20): a transfer tried again that came whole is archived
// and not counted; the last attempt at a URI decides. A program should
// say so: the archive lacks what those transfers began to retrieve.
func (w *Writer) Dropped() (n int, uris []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	uris = slices.Sorted(maps.Keys(w.dropped))
	return len(uris), uris[:min(len(uris), maxDropped)]
}

// Digest is the payload digest of what was written so far ("sha1:" and
// base32); after Commit or Abort, of the whole payload.
func (r *Recorder) Digest() string {
	switch {
	case r.queued:
		r.digested.Wait()
		return string(appendSHA1(nil, r.payload))
	case r.lazy && !r.done:
		return string(appendSHA1(nil, sha1.Sum(r.sp.mem[r.head:])))
	case r.sum == nil:
		return string(appendSHA1(nil, r.payload))
	}
	var sum sha1Sum
	r.sum.Sum(sum[:0])
	return string(appendSHA1(nil, sum))
}

// discard gives up what r holds: its digests' states, its pieces and its
// spool.
func (r *Recorder) discard() {
	r.release()
	r.dropChunks()
	r.sp.Close()
}

// release keeps the digests of sum and block and gives their states back;
// those of a lazy capture, it computes.
func (r *Recorder) release() {
	if r.lazy {
		r.digestSpool()
		return
	}
	r.finishSums()
}

// finishSums keeps the digests summed piece by piece and gives their
// states back, if there are any.
func (r *Recorder) finishSums() {
	if r.sum == nil {
		return
	}
	// Summed into r's arrays: a local one would escape to the heap.
	r.sum.Sum(r.payload[:0])
	sha1s.Put(r.sum)
	r.sum = nil
	if r.block != nil {
		r.block.Sum(r.blockSum[:0])
		sha1s.Put(r.block)
		r.block = nil
	}
	if r.sum256 != nil {
		r.sum256.Sum(r.sum256Sum[:0])
		r.has256 = true
		r.sum256 = nil
	}
}

// appendSHA1 appends sum as WARC writes a digest: "sha1:" and base32.
func appendSHA1(b []byte, sum sha1Sum) []byte {
	b = append(b, "sha1:"...)
	n := len(b)
	b = append(b, make([]byte, base32.StdEncoding.EncodedLen(sha1.Size))...)
	base32.StdEncoding.Encode(b[n:], sum[:])
	return b
}

// parseSHA1 reads a digest as appendSHA1 writes it, with or without its
// "sha1:" prefix.
func parseSHA1(s string) (sum sha1Sum, ok bool) {
	if len(s) > 5 && strings.EqualFold(s[:5], "sha1:") {
		s = s[5:]
	}
	if base32.StdEncoding.EncodedLen(sha1.Size) != len(s) {
		return sum, false
	}
	n, err := base32.StdEncoding.Decode(sum[:], []byte(s))
	return sum, err == nil && n == sha1.Size
}

// Commit writes the capture's records: a resource (or request and
// response) record, or a revisit record when an earlier capture had the
// same payload, and a metadata record when the capture has Metadata. When
// an earlier capture had the same payload at the same URI, nothing is
// written: the resource is unchanged and archived already.
func (r *Recorder) Commit() error {
	if r.done {
		return errors.New("warc: capture already committed or aborted")
	}
	r.done = true
	if r.err == nil {
		r.err = r.blockErr
	}
	if r.err != nil {
		r.discard()
		return r.err
	}
	w := r.w
	w.sendMu.RLock()
	defer w.sendMu.RUnlock()
	if w.closed.Load() {
		r.discard()
		return errWriterClosed
	}
	if w.dropping.Load() {
		w.mu.Lock()
		delete(w.dropped, r.c.URI) // an earlier attempt's, now archived
		w.mu.Unlock()
	}
	// Whether the payload was archived already, and the records, are
	// for the writer's goroutine to find and write, in the order of the
	// commits, while the caller goes on with its next transfer.
	mem := int64(cap(r.sp.mem))
	async := r.lazy && len(r.sp.mem) >= asyncMin
	if async {
		mem *= 2 // and the block compressed
	}
	if w.pend.tight() || len(w.jobs) >= maxPending/2 {
		// The writer's goroutine may be asleep (see run): a queue
		// that fills would wait for it.
		w.wakeUp()
	}
	w.pend.acquire(mem)
	switch {
	case async:
		// The digests are computed meanwhile, on another processor,
		// and the block compressed (compressChunk), while the caller
		// goes on with its next transfer; the writer's goroutine
		// waits for them.
		r.queued, r.async = true, true
		r.digested.Add(1)
		go func() {
			r.digestSpool()
			r.deflateRest()
			r.digested.Done()
		}()
	case r.lazy:
		// The writer's goroutine computes them.
		r.queued = true
		r.digested.Add(1)
	default:
		r.release()
	}
	w.jobs <- job{r: r, mem: mem}
	return w.failed()
}

// asyncMin is the size of a block from which the digests of a lazy
// capture are computed, and its block compressed, by a goroutine of their
// own, not by the writer's, which would do it one capture after the other
// (on one processor: deflate at level 1 makes about 130 MB/s of text in a
// busy process, what a link of 1 Gbit/s brings).
const asyncMin = 8 << 10

// budget bounds the memory held by the captures committed but not yet
// written.
type budget struct {
	used    atomic.Int64
	waiting atomic.Int32 // acquires waiting on cond
	mu      sync.Mutex
	cond    sync.Cond
}

// fits reports whether n more bytes fit when used are taken (one capture
// is let through whatever its size, when none is pending).
func fits(used, n int64) bool { return used == 0 || used+n <= maxPendingMem }

// acquire waits until n more bytes fit in maxPendingMem and takes them.
func (b *budget) acquire(n int64) {
	for {
		if u := b.used.Load(); fits(u, n) {
			if b.used.CompareAndSwap(u, u+n) {
				return
			}
			continue
		}
		b.mu.Lock()
		if b.cond.L == nil {
			b.cond.L = &b.mu
		}
		b.waiting.Add(1)
		for !fits(b.used.Load(), n) {
			b.cond.Wait()
		}
		b.waiting.Add(-1)
		b.mu.Unlock()
	}
}

// release gives back n bytes taken by acquire.
func (b *budget) release(n int64) {
	b.used.Add(-n)
	if b.waiting.Load() > 0 {
		b.mu.Lock()
		b.cond.Broadcast()
		b.mu.Unlock()
	}
}

// tight reports whether more than half of maxPendingMem is taken.
func (b *budget) tight() bool { return b.used.Load() > maxPendingMem/2 }

// job is a committed capture waiting to be written.
type job struct {
	r   *Recorder
	mem int64 // taken from Writer.pend, given back once written
	// synced, when not nil, makes the job a Sync: the records before it
	// are written to the file, and the file (nil when none is open) and
	// the first error so far sent on synced.
	synced chan synced
}

// synced is the answer to a Sync job.
type synced struct {
	f   *os.File
	err error
}

// run writes the jobs in order until the channel is closed. Once a capture
// has woken it, it writes, sleeps, and writes what gathered meanwhile, until
// a sleep gathers nothing; then it waits on the queue: a wake-up per capture
// costs more CPU than writing its records (BENCHMARKS.md, "WARC writer's
// queue"). It sleeps sparseWait while fewer than denseRate captures come a
// millisecond, else denseWait; a queue half full, in count or in memory, is
// written without a sleep, and a commit that finds it so ends the sleep.
// Records reach the file at most flushEvery apart, and when the writer is
// closed.
func (w *Writer) run() {
	defer close(w.done)
	flushed := time.Now()
	for j := range w.jobs {
		w.do(j)
		wait := sparseWait
		for {
			slept := time.Duration(0)
			if len(w.jobs) < maxPending/2 && !w.pend.tight() {
				w.sleep(wait)
				slept = wait
			}
			n, open := w.drain()
			if !open {
				return
			}
			if time.Since(flushed) >= flushEvery {
				w.keep(w.fw.flush())
				flushed = time.Now()
			}
			if n == 0 {
				break
			}
			wait = sparseWait
			if n >= denseRate*int(slept/time.Millisecond) {
				wait = denseWait
			}
		}
	}
}

// sleep waits d, or less when woken (wakeUp).
func (w *Writer) sleep(d time.Duration) {
	w.timer.Reset(d)
	select {
	case <-w.timer.C:
	case <-w.wake:
		w.timer.Stop()
	}
}

// wakeUp ends the writer's goroutine's sleep, if it sleeps.
func (w *Writer) wakeUp() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// drain carries out the jobs waiting in the queue, and returns how many
// it did and whether the queue is still open.
func (w *Writer) drain() (n int, open bool) {
	for {
		select {
		case j, ok := <-w.jobs:
			if !ok {
				return n, false
			}
			w.do(j)
			n++
		default:
			return n, true
		}
	}
}

// do carries out one job of the writer's goroutine.
func (w *Writer) do(j job) {
	if j.synced == nil {
		w.keep(w.write(j))
		w.pend.release(j.mem)
		return
	}
	err := w.fw.flush()
	if err == nil {
		err = w.failed()
	}
	j.synced <- synced{f: w.fw.f, err: err}
}

// Sync returns once every capture committed before it is written to the
// WARC file and the file is synced to stable storage, with the first
// error met in writing so far. A mirror calls it before it saves its
// manifest, so that a run killed without warning never has a manifest
// that lists a file whose records were still in memory (the next run
// would find the file unchanged and archive nothing for it).
func (w *Writer) Sync() error {
	ch := make(chan synced, 1)
	w.sendMu.RLock()
	if w.closed.Load() {
		w.sendMu.RUnlock()
		return errWriterClosed
	}
	w.jobs <- job{synced: ch}
	w.sendMu.RUnlock()
	w.wakeUp()
	r := <-ch
	if r.err != nil || r.f == nil {
		return r.err
	}
	// The fsync runs here, not in the writer's goroutine, which goes on
	// writing meanwhile: on a slow disk it can take a while. A file closed
	// meanwhile (rotation) was synced before it was closed.
	if err := r.f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("warc: sync: %w", err)
	}
	return nil
}

// How long the writer's goroutine lets captures gather (see run):
// maxPending of them fit meanwhile.
const (
	sparseWait = 25 * time.Millisecond
	denseWait  = time.Millisecond
	denseRate  = 5 // captures a millisecond
)

// flushEvery bounds how long written records stay in the file writer's
// buffer (64 KiB; a full buffer is written out at once).
const flushEvery = 200 * time.Millisecond

// keep records an error of the writer's goroutine.
func (w *Writer) keep(err error) {
	if err != nil {
		w.mu.Lock()
		w.errs = append(w.errs, err)
		w.hasErr.Store(true)
		w.mu.Unlock()
	}
}

// failed returns the first write error so far, or nil.
func (w *Writer) failed() error {
	if !w.hasErr.Load() {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.errs) > 0 {
		return w.errs[0]
	}
	return nil
}

// write builds and writes the records of j.
func (w *Writer) write(j job) error {
	r := j.r
	c := &r.c
	orig, dup, same := w.lookup(r)
	if same {
		// The same payload at the same address: unchanged, and
		// already archived (a metadata capture too, such as a gopher
		// menu's "$", found by the index of an earlier run). Nothing is
		// written.
		r.sp.Close()
		putPieces(r.deflated...)
		return nil
	}
	revisit := dup && !c.AsMetadata && r.n > 0
	typ, block := r.typ, r.sp
	deflated := r.deflated
	r.deflated = nil
	defer putPieces(deflated...)
	if revisit {
		// The payload is kept elsewhere: a revisit record, whose block
		// is the HTTP header alone (none for other schemes).
		r.sp.Close()
		typ, block = TypeRevisit, nil
	}
	v, err := w.values(r, orig, revisit)
	if err != nil {
		block.Close()
		return fmt.Errorf("warc: %s: %w", c.URI, err)
	}
	main, ct := mainRecord(c, v, typ, block, deflated, orig, revisit)
	var all [3]*record
	records, mainIdx := w.withConcurrent(all[:0], main, c, v)
	var places [3]placed
	res, err := w.emit(records, places[:0])
	for _, r := range records {
		r.close()
	}
	if err != nil {
		return fmt.Errorf("warc: %s: %w", c.URI, err)
	}
	w.indexCapture(c, v, res[mainIdx], ct, typ, revisit)
	return nil
}

// lookup waits for r's digests and finds the first capture of the same
// payload (orig, dup): in this run, or in an earlier one by the index.
// same says the payload was captured at the same address already. A
// capture that is not metadata is noted for the captures to come.
func (w *Writer) lookup(r *Recorder) (orig origin, dup, same bool) {
	c := &r.c
	switch {
	case r.async:
		r.digested.Wait()
	case r.lazy:
		r.digestSpool()
		r.digested.Done()
	}
	orig, dup = w.seen[r.payload]
	same = w.capturedBefore(r.payload, c.URI, orig, dup)
	if r.has256 {
		w.mu.Lock()
		uris := w.known[hex.EncodeToString(r.sum256Sum[:])]
		w.mu.Unlock()
		if len(uris) > 0 {
			same = same || slices.Contains(uris, c.URI)
			if !dup {
				orig, dup = origin{URI: uris[0]}, true
			}
		}
	}
	if !c.AsMetadata {
		w.noteCaptured(r.payload, c.URI, c.Date, orig, dup)
	}
	return orig, dup, same
}

// mainRecord makes the capture's main record (response, resource,
// metadata or revisit) with its headers, and returns it with its
// Content-Type ("" for none).
func mainRecord(c *Capture, v recordValues, typ string, block *spool, deflated []piece, orig origin, revisit bool) (*record, string) {
	main := newRecord(typ, v[vMainID], v[vDate], block)
	if revisit {
		main.setBlock(c.HTTPResponse)
	} else if deflated != nil {
		main.deflated = deflated
	}
	main.add("WARC-Target-URI", c.URI)
	if c.IP != "" {
		main.add("WARC-IP-Address", c.IP)
	}
	ct := c.ContentType
	switch {
	case c.HTTPRequest != nil:
		ct = "application/http;msgtype=response"
	case revisit:
		ct = ""
	case ct == "":
		ct = "application/octet-stream"
	}
	if revisit {
		main.add("WARC-Profile", ProfileIdenticalPayload)
		main.add("WARC-Refers-To-Target-URI", orig.URI)
		if v[vRefersDate] != "" {
			main.add("WARC-Refers-To-Date", v[vRefersDate])
		}
	}
	main.add("WARC-Block-Digest", v[vBlockDigest])
	main.add("WARC-Payload-Digest", v[vDigest])
	if ct != "" {
		main.add("Content-Type", ct)
	}
	return main, ct
}

// withConcurrent appends to records the capture's records in the order
// they are written: the HTTP request (sent first), main, and the
// metadata, each of the others concurrent to main. It returns them and
// main's index.
func (w *Writer) withConcurrent(records []*record, main *record, c *Capture, v recordValues) ([]*record, int) {
	mainIdx := 0
	if c.HTTPRequest != nil {
		req := newRecord("request", v[vReqID], v[vDate], nil)
		req.setBlock(c.HTTPRequest)
		w.concurrent(req, c, main.id, "application/http;msgtype=request", v[vReqDigest])
		req.add("WARC-Payload-Digest", v[vReqPayload])
		main.add("WARC-Concurrent-To", req.id)
		records = append(records, req)
		mainIdx = 1
	}
	records = append(records, main)
	if len(c.Metadata) > 0 {
		mt := cmp.Or(c.MetadataType, "text/plain")
		meta := newRecord(TypeMetadata, v[vMetaID], v[vDate], nil)
		meta.setBlock(c.Metadata)
		w.concurrent(meta, c, main.id, mt, v[vMetaDigest])
		records = append(records, meta)
	}
	return records, mainIdx
}

// indexCapture adds the CDX line of the capture, whose main record was
// written at wr, when the writer makes an index. The line is made here,
// while the transfers go on, not all at once when the writer is closed.
func (w *Writer) indexCapture(c *Capture, v recordValues, wr placed, ct, typ string, revisit bool) {
	if !w.opts.CDX {
		return
	}
	e := cdxEntry{URI: c.URI, Date: c.Date, Digest: v[vDigest], File: wr.File, Offset: wr.Offset, Length: wr.Length, Status: c.HTTPStatus, Mime: ct, Type: typ}
	switch {
	case revisit:
		e.Mime = "warc/revisit"
	case c.HTTPRequest != nil:
		e.Mime = mimeOnly(c.ContentType)
	}
	w.line = e.appendLine(w.line[:0])
	lines := w.index[e.File]
	if lines == nil {
		lines = &cdxLines{}
		w.index[e.File] = lines
	}
	lines.add(w.line)
}

// recordValues are the header values the writer makes for the records of
// a capture, indexed by the constants below, in the order values makes
// them.
type recordValues [nValues]string

// The values of recordValues.
const (
	vDate        = iota // WARC-Date of every record
	vRefersDate         // WARC-Refers-To-Date of a revisit
	vMainID             // record IDs: the main record's,
	vReqID              // the HTTP request's,
	vMetaID             // the metadata record's (FTP's control conversation)
	vDigest             // the payload digest
	vBlockDigest        // the main record's block digest
	vReqDigest          // the request record's block digest,
	vReqPayload         // and its payload digest
	vMetaDigest         // the metadata record's block digest
	nValues
)

// valueBuf holds values appended one after the other to b; ends[k] is
// where value k ends (it starts where value k-1 ends).
type valueBuf struct {
	b    []byte
	ends [nValues]int
}

// end ends value k with what was appended since value k-1 ended (nothing
// for a value the capture does not need).
func (v *valueBuf) end(k int) { v.ends[k] = len(v.b) }

// values makes the header values of r's records, all in one string: a
// capture's records need up to ten, which would otherwise each take an
// allocation of their own.
func (w *Writer) values(r *Recorder, orig origin, revisit bool) (recordValues, error) {
	c := &r.c
	v := valueBuf{b: w.vals[:0]}
	var err error
	v.b = appendDate(v.b, c.Date)
	v.end(vDate)
	if revisit && !orig.Date.IsZero() {
		v.b = appendDate(v.b, orig.Date)
	}
	v.end(vRefersDate)
	for i, need := range [...]bool{true, c.HTTPRequest != nil, len(c.Metadata) > 0} {
		if need {
			if v.b, err = appendRecordID(v.b); err != nil {
				return recordValues{}, err
			}
		}
		v.end(vMainID + i)
	}
	v.b = appendSHA1(v.b, r.payload)
	v.end(vDigest)
	switch {
	case revisit:
		v.b = appendSHA1(v.b, sha1.Sum(c.HTTPResponse))
	case c.HTTPRequest != nil:
		v.b = appendSHA1(v.b, r.blockSum)
	}
	v.end(vBlockDigest) // empty when the block is the payload
	if c.HTTPRequest != nil {
		v.b = appendSHA1(v.b, sha1.Sum(c.HTTPRequest))
	}
	v.end(vReqDigest)
	if c.HTTPRequest != nil {
		sum := emptySum // a GET's
		if _, body, _ := bytes.Cut(c.HTTPRequest, []byte("\r\n\r\n")); len(body) > 0 {
			sum = sha1.Sum(body)
		}
		v.b = appendSHA1(v.b, sum)
	}
	v.end(vReqPayload)
	if len(c.Metadata) > 0 {
		v.b = appendSHA1(v.b, sha1.Sum(c.Metadata))
	}
	v.end(vMetaDigest)
	w.vals = v.b
	s := string(v.b)
	var rv recordValues
	for k, start := 0, 0; k < nValues; k++ {
		rv[k], start = s[start:v.ends[k]], v.ends[k]
	}
	rv[vBlockDigest] = cmp.Or(rv[vBlockDigest], rv[vDigest]) // none: the block is the payload
	return rv, nil
}

// concurrent adds to r, a record about c beside the one of ID id, its
// fields: target, address, Content-Type ct and block digest.
func (w *Writer) concurrent(r *record, c *Capture, id, ct, blockDigest string) {
	r.add("WARC-Target-URI", c.URI)
	if c.IP != "" {
		r.add("WARC-IP-Address", c.IP)
	}
	r.add("WARC-Concurrent-To", id)
	r.add("Content-Type", ct)
	r.add("WARC-Block-Digest", blockDigest)
}

// emptySum is the digest of no bytes.
var emptySum = sha1Sum(sha1.Sum(nil))

// digestOf is the digest of b as WARC writes it.
func digestOf(b []byte) string { return string(appendSHA1(nil, sha1.Sum(b))) }

func mimeOnly(ct string) string {
	ct, _, _ = strings.Cut(ct, ";")
	return strings.TrimSpace(ct)
}

// maxPending and maxPendingMem bound the captures committed but not yet
// written: their number, and the memory of their blocks (each holds at
// most 1 MiB in memory, the rest of a block spooled to a temporary file).
// The queue is long enough that a mirror of small files does not wait for
// the writer while a batch gathers (BENCHMARKS.md, "WARC writer's queue").
const (
	maxPending    = 1024
	maxPendingMem = 16 << 20
)

// Files returns the WARC files written so far, sorted.
func (w *Writer) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for f := range w.written {
		out = append(out, filepath.Join(filepath.Dir(w.opts.Name), f))
	}
	sort.Strings(out)
	return out
}

// Close writes the captures committed, finishes the current file and,
// with Options.CDX, writes the indexes. It returns every error met in
// writing (Commit returns only those met before it). Close may be called
// more than once.
func (w *Writer) Close() error {
	w.sendMu.Lock()
	if w.closed.Load() {
		w.sendMu.Unlock()
		return nil
	}
	w.closed.Store(true)
	close(w.jobs)
	w.wakeUp()
	w.sendMu.Unlock()
	<-w.done
	w.mu.Lock()
	errs := append([]error(nil), w.errs...)
	w.mu.Unlock()
	errs = append(errs, w.fw.close())
	if w.opts.CDX {
		errs = append(errs, w.writeIndexes())
	}
	return errors.Join(errs...)
}

// hasPassword reports whether s holds a URL with a password
// ("scheme://user:pass@") other than a redacted one ("xxxxx", "****").
func hasPassword(s string) bool {
	if strings.IndexByte(s, '@') < 0 {
		return false // no user information anywhere
	}
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			return false
		}
		rest := s[i+3:]
		s = rest
		if end := strings.IndexFunc(rest, unicode.IsSpace); end >= 0 {
			rest = rest[:end]
		}
		if end := strings.IndexAny(rest, "/?#"); end >= 0 {
			rest = rest[:end]
		}
		at := strings.LastIndexByte(rest, '@')
		if at < 0 {
			continue
		}
		_, pass, ok := strings.Cut(rest[:at], ":")
		if ok && !secret.Masked(pass) {
			return true
		}
	}
}

// names generates the file names: Name.warc (unless numbered), then
// Name-00001.warc, Name-00002.warc, ..., skipping the names taken.
type names struct {
	base     string
	numbered bool
	mu       sync.Mutex
	next     int
}

// NewWarcfileName takes the next free name and returns its directory and
// base name.
func (g *names) NewWarcfileName() (string, string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for ; g.next < maxFiles; g.next++ {
		name := g.base + ".warc"
		if g.next > 0 || g.numbered {
			if g.next == 0 {
				g.next = 1
			}
			name = fmt.Sprintf("%s-%05d.warc", g.base, g.next)
		}
		if !exists(name+".gz") && !exists(name+".gz.open") {
			g.next++
			return filepath.Dir(name), filepath.Base(name)
		}
	}
	// Every name is taken: the file creation fails (O_EXCL) and says so.
	return filepath.Dir(g.base), filepath.Base(g.base) + "-99999.warc"
}

// maxFiles bounds the numbered names tried.
const maxFiles = 99999

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// Unfinished returns the WARC files of this name that an earlier run left
// open (NAME.warc.gz.open, NAME-NNNNN.warc.gz.open), found by Create: that
// run stopped without closing them, so they have no index and their last
// record may be cut. They hold the records it wrote (every one its
// mirror's manifest lists, see Sync); the writer leaves them alone and
// writes under other names. A program should say so: they belong with the
// archive.
func (w *Writer) Unfinished() []string { return slices.Clone(w.unfinished) }

// filesOf lists the files name+suffix and name-NNNNN+suffix that exist.
func filesOf(name, suffix string) []string {
	var out []string
	if exists(name + suffix) {
		out = append(out, name+suffix)
	}
	more, _ := filepath.Glob(globEscape(name) + "-[0-9][0-9][0-9][0-9][0-9]" + globEscape(suffix))
	return append(out, more...)
}

func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

var _ io.Writer = (*Recorder)(nil)
