package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/ftp"
)

// addFTPFlags declares the flags of FTP active mode and FTPS, shared by
// "fetch get" and "fetch mirror" (curl's spelling).
func addFTPFlags(f *pflag.FlagSet, o *getOptions) {
	f.StringVarP(&o.ftpPort, "ftp-port", "P", "", "FTP active mode: listen on `ADDRESS` (an IP, IP:PORT or IP:LOW-HIGH; - for the control connection's own address)")
	f.BoolVar(&o.ssl, "ssl", false, "FTP: use TLS when the server offers it (AUTH TLS), else go on in clear with a warning")
	f.BoolVar(&o.sslReqd, "ssl-reqd", false, "FTP: require TLS; fail before sending the user name when the server refuses it")
	f.StringVar(&o.cacert, "cacert", "", "FTPS: trust the CA certificates of PEM `FILE` instead of the system's")
	f.BoolVarP(&o.insecure, "insecure", "k", false, "FTPS: do not verify the server's certificate (encrypted, but not authenticated)")
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

// validateTLS checks --cacert and -k, which act on FTPS only.
func (o *getOptions) validateTLS() error {
	if (o.cacert != "" || o.insecure) && !o.ssl && !o.sslReqd {
		return flagErrorf("--cacert and -k need --ssl or --ssl-reqd")
	}
	if o.cacert != "" {
		if _, err := os.Stat(o.cacert); err != nil {
			return flagErrorf("--cacert: %v", err)
		}
	}
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
	f.CACert = o.cacert
	f.Insecure = o.insecure
	f.Binary = o.binary
}

// warnFTP says that -k turns certificate verification off: a protection
// turned off is always reported, even with -s.
func (o *getOptions) warnFTP(e *env) {
	if o.insecure && (o.ssl || o.sslReqd) {
		fmt.Fprintln(e.err, "fetch: warning: the server's certificate is not verified (-k): the connection is encrypted, but anyone in the path could pose as the server")
	}
}
