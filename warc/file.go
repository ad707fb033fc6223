package warc

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// fileWriter writes records (serialised by marshal) to the current WARC
// file, each as a gzip member of its own (what WARC readers and the CDXJ
// offsets need), through one buffer, and counts the offset and length of
// each member. Only the writer's goroutine uses it.
//
// A file is written as NAME.warc.gz.open (created with O_EXCL, so an
// existing file is never overwritten) and renamed to NAME.warc.gz, the
// directory synced, when it is closed.
type fileWriter struct {
	names *names
	head  []byte // the header of the record being written, reused

	f    *os.File
	name string // base name of the current file ("b.warc.gz"); "" when none
	path string // its full path while open (with ".open")
	size int64  // bytes written to it (through bw)

	bw    *bufio.Writer
	gz    *gzip.Writer // level 1, for records of storeMax bytes or more; nil until one comes
	plain *gzip.Writer // no compression, for those whose block looks incompressible; nil until one comes
	out   member       // what marshal writes to: gz, with a reused copy buffer
	raw   []byte       // a small record, serialised, reused (see writeStored)
}

// storeMax is the size of content (the Content-Length of the record's
// block) below which a record's gzip member holds stored blocks, not
// compressed ones. For a block of a few hundred bytes, building the
// Huffman tables of a compressed member costs most of the time spent on
// the whole record (a mirror of small files wrote two such records per
// file), and saves a few hundred bytes at most; the member is a gzip
// member all the same, as WARC 1.1 annex D asks.
const storeMax = 2048

// member is the gzip writer of the current record, with a ReadFrom that
// copies a record's block through a buffer kept from record to record
// (io.Copy would allocate one for each record).
type member struct {
	gz  *gzip.Writer
	buf []byte
}

func (m *member) Write(p []byte) (int, error) { return m.gz.Write(p) }

