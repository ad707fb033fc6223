package fetchtest

import (
	"crypto/tls"
	"errors"
	"net"
	"strconv"
	"strings"

	ftpserver "github.com/fclairamb/ftpserverlib"
	"github.com/spf13/afero"
)

// FTP is an in-process FTP server. Anonymous logins, and the one user and
// password given in FTPOptions, get read-only access to the file system.
type FTP struct {
	server *ftpserver.FtpServer
	addr   string
	done   chan error
}

// FTPOptions configures StartFTP. The zero value allows anonymous logins only.
type FTPOptions struct {
	// User and Password, when User is not empty, are accepted too.
	User, Password string
	// DisableMLSD hides MLSD and MLST (FEAT lists neither), so clients
	// list with LIST.
	DisableMLSD bool
	// Host is the loopback address to serve on: "" means 127.0.0.1;
	// "::1" serves over IPv6 (passive mode by EPSV only).
	Host string
	// Port is the control port; 0 picks a free one.
	Port int
	// PassivePorts, when its first port is not 0, is the range
	// [first, last] that passive listeners take their port from; 0 lets
	// the kernel pick any free port. A benchmark making thousands of
	// transfers wants a range outside the ephemeral ports: each transfer
	// leaves a TIME_WAIT socket on its port, and the kernel's search for
	// a free port to bind grows with them (at 10,000 files it cost the
	// server about 1 ms a transfer), where binding a given port does not.
	PassivePorts [2]int
	// TLS, when not nil, is the server's configuration for AUTH TLS
	// (RFC 4217): clients may then protect the control and data
	// connections. Nil refuses AUTH TLS.
	TLS *tls.Config
}

// publicHost is the address PASV names: none over IPv6, where PASV
// cannot name one (RFC 2428: EPSV names a port only).
func (o FTPOptions) publicHost() string {
	if strings.Contains(o.host(), ":") {
		return ""
	}
	return o.host()
}

// host is the address the server listens on.
func (o FTPOptions) host() string {
	if o.Host == "" {
		return "127.0.0.1"
	}
	return o.Host
}

type ftpMain struct {
	fs   afero.Fs
	opts FTPOptions
	ln   net.Listener
}

func (d *ftpMain) GetSettings() (*ftpserver.Settings, error) {
	s := &ftpserver.Settings{
		Listener:            d.ln,
		PublicHost:          d.opts.publicHost(),
		IdleTimeout:         60,
		ConnectionTimeout:   10,
		DisableMLSD:         d.opts.DisableMLSD,
		DisableMLST:         d.opts.DisableMLSD,
		DisableActiveMode:   true,
		DefaultTransferType: ftpserver.TransferTypeBinary,
	}
	if d.opts.PassivePorts[0] != 0 {
		s.PassiveTransferPortRange = &ftpserver.PortRange{Start: d.opts.PassivePorts[0], End: d.opts.PassivePorts[1]}
	}
	return s, nil
}

func (d *ftpMain) ClientConnected(ftpserver.ClientContext) (string, error) {
	return "fetchtest ready", nil
}

func (d *ftpMain) ClientDisconnected(ftpserver.ClientContext) {}

var errLogin = errors.New("fetchtest: login incorrect")

func (d *ftpMain) AuthUser(_ ftpserver.ClientContext, user, pass string) (ftpserver.ClientDriver, error) {
	if user == "anonymous" || user == "ftp" || d.opts.User != "" && user == d.opts.User && pass == d.opts.Password {
		return afero.NewReadOnlyFs(d.fs), nil
	}
	return nil, errLogin
}

func (d *ftpMain) GetTLSConfig() (*tls.Config, error) {
	if d.opts.TLS != nil {
		return d.opts.TLS, nil
	}
	return nil, errors.New("fetchtest: no TLS")
}

// StartFTP serves fsys on 127.0.0.1 (or opts.Host) at opts.Port (a free
// port when 0) until Close.
func StartFTP(fsys afero.Fs, opts FTPOptions) (*FTP, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(opts.host(), strconv.Itoa(opts.Port)))
	if err != nil {
		return nil, err
	}
	srv := ftpserver.NewFtpServer(&ftpMain{fs: fsys, opts: opts, ln: ln})
	if err := srv.Listen(); err != nil {
		ln.Close()
		return nil, err
	}
	s := &FTP{server: srv, addr: ln.Addr().String(), done: make(chan error, 1)}
	go func() { s.done <- srv.Serve() }()
	return s, nil
}

// Addr is the server's host:port.
func (s *FTP) Addr() string { return s.addr }

// Close stops the server and waits for it to end.
func (s *FTP) Close() error {
	err := s.server.Stop()
	<-s.done
	return err
}
