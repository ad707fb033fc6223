package localserver

import (
	"strconv"
	"strings"
)

// HostileNames are the names in the listings of HostileFTP that no mirror
// may write: they climb out ("../escape", "a/../../b", "../updir"), are
// absolute ("/etc/passwd"), hold CR, NUL or a trailing CR, or are links
// whose target leaves the tree ("etc", "up", "sub/back"), in the form
// "DIR NAME" ("" for the top directory). The LF case cannot reach a client
// as a name: "lf\ninjected" splits into the ordinary file "lf" and a line
// that is no listing entry.
var HostileNames = []string{
	" ../escape", " /etc/passwd", " a/../../b", " cr\rinside", " trailing-cr\r",
	" nul\x00inside", " etc", " up", " ../updir", "sub ../../escape2", "sub back",
}

// HostileFTP returns a RawFTP (start it with StartRawFTP) whose listing of
// "/" mixes ordinary entries (ok.txt, lf, the link inside-link -> ok.txt,
// the directory sub) with HostileNames and a ".fetch" directory (the
// mirror's own state folder); "/sub" holds deep.txt, the link
// sibling -> ../ok.txt and two hostile entries. Every file it lists under
// an ordinary name can be retrieved; the hostile ones cannot.
func HostileFTP() *RawFTP {
	file := func(name string, size int) string {
		return "-rw-r--r--    1 0        0    " + strconv.Itoa(size) + " Feb 03  2001 " + name + "\r\n"
	}
	dir := func(name string) string {
		return "drwxr-xr-x    2 0        0    4096 Feb 03  2001 " + name + "\r\n"
	}
	link := func(name, target string) string {
		return "lrwxrwxrwx    1 0        0    " + strconv.Itoa(len(target)) + " Feb 03  2001 " + name + " -> " + target + "\r\n"
	}
	top := strings.Join([]string{
		dir("."), dir(".."),
		file("ok.txt", 6), file("../escape", 6), file("/etc/passwd", 6), file("a/../../b", 6),
		file("cr\rinside", 6), file("trailing-cr\r", 6), file("lf\ninjected", 6), file("nul\x00inside", 6),
		link("etc", "/etc"), link("up", "../../../tmp"), link("inside-link", "ok.txt"),
		dir("../updir"), dir(".fetch"), dir("sub"),
	}, "")
	sub := file("deep.txt", 5) + file("../../escape2", 6) + link("back", "../../..") + link("sibling", "../ok.txt")
	return &RawFTP{
		Listings: map[string]string{"/": top, "/sub": sub},
		Files: map[string][]byte{
			"/ok.txt":       []byte("fine!\n"),
			"/lf":           []byte("lf ok\n"),
			"/sub/deep.txt": []byte("deep\n"),
		},
	}
}
