package main

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/uri"
)

// dest is where the data of one URL goes.
type dest struct {
	stdout bool
	// path is the final file; empty with -O until the response names it.
	path string
	// dir is --output-dir, for a name the response gives.
	dir string
	// resume keeps the data in path+".part" (-C): kept on failure, renamed
	// into place when complete.
	resume bool
	// offset is the byte asked for; since, when it comes from FILE.part,
	// the .part's time: the remote modification time of the version it
	// holds (fileSink.abort), for proto.Options.IfRange.
	offset int64
	since  time.Time
}

// partSuffix names the file that keeps the partial data of a resumable
// transfer (-C) beside its final name.
const partSuffix = ".part"

// destination works out where u goes under o.
func (o *getOptions) destination(u *uri.URL) (*dest, error) {
	off, err := o.offset()
	if err != nil {
		return nil, err
	}
	if o.toStdout() {
		return &dest{stdout: true, offset: off}, nil // validateOutput refused -C -
	}
	d := &dest{path: o.output, dir: o.outputDir, resume: o.continueAt != ""}
	if o.remoteName {
		name := urlName(u)
		if name == "" && d.resume {
			return nil, flagErrorf("%s names no file; use -o with -C", u.Redacted())
		}
		if name != "" {
			if err := validName(name); err != nil {
				return nil, err
			}
			d.path = filepath.Join(o.outputDir, name)
		}
	}
	d.offset = off
	if off < 0 {
		d.offset = 0
		if fi, err := os.Stat(d.path + partSuffix); err == nil && fi.Mode().IsRegular() {
			d.offset, d.since = fi.Size(), fi.ModTime()
		}
	}
	return d, nil
}

// checkNames refuses -O when two URLs name the same file: the second
// would replace the first, which would be lost without a word (with -C,
// both would resume one FILE.part). Nothing is sent.
func (o *getOptions) checkNames() error {
	if !o.remoteName {
		return nil
	}
	seen := map[string]string{}
	for _, raw := range o.urls {
		u, err := uri.Parse(raw)
		if err != nil {
			continue // reported when its turn comes
		}
		name := urlName(u)
		if name == "" {
			continue
		}
		if first, ok := seen[name]; ok {
			return flagErrorf("-O: %s and %s would both be saved as %s; fetch them in two runs or with -o", first, u.Redacted(), filepath.Join(o.outputDir, name))
		}
		seen[name] = u.Redacted()
	}
	return nil
}

// urlName is the remote file name of u for -O: the last segment of its
// path, decoded (for ftp, the name without its ;type= code).
func urlName(u *uri.URL) string {
	if v, err := u.FTP(); err == nil {
		return v.Name
	}
	p := cmp.Or(u.Path, u.Opaque)
	if p == "" || strings.HasSuffix(p, "/") {
		return ""
	}
	name, err := uri.Unescape(path.Base(p))
	if err != nil {
		return ""
	}
	return name
}

