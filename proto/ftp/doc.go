// Package ftp is the driver for ftp URLs (RFC 1738 section 3.2). It
// speaks the protocol itself (RFC 959, with FEAT of RFC 2389, EPSV and
// EPRT of RFC 2428, SIZE, MDTM, REST and MLSD of RFC 3659, and TLS of RFC
// 4217): one reply reader (net/textproto) and one writer per control
// connection carry every command, under the redacting transcript.
// docs/ftp.md describes the behaviour a user sees; this comment gives
// the commands and the contracts.
//
// # Commands
//
// The url-path <cwd1>/.../<cwdN>/<name>;type=<typecode> is carried out as
// RFC 1738 section 3.2.2 says. After the login (USER, PASS when the server
// asks for it, then FEAT, TYPE I and PWD, to know the login directory),
// each cwd segment, decoded, is one CWD; "%2F" inside a segment stays in
// that segment's argument, so /%2Fetc/motd sends "CWD /etc". Then:
//
//	name, ;type=i     TYPE I, SIZE name, MDTM name, EPSV, RETR name
//	name, ;type=a     TYPE A, MDTM name, EPSV, RETR name  (CRLF -> LF)
//	name, no typecode TYPE by the name (GuessType), then as above
//	;type=d           EPSV, NLST name (NLST alone for an empty name)
//	empty name        EPSV, MLSD when FEAT lists MLST, else LIST
//
// MDTM is sent only when FEAT lists it; Options.FTP.Stat leaves out SIZE
// and MDTM for a caller that knows them from a listing. A data connection
// is opened with EPSV, or PASV once the server refuses EPSV, and REST n
// comes before RETR when Request.Offset is n > 0. Options.FTP.Method
// chooses curl's alternatives to one CWD per segment: proto.MethodSingleCWD
// (one CWD to the joined segments) and proto.MethodNoCWD (the whole path
// in RETR, NLST or LIST).
//
// A server that lists MLST in FEAT and answers MLSD with 500 or 502 is
// remembered by the Driver, and listed with LIST from then on. Lines of a
// listing that fit no layout are returned in Response.Listing.Unparsed,
// never dropped; when not one line fits, the names come from NLST, each
// probed with CWD, SIZE and MDTM (Listing.Fallback).
//
// Response.Info["ftp_type"] is the type of the data the body delivers:
// "A" converted to local line ends, "I" the stored bytes (also for a
// server that answers TYPE A's RETR with "150 Opening BINARY mode",
// with Info["ftp_server_binary"] set). Info["ftp_type_guessed"] is true
// when the type came from the name. TypeOf reads both. The Size of TYPE A
// data is -1, since SIZE counts stored bytes.
//
// # Login
//
// No user in the URL: the login of the host's entry in the .netrc file
// named by Options.Netrc, else "anonymous" with Options.Email (default
// "anonymous@") as the password. A user without a password: the .netrc
// file, else a password typed earlier for the same server and user on
// this Driver, else Request.Prompt, else an error wrapping
// proto.ErrLogin. A malformed .netrc file gives an error wrapping a
// *NetrcError, which names no password.
//
// # Replies and errors
//
// Every refusal is a *CommandError naming the command (password hidden, a
// null argument shown as "(null argument)") and keeping the server's
// *textproto.Error; 530 wraps proto.ErrLogin, 550 proto.ErrNotFound (or
// proto.ErrPermission when its text says so), 553 proto.ErrPermission. A
// reply line over Config.MaxReplyLine bytes, or a reply that never ends,
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
// section 3.2.5). A reused connection found dead (or answering 421)
// before anything was delivered is replaced, once, by a new one.
// Request.Trace receives "> command" and "< reply" lines (PASS shown as
// "PASS ****") and "* note" lines for what the driver decides on its own.
//
// Request.Options.FTP.Port (curl's --ftp-port) makes every transfer active
// (EPRT, or PORT when the server refuses EPRT), and accepts a data
// connection only from the control connection's peer (RFC 2577 section
// 3). Request.Options.FTP.TLS asks for explicit TLS (RFC 4217): AUTH TLS
// after the greeting, PBSZ 0 and PROT P after the login, data connections
// in TLS resuming the control connection's session.
//
// # Deviations
//
// RFC 1738 asks for "a CWD command with a null argument" for an empty
// segment; it is sent as "CWD" followed by a space and nothing. Servers
// differ on what it means, and many refuse it: a refusal does not end the
// retrieval (the client stays where it was, which is the most plausible
// meaning), but is noted in the trace and in Response.Info["warnings"].
// OPTS UTF8 ON is not sent: names are octets. A login that asks for an
// account (332) fails: no ACCT is sent. Implicit FTPS (a TLS connection
// from the start, port 990) is not offered.
package ftp
