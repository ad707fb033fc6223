package main

import (
	"crypto/tls"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
)

// addFTPFlags declares the flags of FTP active mode and of TLS (FTPS and
// https), shared by "fetch get" and "fetch mirror" (curl's spelling).
func addFTPFlags(f *pflag.FlagSet, o *getOptions) {
	f.StringVarP(&o.ftpPort, "ftp-port", "P", "", "FTP active mode: listen on `ADDRESS` (an IP, IP:PORT or IP:LOW-HIGH; - for the control connection's own address)")
	f.BoolVar(&o.ssl, "ssl", false, "FTP: use TLS when the server offers it (AUTH TLS), else go on in clear with a warning")
	f.BoolVar(&o.sslReqd, "ssl-reqd", false, "FTP: require TLS; fail before sending the user name when the server refuses it")
	f.StringVar(&o.cacert, "cacert", "", "https and FTPS: trust the CA certificates of PEM `FILE` instead of the system's")
	f.BoolVarP(&o.insecure, "insecure", "k", false, "https and FTPS: do not verify the server's certificate (encrypted, but not authenticated)")
	f.StringVarP(&o.user, "user", "u", "", "log in as `USER[:PASSWORD]` instead of the URL's user (the password is asked for when left out)")
}

// validateFTP checks the FTP flags.
func (o *getOptions) validateFTP() error {
	if err := o.validateUser(); err != nil {
		return err
	}
	if o.ftpPort != "" {
		if err := ftp.ParseActivePort(o.ftpPort); err != nil {
			return flagErrorf("--ftp-port: %v", err)
		}
	}
	return o.validateTLS()
}

// validateTLS reads the --cacert file, once, and makes o.tls, the base
// TLS configuration of the command's https and FTPS connections.
func (o *getOptions) validateTLS() error {
	o.tls = &tls.Config{InsecureSkipVerify: o.insecure}
	if o.cacert == "" {
		return nil
	}
	pool, err := proto.CertPool(o.cacert)
	if err != nil {
		return flagErrorf("--cacert: %v", err)
	}
	o.tls.RootCAs = pool
	return nil
}

// setFTPOptions puts the FTP flags into the request options.
func (o *getOptions) setFTPOptions(f *proto.FTPOptions) {
	f.Port = o.ftpPort
	switch {
	case o.sslReqd:
		f.TLS = proto.TLSRequire
	case o.ssl:
		f.TLS = proto.TLSTry
	}
	f.Binary = o.binary
}

// warnInsecure says that -k turns certificate verification off: a
// protection turned off is always reported, even with -s.
func (o *getOptions) warnInsecure(e *env) {
	if o.insecure {
		fmt.Fprintln(e.err, "fetch: warning: the server's certificate is not verified (-k): the connection is encrypted, but anyone in the path could pose as the server")
	}
}
