package fetch_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/proto/http"
)

// The drivers are configured when the registry is built: here FTPS and
// https trust one private CA, FTP lists with LIST and HTTP keeps its
// connections. A mirror run's own drivers are clones of these, with the
// same settings.
func ExampleDrivers() {
	roots := x509.NewCertPool() // AppendCertsFromPEM(the CA's PEM)
	trust := &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	c := &fetch.Client{Registry: fetch.Drivers{
		FTP:  ftp.Config{TLSClientConfig: trust, DisableMLSD: true},
		HTTP: http.Config{TLSClientConfig: trust, KeepAlive: true},
	}.Registry()}
	defer c.CloseIdleConnections()
	fmt.Println(c.Registry.Schemes())
	// Output: [file ftp gopher http https mailto news nntp prospero telnet wais]
}
