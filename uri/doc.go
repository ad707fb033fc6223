// Package uri parses, builds, resolves, normalises and extracts URLs as RFC
// 1738 defines them, for every one of its schemes: ftp, http (and https),
// gopher (with Gopher+), mailto, news, nntp, telnet, wais, file and
// prospero.
//
// The documents it implements, as the project's seeds hold them:
//
//   - RFC 1738, Uniform Resource Locators (seed 000, with the complete BNF
//     in section 5 of seed 002): the generic syntax, the character classes
//     (Escape, EscapePart, IsUnsafe, IsReserved) and the scheme-specific
//     syntax and decoding rules (the views URL.FTP, URL.HTTP, URL.Gopher,
//     URL.Mailto, URL.News, URL.NNTP, URL.Telnet, URL.WAIS, URL.File,
//     URL.Prospero) and default ports (DefaultPort).
//   - The 1996 URL draft that merged RFC 1738 with RFC 1808 (seed 001): URL
//     references and fragments (Parse), escaping (section 2), relative
//     resolution (Resolve in mode RFC1808, its Appendix C), and delimiting
//     URLs in text (Extract, its Appendix B).
//   - RFC 2396 (seed 003): resolution (mode RFC2396, Appendix C),
//     equivalence (Normalize and Equal, section 6), delimiting in context
//     (Extract, Appendix E) and abbreviated URLs (Abbreviated, Appendix F).
//   - RFC 3986 section 5: resolution as current software does it (mode
//     RFC3986, the default).
//
// A URL is always kept in escaped form. Parse splits a reference into its
// components without decoding anything; a view decodes the components of
// its scheme once, after splitting, so an escaped delimiter is never taken
// for a real one and nothing is decoded twice.
//
// Where this package deviates from the documents:
//
//   - Unsafe printable characters (space, "{", "}", "|", "\", "^", "~",
//     "[", "]", "`", "<", ">", '"') are accepted in every component but the
//     host and port, although RFC 1738 section 2.2 says they must be
//     encoded; package safety reports them. Control characters and bad "%"
//     escapes are errors.
//   - A host holds letters, digits, "-", ".", "_" and octets from 0x80 only
//     (no "%" escapes, no registry names with sub-delimiters). An IPv6
//     literal in brackets (RFC 3986 section 3.2.2, without zone or
//     IPvFuture) is accepted, though RFC 1738 and RFC 2396 have none.
//   - A scheme name must start with a letter (RFC 2396 section 3.1; RFC 1738
//     also allowed a digit, "+", "-" or "."); "1a:b" is a relative path.
//   - "news://server/group" and "news://server/message-id" are accepted (RFC
//     5538); NewsPath.Server names the server.
//   - "file:/path", with no server part (seed 001 section 1.1), is a local
//     file like "file:///path".
//   - A port may be empty ("host:/", seed 001 section 4.3.1); it then means
//     the default port, and String writes the ":" back.
//   - Views do not refuse decoded CR, LF, NUL or tabs: package safety and
//     the drivers, which write to the wire, refuse them.
//
// Errors are *Error values naming the byte offset of the problem in the
// input and the component being parsed; their Err is an EscapeError or a
// Reason. No error holds a password.
//
// All functions are safe for concurrent use. A *URL is never modified by
// this package after Parse returns it.
package uri
