// Package nntp is the driver of the nntp: and news: URL schemes (RFC 1738
// sections 3.6 and 3.7), speaking NNTP as RFC 3977 defines it, with
// AUTHINFO USER/PASS from RFC 4643 and the XOVER, LIST ACTIVE and LIST
// NEWSGROUPS of RFC 2980 for older servers. It is built on net/textproto.
//
// A session: the greeting (200 or 201; both are fine for reading), MODE
// READER (any reply accepted), AUTHINFO when credentials are known, the
// commands the URL asks for, QUIT. Every argument is checked before the
// connection is made and again at the wire: a group name or message-id
// with CR, LF, NUL, space, TAB or another control byte is refused with an
// error wrapping proto.ErrUnsafeArgument.
//
// Where it deviates from RFC 1738:
//
//   - nntp: URLs have no user or password in RFC 1738; when one is given
//     anyway it is used for AUTHINFO (package safety warns about it). A
//     .netrc entry for the host also supplies credentials; its "default"
//     entry is never used for news servers.
//   - news: URLs name no server. The server is the caller's setting
//     (Request.Options["nntp-server"]), or the host of the
//     news://server/... form of RFC 5538.
//   - Articles come with LF line ends (textproto's DotReader turns the
//     wire's CR LF into LF), dot-unstuffed.
//
// Replies that refuse are *ReplyError values holding the *textproto.Error:
// 411, 420, 423 and 430 wrap proto.ErrNotFound, 480 to 482 proto.ErrLogin,
// 483 and 502 proto.ErrPermission. A peer that breaks the protocol (a
// malformed status line, a line longer than Driver.MaxLineLength, a list
// beyond the Driver's limits) gives a *proto.ProtocolError; a connection
// lost mid-reply an error wrapping io.ErrUnexpectedEOF or the net error.
package nntp
