package ftp

import (
	"hash/maphash"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rfc1738/fetch/proto"
)

// Listings entry by entry
//
// Driver.List hands each entry to its caller as the line that holds it
// arrives (stream), so that neither the listing's bytes nor its entries
// are held: a mirror of a directory of a million files keeps only what it
// keeps of each. The lines whose reading the whole listing decides
// (parseRows: a date in another language, a space after a year that may
// be padding, a VMS name whose details are on the next line) are held,
// with what the other lines showed about them, and read at the end:
// their entries come last. An entry handed over is not taken back
// (dirList.again, dirList.completeStream).

// stream reads the lines of one listing as they arrive and hands their
// entries to fn.
type stream struct {
	fn   func(proto.Entry) error
	base string // the entries' URL prefix (entryBase); "" for none (Lean)
	// links holds back links without a target, for linkTargets to ask
	// (an MLSD listing of the directory the connection is in).
	links bool

	n int // entries handed to fn

	// Of the answer being read (begin clears them):
	p        lineParser
	nlst     bool
	held     []parsedLine // lines read at the end (parseRows)
	holdNext bool         // the next line is held too: a VMS name line's details
	read     bool         // a line was read before the first held one
	unixSeen bool         // a line was read as ls -l (skipLocalTotal)
	cols     map[int]bool // the name columns of ls lines with a time of day (settlePadding)
	self     bool         // "." or ".." was listed
	unparsed []string
	waiting  []proto.Entry // links held for linkTargets
	// seen holds the hashes (hash) of the names handed over, up to
	// maxSeen of them, for a listing the server cut short
	// (completeStream, which sorts it); tooMany says there were more.
	seen    []uint64
	tooMany bool

	// The bytes of whole lines read, for a second answer to be checked
	// against (whole): their number and hash, and while a second answer
	// is compared, how many of its bytes are still to compare, and their
	// hash.
	seed    maphash.Seed
	sum     maphash.Hash
	bytes   int64
	compare int64
	// compareFrom is bytes when the second answer began.
	compareFrom int64
	again       maphash.Hash
	differ      bool // the second answer did not begin with the first's lines
}

func newStream(fn func(proto.Entry) error, base string) *stream {
	return &stream{fn: fn, base: base, seed: maphash.MakeSeed()}
}

// begin readies s for an answer in format from a server whose SYST reply
// was syst, lean when lean is set, read at now; nothing may have been
// handed over.
func (s *stream) begin(format, syst string, lean bool, now time.Time) {
	*s = stream{fn: s.fn, base: s.base, links: s.links, n: s.n, seed: s.seed}
	s.p = newLineParser(format, syst, now)
	s.p.lean = lean && format != formatNLST
	s.nlst = format == formatNLST
	s.sum.SetSeed(s.seed)
}

// reread readies s for the same listing asked again (whole): the bytes
// the first answer gave in whole lines are compared, not read again.
func (s *stream) reread() {
	s.compare, s.compareFrom = s.bytes, s.bytes
	s.again.SetSeed(s.seed)
	s.differ = false
}

// line takes one line of the listing, its line end included (capture).
func (s *stream) line(raw []byte) error {
	if s.compare > 0 {
		s.again.Write(raw)
		if s.compare -= int64(len(raw)); s.compare <= 0 {
			s.differ = s.compare < 0 || s.again.Sum64() != s.sum.Sum64()
			s.compare = 0
		}
		return nil
	}
	if s.differ {
		return nil
	}
	s.sum.Write(raw)
	s.bytes += int64(len(raw))
	b := raw[:len(raw)-1]
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if len(b) == 0 {
		return nil
	}
	return s.take(string(b))
}

// comparing reports whether a second answer ended before it gave all
// the bytes of the first (reread), or began with others.
func (s *stream) comparing() bool { return s.compare > 0 || s.differ }

