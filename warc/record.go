package warc

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// record is one WARC record ready to be written (WARC 1.1 section 4): its
// type, header fields in order, and block. Content-Length is added when it
// is written, from the block's size.
type record struct {
	typ    string
	id     string // WARC-Record-ID, with its angle brackets
	fields []field
	room   [12]field // fields' first array: a record has at most 12
	block  *spool
	own    spool // the block, when the record holds bytes it does not own (setBlock)
	// deflated, when not nil, is the block and the two CRLFs that end
	// the record, compressed already, in pieces (compressChunk): the file
	// writer writes the header before them (writeDeflated).
	deflated []piece
}

type field struct{ name, value string }

// newRecord starts a record of type typ with the WARC-Record-ID id
// (appendRecordID) and the WARC-Date date (appendDate), holding block (nil
// for an empty block; see also setBlock).
func newRecord(typ, id, date string, block *spool) *record {
	r := records.Get().(*record)
	r.typ, r.id, r.block = typ, id, block
	r.fields = r.room[:0]
	r.add("WARC-Type", typ)
	r.add("WARC-Record-ID", r.id)
	r.add("WARC-Date", date)
	return r
}

// setBlock makes b (not copied) the record's block.
func (r *record) setBlock(b []byte) {
	r.own = spool{mem: b, size: int64(len(b))}
	r.block = &r.own
}

func (r *record) add(name, value string) { r.fields = append(r.fields, field{name, value}) }

// size is the length of the record's block.
func (r *record) size() int64 {
	if r.block == nil {
		return 0
	}
	return r.block.size
}

// close releases the block (its temporary file, if any) and the record,
// which is not used after it.
func (r *record) close() {
	if r.block != nil {
		r.block.Close()
	}
	*r = record{}
	records.Put(r)
}

// records holds the records written, for the next ones: two or three are
// made for every capture.
var records = sync.Pool{New: func() any { return new(record) }}

// formatDate is a WARC-Date: UTC, to the nanosecond when the time has
// one (WARC 1.1 section 5.4 allows a fraction of a second).
func formatDate(t time.Time) string { return string(appendDate(nil, t)) }

// appendDate appends t as formatDate writes it to b.
func appendDate(b []byte, t time.Time) []byte {
	t = t.UTC()
	y := t.Year()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	// time.RFC3339Nano by hand: Format parses its layout each time.
	h, mi, sec := t.Clock()
	b = append(appendDigits(b, y, 4), '-')
	b = append(appendDigits(b, int(t.Month()), 2), '-')
	b = append(appendDigits(b, t.Day(), 2), 'T')
	b = append(appendDigits(b, h, 2), ':')
	b = append(appendDigits(b, mi, 2), ':')
	b = appendDigits(b, sec, 2)
	if ns := t.Nanosecond(); ns != 0 {
		b = appendDigits(append(b, '.'), ns, 9)
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
	}
	return append(b, 'Z')
}

