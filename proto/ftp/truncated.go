package ftp

import (
	"net/textproto"
	"strings"
)

// Listings cut short by the server
//
// Some servers list no more than a set number of entries and end the
// listing with 226 all the same: Pure-FTPd (-L / LimitRecursion, 10,000
// files by default in Debian's build) sends the first entries its limit
// allows, for LIST, MLSD and NLST alike, and says so only in the text of
// its completion reply, "226 Output truncated to 10000 matches" (after
// "226-Options: -a -l" for LIST). The bytes of such a listing are whole
// lines: nothing else shows that the directory holds more, and a mirror
// that believed it would copy part of the directory and report success.
//
// A completion reply whose text says "truncated" marks the listing:
// Response.Info["ftp_truncated"] holds that reply, for the caller to say
// that entries may be missing. ProFTPD's "ListOptions maxfiles" cuts LIST
// with a plain "226 Transfer complete": no client can tell that apart
// from the end of the directory (its MLSD is not cut).

// truncatedReply reports whether end, the completion reply of a listing
// command, says the server cut the listing short.
func truncatedReply(end *textproto.Error) bool {
	return end != nil && end.Code/100 == 2 && strings.Contains(strings.ToLower(end.Msg), "truncated")
}
