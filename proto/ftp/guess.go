package ftp

import (
	"path"
	"strings"
)

// RFC 1738 section 3.2.2 leaves the transfer type to the client when the
// URL has no ;type= typecode. This package guesses from the file name and
// picks binary (TYPE I) whenever it is unsure: a text file sent as binary
// keeps the server's line ends, but a binary file sent as text is
// corrupted. Only names that are text by long convention on FTP archives
// (the extensions and whole names below, compared without regard to
// case) are fetched as TYPE A. Request.Options.FTP.Binary turns the guess
// off, and a resumed transfer is always binary: a REST offset counts the
// bytes of the stored file.
var textExtensions = map[string]bool{
	".txt":  true, // plain text
	".text": true,
	".asc":  true, // ASCII-armoured signatures and keys
	".me":   true, // READ.ME
	".1st":  true, // README.1ST
	".lsm":  true, // Linux Software Map entries
	".faq":  true,
}

var textNames = map[string]bool{
	"readme":    true,
	"read.me":   true,
	"index":     true,
	"00-index":  true,
	"ls-lr":     true,
	"files":     true,
	"changes":   true,
	"changelog": true,
	"copying":   true,
	"license":   true,
	"news":      true,
	"install":   true,
	"manifest":  true,
	"authors":   true,
	"thanks":    true,
	"todo":      true,
	"faq":       true,
}

// GuessType returns the transfer type this package uses for a file named
// name when its URL has no typecode and Options.FTP.Binary is false: "A"
// (text, line ends converted) for the names in the table above, else "I".
func GuessType(name string) string {
	base := strings.ToLower(path.Base(name))
	if textNames[base] || textExtensions[path.Ext(base)] {
		return "A"
	}
	return "I"
}

// saysBinary reports whether msg, the text of the preliminary reply (125
// or 150) to a RETR sent in TYPE A, says that the data comes in binary
// mode ("Opening BINARY mode data connection for f.txt (25 bytes)."):
// vsftpd sends that, and the stored bytes, unless ascii_download_enable
// is set. RFC 959 section 4.2 leaves the text of a reply free; the words
// "BINARY mode" (any case) are what the servers that do this write, and
// "ASCII mode" the ones that convert.
func saysBinary(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "binary mode")
}
