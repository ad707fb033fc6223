package proto

import (
	"cmp"
	"crypto/tls"
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
