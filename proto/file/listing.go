package file

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// readEntries lists the directory f (opened from dir), sorted by name, with
// each entry's own file URL below u.
func readEntries(u *uri.URL, dir string, f *os.File) ([]proto.Entry, error) {
	des, err := f.ReadDir(-1)
	if err != nil {
		return nil, mapErr(err)
	}
	slices.SortFunc(des, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	base := u.Path
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	entries := make([]proto.Entry, 0, len(des))
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		entries = append(entries, entry(u, base, dir, fi))
	}
	return entries, nil
}

// entry describes fi, found in dir, whose URL path is base+name.
func entry(u *uri.URL, base, dir string, fi fs.FileInfo) proto.Entry {
	e := proto.Entry{
		Name:    fi.Name(),
		Type:    entryType(fi.Mode()),
		Size:    fi.Size(),
		ModTime: fi.ModTime(),
		Extra:   map[string]string{"perm": Perm(fi.Mode())},
	}
	if e.Type == proto.EntryLink {
		e.Target, _ = os.Readlink(filepath.Join(dir, fi.Name()))
	}
	p := base + uri.Escape(fi.Name(), "")
	if e.Type == proto.EntryDir {
		p += "/"
		e.Size = -1
	}
	t := &uri.URL{Scheme: "file", HasAuthority: true, Host: u.Host, Port: u.Port, Path: p}
	e.URL = t.String()
	return e
}

func entryType(m fs.FileMode) proto.EntryType {
	switch {
	case m.IsDir():
		return proto.EntryDir
	case m&fs.ModeSymlink != 0:
		return proto.EntryLink
	case m.IsRegular():
		return proto.EntryFile
	}
	return proto.EntryOther
}

// Perm formats m the way ls -l does: a type letter (d, l, p, s, c, b or -)
// and the nine permission letters, with s/t for setuid, setgid and sticky.
func Perm(m fs.FileMode) string {
	b := []byte("----------")
	switch {
	case m.IsDir():
		b[0] = 'd'
	case m&fs.ModeSymlink != 0:
		b[0] = 'l'
	case m&fs.ModeNamedPipe != 0:
		b[0] = 'p'
	case m&fs.ModeSocket != 0:
		b[0] = 's'
	case m&fs.ModeCharDevice != 0:
		b[0] = 'c'
	case m&fs.ModeDevice != 0:
		b[0] = 'b'
	}
	const rwx = "rwxrwxrwx"
	for i := range 9 {
		if m&(1<<uint(8-i)) != 0 {
			b[i+1] = rwx[i]
		}
	}
	special(b, 3, m&fs.ModeSetuid != 0, 's')
	special(b, 6, m&fs.ModeSetgid != 0, 's')
	special(b, 9, m&fs.ModeSticky != 0, 't')
	return string(b)
}

// special marks position i (an execute bit) with c, or its upper case when
// the execute bit is off.
func special(b []byte, i int, set bool, c byte) {
	if !set {
		return
	}
	if b[i] == '-' {
		c -= 'a' - 'A'
	}
	b[i] = c
}

// listing is the plain text of a directory: one name per line, directories
// with a trailing "/".
func listing(entries []proto.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(e.Name)
		if e.Type == proto.EntryDir {
			b.WriteByte('/')
		}
		b.WriteByte('\n')
	}
	return b.String()
}
