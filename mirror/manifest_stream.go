package mirror

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/rfc1738/fetch/internal/jsonstr"
)

// errLayout: the manifest is not laid out as encode lays it out (and
// json.MarshalIndent, which wrote the manifests of earlier versions),
// one member of "files" per block of lines; loadManifest then decodes it
// whole.
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
	var rest bytes.Buffer // the document without its records
	var m *manifest
	var rec []byte
	in := false
	for {
		line, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch {
		case !in && m == nil && string(line) == filesOpen:
			// The version and source come before "files".
			head := append(bytes.Clone(rest.Bytes()), "  \"files\": {}\n}"...)
			if m, err = decodeManifest(head); err != nil {
				return nil, err
			}
			m.packing = pack
			in = true
			rest.Write(line)
			rest.WriteByte('\n')
		case !in:
			rest.Write(line)
			rest.WriteByte('\n')
		case rec == nil && (string(line) == "  }" || string(line) == "  },"):
			in = false
			rest.Write(line)
			rest.WriteByte('\n')
		case rec == nil:
			if !bytes.HasPrefix(line, []byte(recordIndent)) || !bytes.HasSuffix(line, []byte(": {")) {
				return nil, errLayout
			}
			rec = append(append(rec[:0:0], '{'), line...)
		default:
			end := string(line) == recordEnd || string(line) == recordEnd+","
			if end {
				line = line[:len(recordEnd)]
			}
			rec = append(append(rec, '\n'), line...)
			if end {
				if err := m.loadRecord(append(rec, '}')); err != nil {
					return nil, err
				}
				rec = nil
			}
		}
	}
	if m == nil || in || rec != nil {
		return nil, errLayout
	}
	all, err := decodeManifest(rest.Bytes())
	if err != nil {
		return nil, err
	}
	m.Version, m.Groups, m.MessageIDs = all.Version, all.Groups, all.MessageIDs
	return m, nil
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

// loadRecord decodes doc, a JSON object of one member (a record by its
// path), into m.
func (m *manifest) loadRecord(doc []byte) error {
	doc, escaped := jsonstr.KeepBytes(doc)
	var one map[string]Record
	if err := json.Unmarshal(doc, &one); err != nil {
		return err
	}
	if len(one) != 1 {
		return errLayout
	}
	for name, r := range one {
		if escaped {
			name = jsonstr.RestoreBytes(name)
			r.URL, r.Link, r.SHA256 = jsonstr.RestoreBytes(r.URL), jsonstr.RestoreBytes(r.Link), jsonstr.RestoreBytes(r.SHA256)
		}
		m.putLocked(name, r)
	}
	return nil
}