// appendDigits appends v (0 <= v < 10^n) as n decimal digits, with
// leading zeros.
func appendDigits(b []byte, v, n int) []byte {
	b = append(b, make([]byte, n)...)
	for i := len(b) - 1; i >= len(b)-n; i-- {
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return b
}

// spoolMem is how much of a block is kept in memory; the rest goes to a
// temporary file, so that memory stays bounded whatever the size of a
// capture. A payload of 1 MiB and its HTTP header fit (spoolRoom).
const spoolMem = 1<<20 + spoolRoom

// spoolRoom is what the buffers of spoolPools hold besides a power of two,
// for an HTTP header: a block is a header and a payload whose size is
// often a power of two, and a buffer of that size exactly would take the
// next one up (or, for 1 MiB, a temporary file for the header's few
// hundred bytes).
const spoolRoom = 4 << 10

// spool holds a record's block as it is written: the first spoolMem bytes
// in memory, the rest in a temporary file in dir (removed by Close).
type spool struct {
	mem    []byte
	file   *os.File
	dir    string
	size   int64
	err    error
	pooled *[]byte // mem's buffer, from spoolPools, which it goes back to on Close
}

// init makes s an empty spool whose memory holds hint bytes (a few KiB
// when hint is 0: the size is not known), at most spoolMem: a buffer of
// the smallest of spoolPools that fits.
func (s *spool) init(dir string, hint int) {
	if hint <= 0 {
		hint = 4 << 10
	}
	*s = spool{dir: dir}
	for i, size := range spoolSizes {
		if hint <= size {
			s.pooled = spoolPools[i].Get().(*[]byte)
			s.mem = (*s.pooled)[:0]
			return
		}
	}
	s.mem = make([]byte, 0, spoolMem)
}

// spoolSizes are the sizes of the buffers of spoolPools, which hold the
// memory of closed spools for the next ones: a mirror would otherwise take
// fresh memory for every capture (and double a buffer until it fits a
// large one), and the first touch of fresh memory is what costs (the
// command's collector lets the heap grow by 64 MB, see gctune). A mirror
// of small files holds hundreds of small ones while a batch gathers; the
// writer's budget bounds the memory of those waiting (maxPendingMem).
var spoolSizes = [...]int{1 << 10, 4<<10 + spoolRoom, 16<<10 + spoolRoom, 64<<10 + spoolRoom, 256<<10 + spoolRoom, spoolMem}

var spoolPools [len(spoolSizes)]sync.Pool

func init() {
	for i, size := range spoolSizes {
		spoolPools[i].New = func() any {
			b := make([]byte, 0, size)
			return &b
		}
	}
}

func (s *spool) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n := len(p)
	if room := spoolMem - len(s.mem); room > 0 {
		k := min(room, len(p))
		s.mem = append(s.mem, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		if s.file == nil {
			s.file, s.err = os.CreateTemp(s.dir, "fetch-warc-*")
			if s.err != nil {
				return 0, s.err
			}
		}
		if _, s.err = s.file.Write(p); s.err != nil {
			return 0, s.err
		}
	}
	s.size += int64(n)
	return n, nil
}

// reader returns the block from its start.
func (s *spool) reader() (io.Reader, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.file == nil {
		return bytes.NewReader(s.mem), nil
	}
	if _, err := s.file.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.MultiReader(bytes.NewReader(s.mem), s.file), nil
}

// Close removes the temporary file, if any, and gives up the memory: the
// spool is not read after it.
func (s *spool) Close() error {
	if s.pooled != nil {
		// To the pool of the largest size the buffer (which may have
		// grown) holds.
		*s.pooled = s.mem[:0]
		for i := len(spoolSizes) - 1; i >= 0; i-- {
			if cap(s.mem) >= spoolSizes[i] {
				spoolPools[i].Put(s.pooled)
				break
			}
		}
	}
	s.pooled, s.mem = nil, nil
	if s.file == nil {
		return nil
	}
	f := s.file
	s.file = nil
	return errors.Join(f.Close(), os.Remove(f.Name()))
}

// appendHeader appends r's version line and header to b, through the
// blank line that ends it, and returns it. A field value holding a line
// break (which would end the header early) is refused.
func (r *record) appendHeader(b []byte) ([]byte, error) {
	start := len(b)
	b = append(b, "WARC/1.1\r\n"...)
	for _, f := range r.fields {
		b = append(b, f.name...)
		b = append(b, ": "...)
		b = append(b, f.value...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, r.size(), 10)
	b = append(b, "\r\n\r\n"...)
	// A line break in a value shows as one CR or LF more than the lines
	// written: counted over the whole header at once, which is cheaper
	// than a look at every value.
	h := b[start:]
	if n := len(r.fields) + 3; bytes.Count(h, lf) != n || bytes.Count(h, cr) != n {
		for _, f := range r.fields {
			if i := strings.IndexAny(f.value, "\r\n"); i >= 0 {
				return b[:start], &FieldError{Field: f.name, Value: f.value, At: i}
			}
		}
		return b[:start], errors.New("warc: header holds a line break")
	}
	return b, nil
}

var cr, lf = []byte{'\r'}, []byte{'\n'}
