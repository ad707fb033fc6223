package mirror

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/rfc1738/fetch/internal/jsonstr"
)

// errLayout: the manifest is not laid out as encode (or
// json.MarshalIndent) lays it out, one member of "files" per block of
// lines; loadManifest then decodes it whole.
var errLayout = errors.New("mirror: manifest not in the layout encode writes")

// Lines of that layout that open and close the "files" object and close
// one of its records.
const (
	filesOpen    = `  "files": {`
	recordIndent = `    "`
	recordEnd    = `    }`
)

// streamManifest reads a manifest in the layout encode writes, one
// record at a time, so that its records are held as the manifest holds
// them (packed, with pack) and never all at once as text or as decoded
// JSON values. The lines outside "files" (version, source, a news
// mirror's groups and Message-IDs) are decoded together at the end.
func streamManifest(r io.Reader, pack bool) (*manifest, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	s := &manifestStream{pack: pack}
	for {
		line, err := readLine(br)
		if err == io.EOF {
			return s.end()
		}
		if err == nil && s.in {
			err = s.fileLine(line)
		} else if err == nil {
			err = s.outerLine(line)
		}
		if err != nil {
			return nil, err
		}
	}
}

// manifestStream is the state of streamManifest.
type manifestStream struct {
	pack bool
	rest bytes.Buffer // the document without its records
	m    *manifest    // set at the "files" line
	rec  []byte       // the record being read, from its first line
	key  []byte       // its path, a JSON string, and the colon
	buf  []byte       // the array of the record read before, for the next
	in   bool         // between the lines that open and close "files"
	more bool         // the last record ended with a comma: another follows
}

// outerLine takes a line outside "files".
func (s *manifestStream) outerLine(line []byte) error {
	if s.m == nil && (string(line) == filesOpen || bytes.HasPrefix(line, []byte(filesOpen+"}"))) {
		// The version and source come before "files".
		head := append(bytes.Clone(s.rest.Bytes()), "  \"files\": {}\n}"...)
		m, err := decodeManifest(head)
		if err != nil {
			return err
		}
		s.m, m.packing = m, s.pack
		s.in = string(line) == filesOpen
	}
	s.rest.Write(line)
	s.rest.WriteByte('\n')
	return nil
}

// fileLine takes a line inside "files".
func (s *manifestStream) fileLine(line []byte) error {
	switch {
	case s.rec == nil && (string(line) == "  }" || string(line) == "  },"):
		if s.more {
			return errLayout
		}
		s.in = false
		s.rest.Write(line)
		s.rest.WriteByte('\n')
	case s.rec == nil:
		if !s.more && s.m.packed.len()+len(s.m.Files) > 0 {
			return errLayout // no comma after the record before
		}
		if !bytes.HasPrefix(line, []byte(recordIndent)) || !bytes.HasSuffix(line, []byte(": {")) {
			return errLayout
		}
		s.key = append(s.key[:0], line[len(recordIndent)-1:len(line)-len(" {")]...)
		s.rec = append(s.buf[:0], '{')
	default:
		end := string(line) == recordEnd || string(line) == recordEnd+","
		if end {
			s.more = len(line) > len(recordEnd)
			line = line[:len(recordEnd)]
		}
		s.rec = append(append(s.rec, '\n'), line...)
		if end {
			if err := s.m.loadRecord(s.key, s.rec); err != nil {
				return err
			}
			s.buf, s.rec = s.rec, nil
		}
	}
	return nil
}

// end decodes the lines outside "files", and returns the manifest.
func (s *manifestStream) end() (*manifest, error) {
	if s.m == nil || s.in || s.rec != nil {
		return nil, errLayout
	}
	all, err := decodeManifest(s.rest.Bytes())
	if err != nil {
		return nil, err
	}
	if n, err := topKeys(s.rest.Bytes(), "files"); err != nil || n != 1 {
		// Another "files" member, which encoding/json would read over
		// the one streamed.
		return nil, errLayout
	}
	s.m.Version, s.m.Groups, s.m.MessageIDs = all.Version, all.Groups, all.MessageIDs
	return s.m, nil
}

// readLine returns the next line of br without its newline; the slice is
// valid until the next read.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := bytes.Clone(line)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	if err == io.EOF && len(line) > 0 {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(line, []byte("\n")), nil
}

// loadRecord decodes a record of m: key, its path as a JSON string and a
// colon ("\"a.txt\":"), and doc, the record's JSON object.
func (m *manifest) loadRecord(key, doc []byte) error {
	key, kesc := jsonstr.KeepBytes(key[:len(key)-1])
	doc, escaped := jsonstr.KeepBytes(doc)
	var name string
	var r Record
	if json.Unmarshal(key, &name) != nil || json.Unmarshal(doc, &r) != nil {
		return errLayout // not what encode writes: decoded whole
	}
	if kesc {
		name = jsonstr.RestoreBytes(name)
	}
	if escaped {
		r = r.restored()
	}
	m.putLocked(name, r)
	return nil
}

// topKeys counts the members named key of the JSON object doc.
func topKeys(doc []byte, key string) (int, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if _, err := dec.Token(); err != nil { // {
		return 0, err
	}
	n := 0
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, err
		}
		if k == key {
			n++
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return 0, err
		}
	}
	return n, nil
}
