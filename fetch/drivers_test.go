package fetch_test

import (
	"crypto/tls"
	"slices"
	"testing"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/http"
)

// Drivers.Registry holds every scheme of DefaultRegistry, with the FTP
// and HTTP drivers made from the given configuration (one HTTP driver
// for http and https), new at each call.
func TestDriversRegistry(t *testing.T) {
	d := fetch.Drivers{
		FTP:  ftp.Config{DisableMLSD: true, MaxConnsPerHost: 4},
		HTTP: http.Config{KeepAlive: true, TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}},
	}
	r := d.Registry()
	if got, want := r.Schemes(), fetch.DefaultRegistry().Schemes(); !slices.Equal(got, want) {
		t.Errorf("schemes %v, want %v", got, want)
	}
	fd, _ := r.Lookup("ftp")
	if f, ok := fd.(*ftp.Driver); !ok || f.Config != d.FTP {
		t.Errorf("ftp driver %#v, want one with %+v", fd, d.FTP)
	}
	hd, _ := r.Lookup("http")
	hsd, _ := r.Lookup("https")
	if h, ok := hd.(*http.Driver); !ok || h.Config != d.HTTP || hsd != hd {
		t.Errorf("http driver %#v, https %#v: want one driver with %+v", hd, hsd, d.HTTP)
	}
	if fd2, _ := d.Registry().Lookup("ftp"); fd2 == fd {
		t.Errorf("two registries share an FTP driver")
	}
}