// validName refuses remote names that are not a plain file name in the
// current directory: a usage error, since -o names the file instead.
func validName(name string) error {
	bad := name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`)
	for i := 0; i < len(name) && !bad; i++ {
		bad = name[i] < 0x20 || name[i] == 0x7f
	}
	if bad {
		return flagErrorf("remote name %q cannot be used as a file name; use -o", name)
	}
	return nil
}

func fileSize(name string) int64 {
	fi, err := os.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// sink receives the data of one transfer.
type sink interface {
	io.Writer
	// commit ends a complete transfer: the file is renamed into place (with
	// the remote modification time when keepTime is set).
	commit(resp *fetch.Response, keepTime bool) error
	// abort ends a failed transfer: a temporary file is removed, a .part
	// file kept for the next -C.
	abort()
}

// open returns the sink for resp.
func (d *dest) open(resp *fetch.Response, e *env) (sink, error) {
	if d.stdout {
		return &stdoutSink{skipWriter{w: &errWriter{w: e.out}, skip: d.offset - resp.Offset}}, nil
	}
	if d.path == "" {
		if resp.Name == "" {
			return nil, flagErrorf("-O: %s names no file (a directory, a menu or a listing): name the output with -o FILE", resp.URL.Redacted())
		}
		if err := validName(resp.Name); err != nil {
			return nil, err
		}
		d.path = filepath.Join(d.dir, resp.Name)
	}
	if fi, err := os.Stat(d.path); err == nil && !fi.Mode().IsRegular() {
		return openSpecial(d, fi)
	}
	if d.resume {
		return openPart(d, resp, e.kept)
	}
	if s, ok := openUnnamed(d.path); ok {
		return s, nil
	}
	f, err := createTemp(d.path)
	if err != nil {
		return nil, err
	}
	return &fileSink{errWriter: errWriter{f}, f: f, final: d.path}, nil
}

// openSpecial opens an output that exists and is not a regular file: a
// device such as /dev/null or /dev/stdout, or a named pipe. Such a file is
// written where it is, as a shell redirection would: a temporary file
// renamed over it would replace the device (or pipe) itself with a plain
// file, and anything else that writes to it would write into that file.
// A directory is refused; so is -C, which needs a file to resume.
func openSpecial(d *dest, fi os.FileInfo) (sink, error) {
	if fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: name a file with -o, or use --output-dir with -O", d.path)
	}
	if d.resume {
		return nil, fmt.Errorf("-C: %s is not a regular file (%v): nothing to resume", d.path, fi.Mode().Type())
	}
	f, err := os.OpenFile(d.path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	return &specialSink{errWriter: errWriter{f}, f: f}, nil
}

// openPart opens path.part at the byte the response starts at. When the
// transfer is aborted, kept gets a line that names the file and how to
// resume it.
func openPart(d *dest, resp *fetch.Response, kept *notes) (sink, error) {
	if resp.Offset != 0 && resp.Offset != d.offset {
		return nil, fmt.Errorf("%s: the server resumed at byte %d, not %d", resp.URL.Redacted(), resp.Offset, d.offset)
	}
	name := d.path + partSuffix
	if have := fileSize(name); resp.Offset > have {
		return nil, fmt.Errorf("-C %d: %s holds only %d bytes", resp.Offset, name, have)
	}
	if _, was := readPartType(name); resp.Offset > 0 && was >= 0 && resp.Size >= 0 && was != resp.Size {
		// FTP has no If-Range: a file of another size is another file.
		return nil, fmt.Errorf("-C: %s holds the start of a file of %d bytes, and %s is %d bytes now: it changed; remove %s to fetch it whole",
			name, was, resp.URL.Redacted(), resp.Size, name)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(resp.Offset); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(resp.Offset, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	if err := writePartType(name, resp); err != nil {
		f.Close()
		return nil, err
	}
	resume := "fetch -C - -o " + shellWord(d.path) + " " + shellWord(resp.URL.Redacted())
	return &fileSink{errWriter: errWriter{f}, f: f, final: d.path, keep: true, typeFile: name + partTypeSuffix, kept: kept, resume: resume, modTime: resp.ModTime}, nil
}

// writeError is a failure to write the output (disk full, closed pipe).
type writeError struct{ err error }

func (e *writeError) Error() string { return "write: " + e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// stdoutSink writes to stdout, skipping the first skip bytes (a server that
// restarted from byte 0 when -C asked for more).
type stdoutSink struct{ skipWriter }

func (s *stdoutSink) commit(*fetch.Response, bool) error { return nil }
func (s *stdoutSink) abort()                             {}

// specialSink writes straight into a device or a named pipe (openSpecial).
type specialSink struct {
	errWriter
	f *os.File
}

func (s *specialSink) commit(*fetch.Response, bool) error {
	if err := s.f.Close(); err != nil {
		return &writeError{err}
	}
	return nil
}

func (s *specialSink) abort() { s.f.Close() }

// fileSink writes to a temporary or .part file beside final.
type fileSink struct {
	errWriter
	f     *os.File
	final string
	keep  bool // keep the file on abort (.part)
	// typeFile records the FTP type of a .part (ftptype.go); removed
	// with the .part once it is in place.
	typeFile string
	// kept, when keep, is told about the file kept on abort, and
	// resume is the command that resumes it.
	kept   *notes
	resume string
	// modTime, when keep, is the remote modification time of the data,
	// given to the file kept, for the next -C (dest.since).
	modTime time.Time
}

// WriterFile, Wrote and FileError let a body move its bytes into the file
// without reading them (proto.FileWriter).
func (s *fileSink) WriterFile() *os.File      { return s.f }
func (s *fileSink) Wrote(int64)               {}
func (s *fileSink) FileError(err error) error { return &writeError{err} }

func (s *fileSink) commit(resp *fetch.Response, keepTime bool) error {
	if err := s.f.Close(); err != nil {
		s.abort()
		return &writeError{err}
	}
	if keepTime && !resp.ModTime.IsZero() {
		os.Chtimes(s.f.Name(), resp.ModTime, resp.ModTime)
	}
	if err := renameFile(s.f.Name(), s.final); err != nil {
		s.abort()
		return &writeError{err}
	}
	if s.typeFile != "" {
		os.Remove(s.typeFile)
	}
	return nil
}

func (s *fileSink) abort() {
	s.f.Close()
	if !s.keep {
		os.Remove(s.f.Name())
		return
	}
	if !s.modTime.IsZero() {
		os.Chtimes(s.f.Name(), s.modTime, s.modTime)
	}
	if s.kept != nil {
		s.kept.add(fmt.Sprintf("kept %s (%s): %s resumes", s.f.Name(), byteCount(fileSize(s.f.Name())), s.resume))
	}
}

// shellWord quotes w for a POSIX shell when it holds anything but
// letters, digits and -_./:@%+=,~ (a URL or path as a user may paste it).
func shellWord(w string) string {
	ok := w != ""
	for _, r := range w {
		ok = ok && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@%+=,~", r))
	}
	if ok {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
