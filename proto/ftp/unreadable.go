package ftp

import (
	"slices"
	"strings"
)

// Directories the server could not read
//
// A directory that may be entered but not read (mode 0711 on Unix: CWD
// succeeds) is listed by some servers as an empty directory, with a 226
// whose text alone says what happened:
//
//	vsftpd     226 Transfer done (but failed to open directory).
//	Pure-FTPd  226-Sorry, we were unable to read [.]
//	           226 0 matches total
//
// Taken at its word, such a listing is an empty directory: a mirror would
// copy nothing from it, report success, and with --delete remove the
// local copies of its files. A listing whose completion reply says so is
// therefore a failure that wraps proto.ErrPermission. ProFTPD answers
// LIST there with "226 Transfer complete" and nothing else, which no
// client can tell from an empty directory; its MLSD says 550.
//
// Servers that run ls send its error about the directory in the data,
// and end with a plain 226:
//
//	BSD ftpd (ftpd-ssl 0.17)  /bin/ls: cannot open directory '.': Permission denied
//	inetutils-ftpd 2.4        .: Permission denied
//
// A LIST whose data is such lines and nothing else (deniedLines) is the
// same failure, not unparsed lines that would lead to the NLST fallback.

// unreadableTexts are the servers' own phrases, lower case, not words
// such as "unable to read" alone: a 226 may carry other text (a message
// file's lines), which must not make a good listing a failure.
var unreadableTexts = []string{
	"(but failed to open directory)", // vsftpd
	"we were unable to read [",       // Pure-FTPd
}

// unreadableReply reports whether text, the whole completion reply of a
// listing, says the server could not read the directory.
func unreadableReply(text string) bool {
	t := strings.ToLower(text)
	return slices.ContainsFunc(unreadableTexts, func(u string) bool { return strings.Contains(t, u) })
}

// deniedLines reports whether the lines of a listing that fit no layout,
// where not one fits, are all ls's "Permission denied" (in the C locale;
// another language's stays an unread line).
func deniedLines(got listed) bool {
	if got.n > 0 || len(got.unparsed) == 0 {
		return false
	}
	for _, line := range got.unparsed {
		if !strings.HasSuffix(strings.TrimRight(line, "\r"), ": Permission denied") {
			return false
		}
	}
	return true
}
