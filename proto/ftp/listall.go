package ftp

import (
	"fmt"
	"strings"
)

// Names that begin with a dot
//
// RFC 959 (section 4.1.3) gives LIST one argument, a pathname, and leaves
// what the listing holds to the server. Unix servers list as "ls -l" does,
// and leave out the names that begin with a dot (".message", ".htaccess",
// a ".git" tree) unless the client asks with ls's own option, "LIST -a".
// vsftpd does so; MLSD (RFC 3659 section 7) lists every name, and so do
// ProFTPD and Pure-FTPd, which offer it.
//
// With Options.FTP.ListAll, a listing with LIST sends "LIST -a" (with the
// path after it for MethodNoCWD) when SYST named a Unix system. A server
// that does not know the option may take "-a" for a name, and refuse it
// (550 "-a: No such file or directory") or list nothing with 226, so its
// answer is judged:
//
//	"." or ".." among the entries   honoured: ls -a lists them; the answer is the listing
//	a refusal (5xx, or 450)         asked again with LIST (450 is how some
//	                                servers say a name matches no file)
//	no entry at all                 asked again with LIST: with entries, "-a" was
//	                                taken for a name; empty, the directory is empty
//	entries, neither "." nor ".."   the answer is the listing (the option ignored,
//	                                or honoured without those two)
//
// A server found to refuse LIST -a, or to take "-a" for a name, is
// recorded (connPool.refuse): its later listings send LIST, and
// Response.Listing.DotNames says that they may lack such names.
//
// Systems other than Unix are not sent the option: VMS, OS/400 and
// NetWare have no such convention, and a name "-a" means nothing there.

// dotNamesUnlisted is Response.Listing.DotNames for a listing with
// LIST from a server that would not list the names that begin with a dot.
const dotNamesUnlisted = "the server refused LIST -a: names that begin with a dot are not listed"

// unixSystem reports whether syst, the text of the reply to SYST, names a
// Unix system, or a server that lists as one ("UNIX Type: L8", "UNIX
// emulated by FileZilla").
func unixSystem(syst string) bool {
	return strings.Contains(strings.ToUpper(syst), "UNIX")
}

// optArg is LIST's argument with ls options (flags, such as "a" or "ar")
// and then path, when there is one (MethodNoCWD, or a name): "-a",
// "-ar dir", "-d name". No flags is path alone.
func optArg(flags, path string) string {
	switch {
	case flags == "":
		return path
	case path == "":
		return "-" + flags
	}
	return "-" + flags + " " + path
}

// listAllMiss says why an answer to LIST -a is not taken as the listing
// (the table above), or "" when it is.
func listAllMiss(err error, entries, unparsed int, self bool) string {
	switch {
	case err != nil:
		if code := replyCode(err); code >= 500 || code == StatusFileActionIgnored {
			return fmt.Sprintf("the server refused LIST -a (%d)", code)
		}
		return ""
	case self || entries > 0 || unparsed > 0:
		return ""
	default:
		return "LIST -a gave no entry, not even \".\""
	}
}

// askAll makes the command LIST -a (path, for MethodNoCWD, after the
// option) when ListAll asks for it and the server lists as Unix does. It
// reports whether it did; for a server that refused the option before, it
// returns the note for Listing.DotNames instead.
func (l *dirList) askAll(path string) (sent bool, note string) {
	c := l.c
	if l.format != formatLIST || !c.req.Options.FTP.ListAll || !unixSystem(c.syst) {
		return false, ""
	}
	if l.d.pool().refuses(c.key.addr, "LIST -a") {
		return false, dotNamesUnlisted
	}
	l.arg = optArg("a", path)
	return true, ""
}

// miss is listAllMiss of got and err, or "" once a stream handed entries
// over, which cannot be taken back.
func (l *dirList) miss(err error, got listed) string {
	if l.st != nil && l.st.n > 0 {
		return ""
	}
	return listAllMiss(err, got.n, len(got.unparsed), got.self)
}

// allOrPlain judges got and err, the answer to LIST -a, and when it is not
// the listing lists again with plain LIST. It returns the listing or its
// failure, and the note for Listing.DotNames.
func (l *dirList) allOrPlain(path string, got listed, err error) (listed, string, error) {
	why := l.miss(err, got)
	if why == "" {
		return got, "", err
	}
	l.c.w.note("%s: asking with LIST", why)
	refused := err != nil
	l.arg = path
	if got, err = l.run(); err != nil {
		return got, "", err
	}
	if refused || got.n > 0 || len(got.unparsed) > 0 {
		l.d.pool().refuse(l.c.key.addr, "LIST -a")
		return got, dotNamesUnlisted, nil
	}
	return got, "", nil
}
