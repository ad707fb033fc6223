package warc

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
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
	if err := fw.marshal(rec); err != nil {
		return offset, fw.size - offset, err
	}
	if err := gz.Close(); err != nil {
		return offset, fw.size - offset, err
	}
	return offset, fw.size - offset, nil
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
	// ID1, ID2, CM (deflate), FLG, MTIME (none), XFL, OS (unknown); then
	// the header of one final stored block, its length filled in below.
	b = append(b, 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255, 1, 0, 0, 0, 0)
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

// deflaters holds level-1 deflate writers for deflateBlock (one takes
// most of a megabyte of tables).
var deflaters = sync.Pool{New: func() any {
	fw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return fw
}}

// deflatedBufs holds the buffers deflateBlock fills.
var deflatedBufs = sync.Pool{New: func() any { return new([]byte) }}

// byteSink appends what is written to it to a slice.
type byteSink struct{ b *[]byte }

func (s byteSink) Write(p []byte) (int, error) {
	*s.b = append(*s.b, p...)
	return len(p), nil
}

// deflateBlock compresses block and the two CRLFs that end a record into
// deflate blocks at level 1, the last of them final: the rest of a gzip
// member whose start, the record's header in stored blocks, the writer's
// goroutine writes once it knows the header (writeDeflated). It returns
// nil for a block that looks incompressible, which is stored.
func deflateBlock(block []byte) *[]byte {
	if incompressible(block) {
		return nil
	}
	out := deflatedBufs.Get().(*[]byte)
	*out = (*out)[:0]
	zw := deflaters.Get().(*flate.Writer)
	zw.Reset(byteSink{out})
	zw.Write(block) // to memory: it cannot fail
	zw.Write(crlf2)
	zw.Close()
	deflaters.Put(zw)
	return out
}

// putDeflated gives a buffer of deflateBlock back; a large one is left
// to the collector.
func putDeflated(b *[]byte) {
	if b != nil && cap(*b) <= 2<<20 {
		deflatedBufs.Put(b)
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
	// ID1, ID2, CM (deflate), FLG, MTIME (none), XFL, OS (unknown).
	b := append(fw.raw[:0], 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255)
	for h := head; len(h) > 0; {
		n := min(len(h), 0xffff)
		b = append(b, 0, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8)) // BFINAL 0, BTYPE 00 (stored)
		b = append(b, h[:n]...)
		h = h[n:]
	}
	fw.raw = b
	out := counter{fw}
	if _, err := out.Write(b); err != nil {
		return err
	}
	if _, err := out.Write(rec.deflated); err != nil {
		return err
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
	// ID1, ID2, CM (deflate), FLG, MTIME (none), XFL, OS (unknown).
	dst = append(dst, 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255)
	crc := crc32.ChecksumIEEE(data)
	size := uint32(len(data))
	for {
		n := min(len(data), 0xffff)
		final := byte(0)
		if n == len(data) {
			final = 1 // BFINAL; BTYPE 00, stored
		}
		dst = append(dst, final, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		dst = append(dst, data[:n]...)
		data = data[n:]
		if final == 1 {
			break
		}
	}
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return binary.LittleEndian.AppendUint32(dst, size)
}

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
