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
//     entry is never used for news servers. The file is read as for
//     ftp: URLs, by the parser every driver shares ('#' comments, quoted
//     tokens); a missing file gives no credentials, one that cannot be
//     read, is over 1 MiB or is malformed is an error, for a malformed
//     file "nntp: netrc PATH: line N: ..." (it names no password).
//   - news: URLs name no server. The server is the caller's setting
//     (Request.Options.NNTP.Server), or the host of the
//     news://server/... form of RFC 5538.
//   - Articles come with LF line ends (textproto's DotReader turns the
//     wire's CR LF into LF), dot-unstuffed; with Request.Raw, as the
//     server sent them: dot-stuffed, CR LF, the "." line left out.
//
// Driver.Open gives a Session, one connection kept for many commands, for
// a mirror: GROUP, OVER (else XOVER; neither gives ErrNoOverview),
// LISTGROUP, STAT, LIST ACTIVE with a wildmat, and STAT and ARTICLE
// pipelined (RFC 3977 section 3.5: Driver.Pipeline commands in flight, at
// most MaxPipeline).
//
// Replies that refuse are *ReplyError values holding the *textproto.Error:
// 411, 420, 423 and 430 wrap proto.ErrNotFound, 480 to 482 proto.ErrLogin,
// 483 and 502 proto.ErrPermission, and 400 ErrServiceUnavailable. An OVER
// or XOVER range without articles is no refusal: OVER answers it 423
// (section 8.3.2; INN does), RFC 2980's XOVER 420, and Overview and the
// summary of a group give no lines.
//
// The greeting is 200 or 201 when the server will serve, else 400 or 502
// and a close (RFC 3977 section 5.1.1). 502 means this client may not use
// the server at all (proto.ErrPermission); 400 means the server cannot
// serve now and expects to later (section 3.2.1: retry after a growing
// delay), so 400, at the greeting or to any command, is
// ErrServiceUnavailable, which package fetch counts with the network
// failures, the class worth retrying. A peer that breaks the protocol (a
// malformed status line, a line longer than Driver.MaxLineLength, a list
// beyond the Driver's limits) gives a *proto.ProtocolError; a connection
// lost mid-reply an error wrapping io.ErrUnexpectedEOF or the net error.
package nntp
