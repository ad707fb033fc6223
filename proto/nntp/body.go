package nntp

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// articleBody streams an article, its head or its body: the multi-line
// data block after a 220, 221 or 222 reply, read through a
// lineproto.DotReader (dot-unstuffed, CR LF turned into LF, ending before
// the "." line, or with Request.Raw as sent). Nothing is buffered beyond the header block peeked for
// Response.Info.
//
// A connection lost before the "." line makes Read fail with an error
// wrapping io.ErrUnexpectedEOF or the net error (a network failure, not a
// refusal). Close sends QUIT when the article was read to its end and
// closes the connection; it may be called more than once. Session.Articles
// hands its callback one for each article, never closed: the session
// goes on.
type articleBody struct {
	r      io.Reader
	c      *client
	op     string       // "ARTICLE 3", for errors
	ctxErr func() error // the Fetch context's Err, to report cancellation
	eof    bool
	err    error // sticky read error

	once     sync.Once
	closeErr error
}

var errBodyClosed = errors.New("nntp: read from a closed article body")

func (b *articleBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	switch {
	case err == nil:
	case err == io.EOF:
		b.eof = true
	default:
		b.err = b.c.ioErr(b.ctxErr(), b.op, err)
		err = b.err
	}
	return n, err
}

func (b *articleBody) Close() error {
	b.once.Do(func() {
		if b.eof {
			b.closeErr = b.c.quit()
		} else {
			b.closeErr = b.c.close()
		}
		if b.err == nil {
			b.err = errBodyClosed
		}
	})
	return b.closeErr
}

// peekHeader reads the header block at the start of an article: lines up
// to and including the first empty line, or everything up to the end for a
// HEAD reply. complete is false when the block grew past max bytes without
// ending; the bytes read so far are returned either way so that the caller
// can pass them on before the rest of the stream.
func peekHeader(r *bufio.Reader, max int) (block []byte, complete bool, err error) {
	atLineStart := true
	for len(block) <= max {
		chunk, err := r.ReadSlice('\n')
		block = append(block, chunk...)
		switch {
		case err == io.EOF:
			return block, true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			atLineStart = false
			continue
		case err != nil:
			return block, false, err
		}
		if atLineStart && (len(chunk) == 1 || len(chunk) == 2 && chunk[0] == '\r') {
			return block, true, nil // an empty line, LF or CR LF (raw)
		}
		atLineStart = true
	}
	return block, false, nil
}
