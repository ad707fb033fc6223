// Package telnet implements the telnet URL scheme of RFC 1738 section 3.8:
// telnet://<user>:<password>@<host>:<port>/.
//
// A telnet URL designates an interactive service, not a data object, and
// its user name and password are advisory only: "clients accessing a telnet
// URL merely advise the user of the suggested username and password". So
// [Driver.Fetch] connects to nothing; it returns an advisory response naming
// the service, the suggested user and whether a password was suggested (the
// password itself is never shown). [Interactive] opens a session on the
// user's terminal; it too types nothing for the user.
//
// The session speaks the Network Virtual Terminal of RFC 854 with option
// negotiation (RFC 855) for ECHO (RFC 857), SUPPRESS-GO-AHEAD (RFC 858),
// TERMINAL-TYPE (RFC 1091) and NAWS, the window size (RFC 1073). It uses
// github.com/ziutek/telnet only where that library is sound: undoing the
// IAC IAC escape of a 255 data byte on input and doubling 255 on output.
// Everything else about the protocol is done here, in front of it, because
// the library ends a session on IAC NOP and IAC DM ("unknown command"),
// answers DO NAWS with a fixed 65535x65535 size written as eight unescaped
// 255 bytes, agrees to echo the server's data back to it on DO ECHO, and
// refuses TTYPE.
//
// Deviations: the Synch mechanism (RFC 854: urgent data and DM) is not
// implemented; DM is dropped and no data is discarded. BINARY is refused,
// so the session is 7-bit NVT plus whatever 8-bit bytes the server sends.
// The Return key is sent as CR LF, the NVT end of line.
package telnet
