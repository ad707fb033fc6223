package ftp

import (
	"slices"
	"strings"
)

// The control connection is a Telnet connection (RFC 959 section 4.1.3,
// RFC 854): the byte 0xff is IAC, which starts a Telnet command, and data
// that holds it sends it twice. A name in the charset of an old archive
// may hold the byte (Latin-1 "ÿ", "naïveÿ.txt"). Servers differ:
//
//   - the BSD ftpd (Debian's ftpd-ssl, "Version 6.4/OpenBSD/Linux-ftpd")
//     and inetutils-ftpd read Telnet: a single 0xff and the byte after it
//     are dropped as a command ("RETR na\xefve\xff.txt" asks for
//     "na\xefvetxt"), and IAC IAC is the byte;
//   - vsftpd, Pure-FTPd and pyftpdlib take every byte as part of the
//     name, and a doubled 0xff as two bytes of it (vsftpd: 550); ProFTPD
//     takes either.
//
// Nothing in a greeting or in FEAT says which, so a connection asks once,
// before the first command that holds the byte: "IAC NOP" (RFC 854: no
// operation) in front of NOOP, then PWD. A server that reads Telnet
// answers the NOOP with 200; one that does not refuses the line (vsftpd,
// ProFTPD 1.3.8, pyftpdlib) or answers nothing (Pure-FTPd); PWD's 257
// comes after either way. To a Telnet reader every 0xff then goes twice
// (wire.Write).

// iacMode is what a connection knows of its server's reading of 0xff.
type iacMode uint8

const (
	iacUnknown iacMode = iota // not asked yet
	iacSingle                 // 0xff is a byte of the name: sent once
	iacDouble                 // the server reads Telnet: sent as IAC IAC
)

// iacProbe asks a server whether it reads the control connection as
// Telnet (see above).
const iacProbe = "\xff\xf1NOOP\r\nPWD"

// checkIAC learns whether the server reads Telnet, when one of args holds
// the byte 0xff and the connection does not know yet. No reply may be
// owed but an EPSV's sent ahead. An error is a failed connection.
func (c *conn) checkIAC(args ...string) error {
	if c.iac != iacUnknown || !slices.ContainsFunc(args, func(a string) bool { return strings.IndexByte(a, 0xff) >= 0 }) {
		return nil
	}
	if err := c.send(iacProbe); err != nil {
		return c.fail("NOOP", err)
	}
	code, _, err := c.reply(0)
	if err == nil && code != StatusPathCreated {
		// The NOOP's reply; the PWD's comes after it.
		_, _, err = c.reply(0)
	}
	if err != nil {
		return c.fail("NOOP", err)
	}
	c.iac = iacSingle
	if code == StatusCommandOK {
		c.iac = iacDouble
		c.w.iac = true
		c.w.note("the server reads the control connection as Telnet (IAC NOP ignored): the byte 0xff of a name is sent as IAC IAC")
	}
	return nil
}