// take reads one line, not empty.
func (s *stream) take(line string) error {
	if s.nlst {
		if line == "." || line == ".." {
			s.self = true // as in parseChunks
			return nil
		}
		return s.emit(proto.Entry{Name: line, Type: proto.EntryOther, Size: -1})
	}
	if s.holdNext {
		s.holdNext = false
		s.hold(line)
		return nil
	}
	if isBlank(line) || isNonEntryLine(line) || s.p.mlsd && isMLSDSelf(line) {
		return nil
	}
	e, unix, date, ok := s.p.parseLine(line)
	if !ok || unix && (date.form == formYearPadded || date.form == formYearLast) {
		s.hold(line)
		s.holdNext = !ok && isVMSNameLine(line)
		return nil
	}
	if len(s.held) == 0 {
		s.read = true
	}
	if unix {
		s.unixSeen = true
		if date.form == formClock {
			if s.cols == nil {
				s.cols = map[int]bool{}
			}
			s.cols[utf8.RuneCountInString(line[:date.nameAt])] = true
		}
	}
	if s.p.lean {
		lean(&e)
	}
	return s.entry(e)
}

// hold keeps line for the end of the listing.
func (s *stream) hold(line string) {
	s.held = append(s.held, parsedLine{line: line})
}

// entry hands over e, read from a line, or notes "." and "..".
func (s *stream) entry(e proto.Entry) error {
	if e.Name == "." || e.Name == ".." {
		s.self = true
		return nil
	}
	if s.links && linkToAsk(&e) {
		s.see(e.Name)
		s.waiting = append(s.waiting, e)
		return nil
	}
	return s.emit(e)
}

// maxSeen bounds the names a stream keeps (seen): a listing cut short by
// the server past that many entries is left cut. Pure-FTPd cuts at
// 10,000 by default.
const maxSeen = 1 << 16

// see records that name was handed over.
func (s *stream) see(name string) {
	switch {
	case s.tooMany:
	case len(s.seen) == maxSeen:
		s.seen, s.tooMany = nil, true
	default:
		s.seen = append(s.seen, s.hash(name))
	}
}

// hash is the key of name in seen: 64 bits of a seed the server does not
// know, so that two names of one listing share one by chance alone (one
// in 2^33 for maxSeen names).
func (s *stream) hash(name string) uint64 { return maphash.String(s.seed, name) }

// handed reports whether name was handed over (see), once seen is
// sorted.
func (s *stream) handed(name string) bool {
	_, ok := slices.BinarySearch(s.seen, s.hash(name))
	return ok
}

// emit hands e to fn.
func (s *stream) emit(e proto.Entry) error {
	s.see(e.Name)
	return s.hand(e)
}

// hand gives e, seen, its URL and hands it to fn.
func (s *stream) hand(e proto.Entry) error {
	if s.base != "" {
		e.URL = entryURL(s.base, e)
	}
	s.n++
	return s.fn(e)
}

// finish reads rest, the last line when it has no line end, and the
// lines held, and returns what the answer held.
func (s *stream) finish(rest string) (listed, error) {
	rest = strings.TrimSuffix(rest, "\r")
	if rest != "" {
		if err := s.take(rest); err != nil {
			return listed{}, err
		}
	}
	if len(s.held) > 0 && !s.nlst {
		q := s.p
		q.readBefore, q.unixElsewhere = s.read, s.unixSeen
		q.cols = slices.Sorted(maps.Keys(s.cols))
		l := q.parseRows(s.held, nil)
		s.held = nil
		for _, r := range l.lines {
			switch {
			case r.skip:
			case r.e == nil:
				s.unparsed = append(s.unparsed, r.line)
			default:
				if err := s.entry(*r.e); err != nil {
					return listed{}, err
				}
			}
		}
	}
	return listed{n: s.n + len(s.waiting), unparsed: s.unparsed, self: s.self}, nil
}

// release hands over the links held for linkTargets.
func (s *stream) release() error {
	w := s.waiting
	s.waiting = nil
	for _, e := range w {
		if err := s.hand(e); err != nil {
			return err
		}
	}
	return nil
}
