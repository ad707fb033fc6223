package proto

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// TLSClient returns the TLS configuration of a client connection to
// serverName: a copy of base (nil: the defaults, system roots and name
// verification), with ServerName set to serverName unless base names one.
func TLSClient(base *tls.Config, serverName string) *tls.Config {
	var cfg *tls.Config
	if base != nil {
		cfg = base.Clone()
	} else {
		cfg = &tls.Config{}
	}
	cfg.ServerName = cmp.Or(cfg.ServerName, serverName)
	return cfg
}

// CertPool reads the PEM file path into a pool of CA certificates; a file
// that holds none is an error naming it.
func CertPool(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no PEM certificate in %s", path)
	}
	return pool, nil
}
