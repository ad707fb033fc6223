// Package gopher is the driver of gopher: URLs, Gopher+ included.
//
// It implements the client side of RFC 1436 (the Internet Gopher protocol),
// the gopher URL scheme of RFC 1738 section 3.4, and the Gopher+
// enhancements (gopherplus.txt, University of Minnesota, July 1993):
// response headers, item attributes ("!" and "$"), alternate views, and
// +ASK forms.
//
// A request is one line on a new connection (RFC 1738 section 3.4):
//
//	selector [TAB search [TAB gopher+_string]] CRLF
//
// where the fields are the decoded parts of the gopher-path
// <gophertype><selector>%09<search>%09<gopher+_string>. No character is
// reserved in the gopher-path: "gopher://h/0a?b" asks for the selector
// "a?b". A filled +ASK form (RFC 1738 section 3.4.9,
// "+%091%0D%0A+-1%0D%0A<value>%0D%0A...%0D%0A.%0D%0A") is the only
// gopher+_string with CR or LF that is sent, and only in exactly that
// structure; every other field holding CR, LF or NUL (or TAB, in the
// selector and search) is refused before anything is dialled, with an
// error wrapping proto.ErrUnsafeArgument.
//
// Where this package deviates from, or chooses among, the documents:
//
//   - Servers differ in how data ends. RFC 1436 servers end text (type 0)
//     and menus with a "." line, double the dot of every line that begins
//     with one, and close; others (pygopherd, Gophernicus) send files as
//     they are and just close. A "." line ends a menu; a menu without one
//     ends at the close, which a menu cut between two lines does too, and
//     Response.Info[InfoMenuEnd] says which end it had. In text it ends the
//     data when the stream ends with it; when more data follows, or a line
//     begins with a single dot, the server is of the second kind. Lines
//     that begin with ".." lose one dot only when the text ends with the
//     terminator and shows no sign of the second kind (NewTextReader holds
//     them back until it knows). A server that sends the "." line and then
//     neither closes nor sends is waited for until the idle timeout, after
//     which the text ends normally.
//   - A Gopher+ response header is recognized only when a gopher+_string
//     was sent; a server that ignores the gopher+_string and answers
//     without a header is read as a plain gopher server.
//   - The search field is always written when a gopher+_string is sent,
//     empty if need be ("sel\t\t+"), as RFC 1738 section 3.4 writes it;
//     gopherplus.txt writes "sel\t+" for items that are not searches.
//     pygopherd and the UMN server accept both.
//   - Attributes asked for by name ("!+ABSTRACT +SMELL") are "only
//     suggestions to the server" (gopherplus.txt section 2.7); the driver
//     keeps only the named blocks (and +INFO) of what comes back, and asks
//     again with the bare "!" or "$" when the server answered with
//     something other than attribute blocks.
//   - +ASK forms (gopherplus.txt section 2.8) are answered from
//     proto.Request.Form or the terminal. Select is a check box ("1" or
//     "0"; "Select: label:1" gives its default), Choose and ChooseF send
//     the text of the choice, AskL sends its line count and then its lines,
//     Note takes no answer. No local file is read for ChooseF or written
//     for AskF. Forms are sent only with a "+-1" data block.
//   - Gopher+ error codes (gopherplus.txt section 2.3): 1 (item is not
//     available) wraps proto.ErrNotFound; 3 (item has moved) with a gopher
//     descriptor becomes a *proto.Redirect to the new place; 2 (try again
//     later) and other codes are a *ServerError. A plain gopher response
//     made only of type "3" error lines also wraps proto.ErrNotFound.
//
// Menus and attribute responses are read into memory to be parsed, within
// the limits of Driver (line length, size, item count); text and binary
// items stream.
package gopher
