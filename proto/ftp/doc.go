// Package ftp is the driver for ftp URLs (RFC 1738 section 3.2). It
// speaks the protocol itself (RFC 959, with FEAT of RFC 2389, EPSV and
// EPRT of RFC 2428, SIZE, MDTM, REST and MLSD of RFC 3659, and TLS of RFC
// 4217): one reply reader (net/textproto) and one writer per control
// connection carry every command, under the redacting transcript.
//
// # Commands
//
// The url-path <cwd1>/.../<cwdN>/<name>;type=<typecode> is carried out as
// RFC 1738 section 3.2.2 says. After the login (USER, PASS when the server
// asks for it, then FEAT and TYPE I, and PWD, to know the login directory),
// each cwd segment, decoded, is one CWD; "%2F" inside a segment stays in
// that segment's argument, so /%2Fetc/motd sends "CWD /etc". Then:
//
//	name, ;type=i     TYPE I, SIZE name, MDTM name, EPSV, RETR name
//	name, ;type=a     TYPE A, MDTM name, EPSV, RETR name  (CRLF -> LF)
//	name, no typecode TYPE by the name (see below), then as above
//	;type=d           EPSV, NLST name (NLST alone for an empty name)
//	empty name        EPSV, MLSD when FEAT lists MLST, else LIST
//
// Some servers list MLST in FEAT and then answer MLSD with 500 or 502.
// A connection picks MLSD or LIST once, at login, so the Driver remembers
// such a server: the listing is done again with LIST on a new connection,
// later connections to that server list with LIST, and connections that
// would still send MLSD are closed rather than kept. Driver.DisableMLSD
// makes every listing use LIST.
//
// Before its first LIST a connection sends SYST once: the
// system it names is the first layout tried. Lines of a listing that fit
// no layout are returned in Response.Listing.Unparsed, never dropped
// silently. When not one line fits, the names come from NLST and each is
// probed on the same connection: PWD once, then CWD name
// (a directory, when a PWD there names one below: CWD back to the first
// PWD answer, or CDUP without one) or SIZE and MDTM name (a file);
// Listing.Fallback is then true.
//
// With Options.FTP.ListAll, a LIST to a server whose SYST names Unix is
// "LIST -a", so that names which begin with a dot are listed too; a server
// that refuses the option, or takes it for a name, is asked with LIST, and
// Listing.DotNames then says that such names may be missing.
//
// Before the first command whose argument holds the byte 0xff (Telnet's
// IAC, a Latin-1 "ÿ" in a name), a connection sends "IAC NOP" and NOOP,
// then PWD, to learn whether the server reads the control connection as
// Telnet (the BSD ftpd and inetutils-ftpd do); to such a server every
// 0xff is then sent doubled, as RFC 854 sends the byte as data.
//
// MDTM is sent only when FEAT lists it; SIZE and MDTM are left out when
// Options.FTP.Stat is proto.StatNone (a mirror that knows both from the
// listing), and MDTM alone when it is proto.StatSize (a caller that keeps
// no times). Driver.ModTimes asks MDTM for many files of one directory at
// once: the commands go out in one write (64 at most) and the replies are
// read in order.
// A data connection is opened with EPSV, and with PASV (from then on,
// on that connection) when the server refuses EPSV or names no port; the
// six numbers of a PASV reply are scanned for, with or without
// parentheses (RFC 1123 section 4.1.2.6). REST n comes between EPSV and
// RETR when Request.Offset is n > 0. A server whose FEAT lists PRET gets
// "PRET RETR name" (or the listing command) before EPSV.
//
// With Driver.PipelinePassive (a mirror's driver), the EPSV of a
// connection's next retrieval is sent before the 226 of the current one is
// read: once its data connection has reached its end, or, for a server
// that reads no command during a transfer (vsftpd, known by its
// greeting), in the same write as the RETR. A retrieval from offset 0
// then uses the 229 already on its way. Any other command first reads
// that 229 and drops it. With vsftpd the data connections of these
// retrievals and listings are half-closed as soon as they are open, and Warm leaves
// its connections in the directory it was given, with their first EPSV
// sent.
//
// Options.FTP.Method chooses curl's alternatives: proto.MethodMultiCWD
// (the default, as above), proto.MethodSingleCWD (one CWD with the
// segments joined by "/"; leading empty segments make it absolute) and
// proto.MethodNoCWD (no CWD; RETR, NLST or LIST get the whole path).
//
// Without a typecode the transfer type is guessed from the name, and is
// binary when unsure: only names that are text by long convention (README,
// INDEX, ls-lR, *.txt, ...; GuessType holds the table) are fetched as TYPE A.
// Options.FTP.Binary turns the guess off, and a resumed transfer
// is always binary. TYPE A data is converted to local line ends (CRLF to
// LF; nothing on Windows) and its Size is -1, since SIZE counts stored
// bytes. A server that answers TYPE A's RETR with "150 Opening BINARY
// mode ..." (vsftpd's default) sends the stored bytes: they are passed on
// unconverted. Response.Info["ftp_type"] is the type of the data the body
// delivers ("A" converted, "I" the stored bytes; "I" too for that server,
// with Info["ftp_server_binary"] set), and Info["ftp_type_guessed"] is
// true when the type came from the name, so that a caller can say so.
//
// # Login
//
// No user in the URL: the login of the host's entry in the .netrc file
// named by Options.Netrc (the first "machine" entry for the host that
// names a login, else the "default" entry's), as curl and ftp(1) do, and
// then its password as below; without such a file or entry, "anonymous"
// with Options.Email (default "anonymous@") as the password. A user
// without a password: the .netrc
// file named by Options.Netrc, else a password typed earlier for the
// same server and user on this Driver, else Request.Prompt (no echo),
// else an error wrapping proto.ErrLogin. The password is found before
// connecting, not when the server asks for it, so that one prompt serves
// every URL of a server.
//
// The .netrc file is read as the BSD ftp(1) manual page describes it,
// with '#' comments and double-quoted tokens as in curl, by the same
// parser as every other driver's. The password comes from the first
// "machine" entry for the host (compared without regard to case) that
// has a password and names the URL's user or no login, else from the
// "default" entry the same way. A missing or unreadable file, one over
// 1 MiB, or a malformed one is an error (a missing one is no entry when
// only a login is looked for); a malformed file gives
// "ftp: netrc PATH: line N: ..." wrapping a *NetrcError, which names no
// password.
//
// # Replies and errors
//
// Every refusal is a *CommandError naming the command (password hidden, a
// null argument shown as "(null argument)") and keeping the server's
// *textproto.Error; 530 wraps proto.ErrLogin, 550 proto.ErrNotFound (or
// proto.ErrPermission when its text says so), 553 proto.ErrPermission. A
// reply line over Driver.MaxReplyLine bytes, or a reply that never ends,
// is a *proto.ProtocolError. A transfer cut short (an error reply after
// the data, or fewer bytes than SIZE announced) makes the body's Read fail:
// a truncated file never looks complete.
//
// # Connections
//
// Every connection is dialled with Request.DialContext, so the request's
// dialer, timeouts and address policy apply, and every read and write has
// the idle deadline. The address in a PASV reply is ignored: data
// connections go to the control connection's peer (RFC 2577 section 3).
// Control connections are kept per server, user and password, and reused
// after an absolute CWD to the directory PWD reported at login (RFC 1738
// section 3.2.5); a connection whose PWD gave nothing usable is not reused.
// On a reused connection, a URL with exactly the CWD list of the previous
// one (all of which succeeded) needs no CWD, and a TYPE already in effect
// is not sent again. A reused connection found dead (or answering 421)
// before anything was delivered is replaced, once, by a new one.
// Request.Trace receives "> command" and "< reply" lines (PASS shown as
// "PASS ****") and "* note" lines for what the driver decides on its own.
//
// # Deviations
//
// RFC 1738 asks for "a CWD command with a null argument" for an empty
// segment; it is sent as "CWD" followed by a space and nothing. Servers
// differ on what it means, and many refuse it: a
// refusal does not end the retrieval (the client stays where it was, which
// is the most plausible meaning), but is noted in the trace and in
// Response.Info["warnings"]. OPTS UTF8 ON is not sent: names are octets.
// A login that asks for an account (332) fails: no ACCT is sent. Implicit FTPS (a TLS connection from the start, port 990) is
// not offered.
//
// # Active mode and TLS
//
// Request.Options.FTP.Port (curl's --ftp-port) turns every transfer of
// the request into active mode: EPRT (RFC 2428), or PORT when the server
// refuses EPRT, and a data connection accepted only from the control
// connection's peer (RFC 2577 section 3). With a Request.Dial that refuses private addresses, the
// listener is the client's own and nothing is dialled for data: the peer
// check is what binds the data connection to the control connection's
// (allowed) server.
//
// Request.Options.FTP.TLS asks for FTP over explicit TLS (RFC 4217):
// proto.TLSTry (curl's --ssl) or proto.TLSRequire (--ssl-reqd, which
// sends nothing after a refused AUTH TLS and returns a *TLSRefusedError).
// AUTH TLS follows the greeting; the transcript sits above TLS, so it
// stays in clear (the password hidden); PBSZ 0 and PROT P follow the login, data connections are TLS and
// resume the control connection's session. Options.FTP.CACert and
// Options.FTP.Insecure (curl's --cacert and -k) and Driver.TLSClientConfig
// set the verification.
package ftp