func (m *member) ReadFrom(r io.Reader) (int64, error) {
	var n int64
	for {
		k, err := r.Read(m.buf)
		if k > 0 {
			if _, werr := m.gz.Write(m.buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// counter counts the bytes written to the file, through the buffer.
type counter struct{ fw *fileWriter }

func (c counter) Write(p []byte) (int, error) {
	n, err := c.fw.bw.Write(p)
	c.fw.size += int64(n)
	return n, err
}

func newFileWriter(n *names) *fileWriter {
	return &fileWriter{names: n, bw: bufio.NewWriterSize(nil, 64<<10)}
}

// open creates the next file; its name is then fw.name.
func (fw *fileWriter) open() error {
	dir, base := fw.names.NewWarcfileName()
	name := base + ".gz"
	path := filepath.Join(dir, name) + ".open"
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o666)
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	fw.f, fw.name, fw.path, fw.size = f, name, path, 0
	fw.bw.Reset(f)
	return nil
}

// write writes rec as one gzip member and returns where it starts in the
// file and its length (compressed).
func (fw *fileWriter) write(rec *record) (offset, length int64, err error) {
	offset = fw.size
	if rec.deflated != nil {
		err := fw.writeDeflated(rec)
		return offset, fw.size - offset, err
	}
	if rec.size() < storeMax && rec.block.file == nil {
		err := fw.writeStored(rec)
		return offset, fw.size - offset, err
	}
	if fw.out.buf == nil {
		fw.out.buf = make([]byte, 32<<10)
	}
	// The writers are made for the first record that needs them (level
	// 1's tables take most of a megabyte), in the writer's goroutine.
	// Level 1 (gzip.BestSpeed) for most; none for a block that looks
	// incompressible (a .gz, .zip or JPEG file): compressing it would
	// spend most of what archiving it costs, for nothing.
	var gz *gzip.Writer
	if incompressible(rec.block.mem) {
		if fw.plain == nil {
			fw.plain, _ = gzip.NewWriterLevel(nil, gzip.NoCompression)
		}
		gz = fw.plain
	} else {
		if fw.gz == nil {
			fw.gz, _ = gzip.NewWriterLevel(nil, gzip.BestSpeed)
		}
		gz = fw.gz
	}
	gz.Reset(counter{fw})
	fw.out.gz = gz
	err = fw.marshal(rec)
	if err == nil {
		err = gz.Close()
	}
	return offset, fw.size - offset, err
}

// incompressible reports whether b, the start of a block in memory, looks
// incompressible: in its last 4 KiB (past an HTTP header), nearly every
// byte value occurs, none more than four times as often as in random
// bytes. Compressed and encrypted data, and most images and archives, are
// so; text is not (a few dozen byte values), nor is machine code (zeros
// and a few opcodes dominate).
func incompressible(b []byte) bool {
	const sample = 4 << 10
	if len(b) > sample {
		b = b[len(b)-sample:]
	}
	if len(b) < 1<<10 {
		return false
	}
	var count [256]int
	for _, c := range b {
		count[c]++
	}
	distinct, most := 0, 0
	for _, n := range count {
		if n > 0 {
			distinct++
		}
		most = max(most, n)
	}
	return distinct >= 240 && most <= 4*len(b)/256
}

// writeStored writes rec, whose block is in memory, as a gzip member of
// stored (uncompressed) blocks. The member is made in the free space of
// the file's buffer (AvailableBuffer), so that it is copied once, not
// three times; a record longer than one stored block (a long URI) is
// made apart.
func (fw *fileWriter) writeStored(rec *record) error {
	need := 128 + int(rec.size())
	for _, f := range rec.fields {
		need += len(f.name) + len(f.value) + 4
	}
	if fw.bw.Available() < need {
		if err := fw.bw.Flush(); err != nil {
			return err
		}
	}
	b := fw.bw.AvailableBuffer()
	// The header of one final stored block follows the member's, its
	// length filled in below.
	b = append(append(b, gzipHeader...), 1, 0, 0, 0, 0)
	data := len(b)
	b, err := rec.appendHeader(b)
	if err != nil {
		return err
	}
	if rec.block != nil {
		b = append(b, rec.block.mem...)
	}
	b = append(b, "\r\n\r\n"...)
	n := len(b) - data
	if n > 0xffff {
		return fw.writeStoredLong(b[data:])
	}
	binary.LittleEndian.PutUint16(b[data-4:], uint16(n))
	binary.LittleEndian.PutUint16(b[data-2:], ^uint16(n))
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b[data:]))
	b = binary.LittleEndian.AppendUint32(b, uint32(n))
	_, err = counter{fw}.Write(b)
	return err
}

// writeStoredLong writes data, a serialised record, as a gzip member of
// as many stored blocks as it takes.
func (fw *fileWriter) writeStoredLong(data []byte) error {
	fw.raw = append(fw.raw[:0], data...) // data is in the buffer's free space
	fw.head = appendStoredMember(fw.head[:0], fw.raw)
	_, err := counter{fw}.Write(fw.head)
	return err
}

// deflaters holds level-1 deflate writers for compressChunk (one takes
// most of a megabyte of tables).
var deflaters = sync.Pool{New: func() any {
	fw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return fw
}}

// deflatedBufs holds the buffers compressChunk fills.
var deflatedBufs = sync.Pool{New: func() any { return new([]byte) }}

// byteSink appends what is written to it to a slice.
type byteSink struct{ b *[]byte }

func (s byteSink) Write(p []byte) (int, error) {
	*s.b = append(*s.b, p...)
	return len(p), nil
}

// piece is a part of a block made ready to be written (compressChunk):
// deflate blocks compressed already (z), or bytes to be written as they
// are in stored blocks (plain), the last of them final when final says so.
// Either way it ends on a byte, where the next piece begins.
type piece struct {
	z     *[]byte
	plain [2][]byte
	final bool
}

// compressChunk makes data and then tail a piece of a block: compressed at
// level 1, or, when data looks incompressible, stored; its last block is
// final when final says so, else a compressed piece ends with a sync
// flush. Such pieces, in order, are the rest of a gzip member whose start,
// the record's header in stored blocks, the writer's goroutine writes once
// it knows the header (writeDeflated).
func compressChunk(data, tail []byte, final bool) piece {
	if incompressible(data) {
		return piece{plain: [2][]byte{data, tail}, final: final}
	}
	out := deflatedBufs.Get().(*[]byte)
	*out = slices.Grow((*out)[:0], len(data)/2+len(tail)+64)
	zw := deflaters.Get().(*flate.Writer)
	zw.Reset(byteSink{out})
	// To memory: the writes cannot fail.
	zw.Write(data)
	if final {
		zw.Write(tail)
		zw.Close()
	} else {
		zw.Flush()
	}
	deflaters.Put(zw)
	return piece{z: out, final: final}
}

// storedBlocks writes parts to w as stored deflate blocks (RFC 1951
// section 3.2.4), the last one final when final says so (an empty one if
// there is nothing to store). Each begins on a byte, and so does what
// follows it.
func storedBlocks(w io.Writer, final bool, parts ...[]byte) error {
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	i := 0
	var h [5]byte
	for first := true; first || size > 0; first = false {
		n := min(size, 0xffff)
		size -= n
		bfinal := byte(0)
		if size == 0 && final {
			bfinal = 1
		}
		if n == 0 && bfinal == 0 {
			break
		}
		if _, err := w.Write(append(h[:0], bfinal, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))); err != nil {
			return err
		}
		for n > 0 {
			for len(parts[i]) == 0 {
				i++
			}
			k := min(n, len(parts[i]))
			if _, err := w.Write(parts[i][:k]); err != nil {
				return err
			}
			parts[i], n = parts[i][k:], n-k
		}
	}
	return nil
}

