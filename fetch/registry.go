package fetch

import (
	"slices"
	"strings"
	"sync"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/file"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/proto/http"
	"github.com/rfc1738/fetch/proto/mailto"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/proto/prospero"
	"github.com/rfc1738/fetch/proto/telnet"
	"github.com/rfc1738/fetch/proto/wais"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// Registry maps scheme names to drivers. Build it with NewRegistry and
// Register, then share it: Lookup is safe for concurrent use once no more
// drivers are registered; Register is not safe to call concurrently with
// anything. The zero value is not usable; use NewRegistry.
type Registry struct {
	drivers map[string]proto.Driver
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{drivers: map[string]proto.Driver{}} }

// Register makes d the driver of scheme (case-insensitive). It panics when
// scheme is empty, when d is nil, or when scheme already has a driver: these
// are programming errors.
func (r *Registry) Register(scheme string, d proto.Driver) {
	s := strings.ToLower(scheme)
	switch {
	case s == "":
		panic("fetch: Register with an empty scheme")
	case d == nil:
		panic("fetch: Register of a nil driver for scheme " + s)
	case r.drivers[s] != nil:
		panic("fetch: Register called twice for scheme " + s)
	}
	r.drivers[s] = d
}

// Lookup returns the driver of scheme (case-insensitive).
func (r *Registry) Lookup(scheme string) (proto.Driver, bool) {
	d, ok := r.drivers[strings.ToLower(scheme)]
	return d, ok
}

// Schemes returns the registered scheme names, sorted.
func (r *Registry) Schemes() []string {
	s := make([]string, 0, len(r.drivers))
	for k := range r.drivers {
		s = append(s, k)
	}
	slices.Sort(s)
	return s
}

// closeIdle closes the idle connections of every driver that keeps some.
// A driver registered for several schemes is closed once.
func (r *Registry) closeIdle() {
	seen := map[proto.IdleCloser]bool{}
	for _, d := range r.drivers {
		if ic, ok := d.(proto.IdleCloser); ok && !seen[ic] {
			seen[ic] = true
			ic.CloseIdleConnections()
		}
	}
}

// DefaultRegistry returns a new registry holding the built-in driver of
// every scheme of RFC 1738, and https, each in its zero configuration. One
// driver serves http and https, one nntp and news.
func DefaultRegistry() *Registry { return Drivers{}.Registry() }

var (
	_ safety.Wire   = (*Registry)(nil)
	_ safety.Facter = (*Registry)(nil)
)

// WireParts returns what the driver of u's scheme decodes and writes of u
// (safety.Wire): for a driver that does not say, every escaped component
// (safety.AnyParts); nothing when no driver has the scheme, whose URLs are
// not fetched.
func (r *Registry) WireParts(u *uri.URL) ([]safety.Part, error) {
	d, ok := r.Lookup(u.Scheme)
	if w, isWire := d.(safety.Wire); isWire {
		return w.WireParts(u)
	}
	if ok {
		return safety.AnyParts(u), nil
	}
	return nil, nil
}

// SchemeFacts returns what the driver of scheme says of it (safety.Facter):
// for a driver that does not say, a line protocol; for a scheme without a
// driver, whose URLs are not fetched, nothing.
func (r *Registry) SchemeFacts(scheme string) safety.Facts {
	d, ok := r.Lookup(scheme)
	if f, isFacter := d.(safety.Facter); isFacter {
		return f.SchemeFacts(scheme)
	}
	return safety.Facts{Line: ok}
}

// Drivers is the configuration of the built-in drivers that take one. A
// program that wants other settings than the defaults builds its registry
// from a Drivers value, instead of changing the drivers of a registry
// already built (they may be in use).
type Drivers struct {
	FTP  ftp.Config
	HTTP http.Config // for http and https
}

// Registry returns a new registry holding the built-in driver of every
// scheme of RFC 1738, and https, as DefaultRegistry does, with the FTP
// and HTTP drivers made from d.
func (d Drivers) Registry() *Registry {
	r := NewRegistry()
	r.Register("ftp", ftp.New(d.FTP))
	h := http.New(d.HTTP)
	r.Register("http", h)
	r.Register("https", h)
	r.Register("gopher", &gopher.Driver{})
	r.Register("mailto", &mailto.Driver{})
	n := &nntp.Driver{}
	r.Register("news", n)
	r.Register("nntp", n)
	r.Register("telnet", &telnet.Driver{})
	r.Register("wais", &wais.Driver{})
	r.Register("file", &file.Driver{})
	r.Register("prospero", &prospero.Driver{})
	return r
}

// defaultRegistry is the registry of a Client whose Registry is nil. It is
// built once and never changed.
var defaultRegistry = sync.OnceValue(DefaultRegistry)
