package ftp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/textproto"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
)

// FTP over explicit TLS (RFC 4217).
//
// AUTH TLS follows the greeting; the wire (trace.go) then sits on top of
// the TLS connection, so the transcript shows the commands in clear (the
// password still hidden). PBSZ 0 and PROT P (RFC 4217 sections 8 and 9)
// follow the login. Every data connection resumes the TLS session of its
// control connection (RFC 4217 section 10.2; vsftpd requires it by
// default, require_ssl_reuse=YES), from a session cache that only that
// control connection and its data connections share.

// TLSRefusedError is returned when the request requires TLS (proto.TLSRequire)
// and the server refused AUTH TLS: nothing else was sent on that
// connection (no USER, no PASS). It wraps proto.ErrLogin (the login could
// not be made as asked) and the server's reply, a *textproto.Error.
type TLSRefusedError struct {
	Addr  string
	Reply error
}

func (e *TLSRefusedError) Error() string {
	return fmt.Sprintf("ftp: %s refused AUTH TLS (%v) and TLS is required: no login was sent", e.Addr, e.Reply)
}

// Unwrap returns proto.ErrLogin and the reply.
func (e *TLSRefusedError) Unwrap() []error { return []error{proto.ErrLogin, e.Reply} }

// tlsMode returns the request's TLS mode, or an error for an unknown one.
func tlsMode(req *proto.Request) (proto.FTPTLS, error) {
	switch m := req.Options.FTP.TLS; m {
	case proto.TLSOff, proto.TLSTry, proto.TLSRequire:
		return m, nil
	default:
		return proto.TLSOff, fmt.Errorf("ftp: unknown Options.FTP.TLS %q (want %q, %q or %q)", m, proto.TLSOff, proto.TLSTry, proto.TLSRequire)
	}
}

// tlsConfig returns the TLS configuration of one control connection to
// host: the Driver's TLSClientConfig, with the request's CA file and
// verification switch, and a session cache of its own.
func (d *Driver) tlsConfig(req *proto.Request, host string) (*tls.Config, error) {
	cfg := proto.TLSClient(d.TLSClientConfig, host)
	if path := req.Options.FTP.CACert; path != "" {
		pool, err := proto.CertPool(path)
		if err != nil {
			return nil, fmt.Errorf("ftp: CA certificates: %w", err)
		}
		cfg.RootCAs = pool
	}
	if req.Options.FTP.Insecure {
		cfg.InsecureSkipVerify = true
	}
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	return cfg, nil
}

// startTLS negotiates TLS after the greeting. When the server refuses
// AUTH TLS, TLSTry goes on in clear (c.tlsWarning says so) and
// TLSRequire returns a *TLSRefusedError, having sent nothing else.
func (c *conn) startTLS(ctx context.Context, mode proto.FTPTLS, cfg *tls.Config) error {
	code, msg, err := c.cmd(2, "AUTH TLS")
	if err == nil && code != 234 {
		err = &textproto.Error{Code: code, Msg: msg}
	}
	var te *textproto.Error
	if errors.As(err, &te) {
		if mode == proto.TLSRequire {
			c.dead = true
			return &TLSRefusedError{Addr: c.key.addr, Reply: te}
		}
		c.tlsWarning = fmt.Sprintf("the server refused TLS (AUTH TLS: %d %s): going on without encryption, the password and the data in clear", te.Code, termtext.Escape(te.Msg, 200))
		c.w.note("%s", c.tlsWarning)
		return nil
	}
	if err != nil {
		return c.fail("AUTH TLS", err)
	}
	// Bytes read before the handshake came in clear: they must not be
	// taken for replies sent under TLS.
	if err := c.unasked(); err != nil {
		return c.fail("AUTH TLS", err)
	}
	tc := tls.Client(c.w.Conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.dead = true
		if ctxErr := context.Cause(ctx); ctxErr != nil {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		return fmt.Errorf("ftp: TLS handshake with %s: %w", c.key.addr, err)
	}
	st := tc.ConnectionState()
	c.w.note("%s, %s, server %s", tls.VersionName(st.Version), tls.CipherSuiteName(st.CipherSuite), verifiedNote(cfg, st))
	c.w.Conn = tc
	c.tlsCfg = cfg
	return nil
}

// verifiedNote says how the server's certificate was checked, for the
// transcript.
func verifiedNote(cfg *tls.Config, st tls.ConnectionState) string {
	if cfg.InsecureSkipVerify {
		return "NOT verified (insecure)"
	}
	if len(st.PeerCertificates) > 0 {
		return fmt.Sprintf("verified as %q", cfg.ServerName)
	}
	return "verified"
}

// protect sends PBSZ 0 and PROT P in one write: data connections are
// then TLS too.
func (c *conn) protect() error {
	if err := c.send("PBSZ 0\r\nPROT P"); err != nil {
		return c.fail("PBSZ 0", err)
	}
	for _, cmd := range []string{"PBSZ 0", "PROT P"} {
		if _, _, err := c.reply(2); err != nil {
			if replyCode(err) != 0 && cmd == "PBSZ 0" {
				// A server that took AUTH TLS but refuses to protect
				// the data: read what is still owed, and fail.
				c.reply(0)
			}
			return c.fail(cmd, err)
		}
	}
	return nil
}

// tlsData wraps a data connection in TLS when the control connection is
// protected. The FTP client is the TLS client on every data connection,
// even one it accepted (RFC 4217 section 7).
func (c *conn) tlsData(raw net.Conn) net.Conn {
	if c.tlsCfg == nil {
		return raw
	}
	return tlsDataConn{tls.Client(raw, c.tlsCfg)}
}

// tlsDataConn is a TLS data connection. Its Close sends close_notify when
// it can and reports nothing: a server that closed first (the end of a
// download) makes the alert fail, which says nothing about the transfer.
type tlsDataConn struct{ *tls.Conn }

func (t tlsDataConn) Close() error {
	t.Conn.Close()
	return nil
}