// putPieces gives the buffers of pieces back; a large one is left to the
// collector.
func putPieces(ps ...piece) {
	for _, p := range ps {
		if p.z != nil && cap(*p.z) <= 2<<20 {
			deflatedBufs.Put(p.z)
		}
	}
}

var crlf2 = []byte("\r\n\r\n")

// writeDeflated writes rec, whose block is compressed already (deflated),
// as a gzip member: its header, then the header of the record in stored
// deflate blocks (not final; one ends on a byte, where the compressed
// block begins), the compressed block, and the CRC of it all, computed
// here over the block in memory.
func (fw *fileWriter) writeDeflated(rec *record) error {
	head, err := rec.appendHeader(fw.head[:0])
	fw.head = head
	if err != nil {
		return err
	}
	out := counter{fw}
	if _, err := out.Write(gzipHeader); err != nil {
		return err
	}
	if err := storedBlocks(out, false, head); err != nil {
		return err
	}
	for _, p := range rec.deflated {
		var err error
		if p.z != nil {
			_, err = out.Write(*p.z)
		} else {
			err = storedBlocks(out, p.final, p.plain[:]...)
		}
		if err != nil {
			return err
		}
	}
	crc := crc32.ChecksumIEEE(head)
	crc = crc32.Update(crc, crc32.IEEETable, rec.block.mem)
	crc = crc32.Update(crc, crc32.IEEETable, crlf2)
	size := uint32(len(head) + len(rec.block.mem) + len(crlf2))
	var t [8]byte
	binary.LittleEndian.PutUint32(t[:], crc)
	binary.LittleEndian.PutUint32(t[4:], size)
	_, err = out.Write(t[:])
	return err
}

// appendStoredMember appends to dst a gzip member (RFC 1952 section 2.3)
// holding data in stored deflate blocks (RFC 1951 section 3.2.4): no
// compression, so no Huffman tables to build for a record of a few
// hundred bytes.
func appendStoredMember(dst, data []byte) []byte {
	dst = append(dst, gzipHeader...)
	storedBlocks(byteSink{&dst}, true, data) // to memory: it cannot fail
	dst = binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(data))
	return binary.LittleEndian.AppendUint32(dst, uint32(len(data)))
}

// gzipHeader starts every gzip member the writer makes (RFC 1952 section
// 2.3): ID1, ID2, CM (deflate), FLG, MTIME (none), XFL, OS (unknown).
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// marshal writes rec to the current member as WARC 1.1 section 4 lays a
// record out: the version line, the header fields, a blank line, the
// block and two CRLFs.
func (fw *fileWriter) marshal(rec *record) error {
	w := &fw.out
	b, err := rec.appendHeader(fw.head[:0])
	fw.head = b
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	if rec.block != nil {
		r, err := rec.block.reader()
		if err != nil {
			return err
		}
		if _, err := w.ReadFrom(r); err != nil {
			return err
		}
	}
	_, err = w.Write([]byte("\r\n\r\n"))
	return err
}

// flush writes the buffered bytes to the file.
func (fw *fileWriter) flush() error {
	if fw.f == nil {
		return nil
	}
	return fw.bw.Flush()
}

// close finishes the current file, if any: its bytes written, the file
// closed and renamed to its final name, the directory synced.
func (fw *fileWriter) close() error {
	if fw.f == nil {
		return nil
	}
	f, path := fw.f, fw.path
	fw.f, fw.name, fw.path = nil, "", ""
	ferr := fw.bw.Flush()
	fw.bw.Reset(nil)
	if ferr == nil {
		ferr = f.Sync() // before the rename: the final name never holds less
	}
	if err := f.Close(); ferr == nil {
		ferr = err
	}
	if ferr != nil {
		return fmt.Errorf("warc: %s: %w", path, ferr)
	}
	final := strings.TrimSuffix(path, ".open")
	if err := os.Rename(path, final); err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	d, err := os.Open(filepath.Dir(final))
	if err != nil {
		return fmt.Errorf("warc: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("warc: sync %s: %w", filepath.Dir(final), err)
	}
	return nil
}
