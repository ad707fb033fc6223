// Package file is the driver of the file scheme (RFC 1738 section 3.10):
// file://<host>/<path>, where host is the fully qualified domain name of the
// system on which the path is accessible.
//
// Only this machine is served: an empty host and "localhost" name it, as the
// RFC says. Any other host is reported as proto.ErrNoAccessMethod, because
// the RFC defines no protocol for reaching it; with
// Request.Options.File.ViaFTP the driver instead returns a *proto.Redirect
// to the same path over ftp, as early browsers did.
//
// Deviation: a decoded path holding CR, LF or NUL is refused with
// proto.ErrUnsafeArgument, like every other driver's arguments, although a
// Unix file name may hold CR and LF.
package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// Driver reads local files. The zero value is ready to use and safe for
// concurrent use.
type Driver struct{}

var (
	_ proto.Driver = (*Driver)(nil)
	_ proto.Lister = (*Driver)(nil)
)

// Fetch opens the file or directory u names. A regular file streams from
// req.Offset (Response.Offset says where Body starts); a directory is
// returned as KindDirectory with its Entries and, in Body, one name per line
// (directories end in "/"). The returned body must be closed; it stops with
// ctx's error once ctx is done.
func (d *Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	name, err := localPath(u, req)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, mapErr(err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, mapErr(err)
	}
	if fi.IsDir() {
		defer f.Close()
		return dirResponse(u, name, f)
	}
	return fileResponse(ctx, f, fi, req)
}

// List hands fn the entries of the directory u names (proto.Lister).
func (d *Driver) List(ctx context.Context, u *uri.URL, req *proto.Request, fn func(proto.Entry) error) (*proto.Listing, error) {
	name, err := localPath(u, req)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, mapErr(err)
	}
	defer f.Close()
	entries, err := readEntries(u, name, f)
	if err != nil {
		return nil, err
	}
	return proto.ListEntries(&proto.Response{Entries: entries}, fn)
}

// localPath returns the local path u names, or the error that says why it
// names none.
func localPath(u *uri.URL, req *proto.Request) (string, error) {
	v, err := u.File()
	if err != nil {
		return "", err
	}
	if !v.IsLocal() {
		if req != nil && req.Options.File.ViaFTP {
			return "", viaFTP(u)
		}
		return "", fmt.Errorf("file: host %q is not this machine (try --file-via-ftp): %w", v.Host, proto.ErrNoAccessMethod)
	}
	if err := proto.CheckArg(v.Path); err != nil {
		return "", fmt.Errorf("file: path: %w", err)
	}
	return v.Path, nil
}

// viaFTP is the redirect of file://host/path to ftp://host/path. The path
// stays in escaped form; RFC 1738 section 3.10 notes that file URLs were
// once used this way.
func viaFTP(u *uri.URL) error {
	t := &uri.URL{Scheme: "ftp", HasAuthority: true, Host: u.Host, Port: u.Port, Path: u.Path,
		RawQuery: u.RawQuery, ForceQuery: u.ForceQuery}
	return &proto.Redirect{URL: t.String(), Reason: "file-via-ftp"}
}

func mapErr(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("file: %w: %w", proto.ErrNotFound, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("file: %w: %w", proto.ErrPermission, err)
	}
	return fmt.Errorf("file: %w", err)
}

func fileResponse(ctx context.Context, f *os.File, fi fs.FileInfo, req *proto.Request) (*proto.Response, error) {
	resp := &proto.Response{
		Kind:      proto.KindData,
		Size:      -1,
		ModTime:   fi.ModTime(),
		Name:      fi.Name(),
		MediaType: mime.TypeByExtension(path.Ext(fi.Name())),
	}
	if fi.Mode().IsRegular() {
		resp.Size = fi.Size()
	}
	if req != nil && req.Offset > 0 {
		if _, err := f.Seek(req.Offset, io.SeekStart); err == nil {
			resp.Offset = req.Offset
		}
	}
	resp.Body = &body{ctx: ctx, f: f}
	return resp, nil
}

// body is a file that stops reading once its context is done. Close may be
// called more than once.
type body struct {
	ctx  context.Context
	f    *os.File
	once sync.Once
	err  error
}

func (b *body) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	return b.f.Read(p)
}

func (b *body) Close() error {
	b.once.Do(func() { b.err = b.f.Close() })
	return b.err
}

func dirResponse(u *uri.URL, name string, f *os.File) (*proto.Response, error) {
	entries, err := readEntries(u, name, f)
	if err != nil {
		return nil, err
	}
	text := listing(entries)
	return &proto.Response{
		Kind:    proto.KindDirectory,
		Body:    io.NopCloser(strings.NewReader(text)),
		Size:    int64(len(text)),
		Name:    path.Base(name),
		Entries: entries,
	}, nil
}
