package ftp

import (
	"cmp"
	"fmt"
	"net/textproto"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// action is what a URL asks the server for.
type action int

const (
	actRetr action = iota // RETR name
	actList               // MLSD or LIST: a path ending in "/"
	actNLST               // NLST name: ;type=d
)

// plan is the command sequence for one URL.
type plan struct {
	cwd     []string // the CWD arguments, in order ("" is a null argument)
	arg     string   // the argument of RETR, NLST or LIST ("" for none)
	name    string   // the file name to suggest for -O
	act     action
	typ     string // "A" or "I" for RETR
	guessed bool   // typ came from GuessType, not from the URL
}

// args returns every argument the plan sends: its CWDs, then the one of
// RETR, NLST or LIST.
func (pl plan) args() []string { return append(slices.Clip(pl.cwd), pl.arg) }

// makePlan turns the decoded url-path into commands (RFC 1738 section
// 3.2.2, or the request's Options.FTP.Method), every argument checked
// with proto.CheckArg. An unknown Method or Stat is an error.
func makePlan(p *uri.FTPPath, req *proto.Request) (plan, error) {
	method := cmp.Or(req.Options.FTP.Method, proto.MethodMultiCWD) // MethodDefault is ""
	switch s := req.Options.FTP.Stat; s {
	case proto.StatAll, proto.StatSize, proto.StatNone, proto.StatTime:
	default:
		return plan{}, fmt.Errorf("ftp: unknown Options.FTP.Stat %q (want %q, %q, %q or %q)", s, proto.StatAll, proto.StatSize, proto.StatNone, proto.StatTime)
	}
	var pl plan
	pl.name = p.Name
	switch {
	case p.Type == "d":
		pl.act = actNLST
	case p.Name == "":
		pl.act = actList
	default:
		pl.act = actRetr
		pl.typ = strings.ToUpper(p.Type) // ;type=a or ;type=i: "A" or "I"
		if p.Type == "" {
			pl.typ = "I"
			if !req.Options.FTP.Binary && req.Offset == 0 {
				pl.typ, pl.guessed = GuessType(p.Name), true
			}
		}
	}
	switch method {
	case proto.MethodMultiCWD:
		pl.cwd = append([]string(nil), p.CWD...)
		pl.arg = p.Name
	case proto.MethodSingleCWD:
		if len(p.CWD) > 0 {
			pl.cwd = []string{joinDir(p.CWD)}
		}
		pl.arg = p.Name
	case proto.MethodNoCWD:
		switch {
		case pl.act == actList:
			pl.arg = joinDir(p.CWD)
		case len(p.CWD) > 0:
			pl.arg = strings.Join(append(append([]string(nil), p.CWD...), p.Name), "/")
		default:
			pl.arg = p.Name
		}
	default:
		return plan{}, fmt.Errorf("ftp: unknown Options.FTP.Method %q (want multicwd, singlecwd or nocwd)", method)
	}
	for _, a := range append(pl.cwd, pl.arg) {
		if err := proto.CheckArg(a); err != nil {
			return plan{}, fmt.Errorf("ftp: path: %w", err)
		}
	}
	return pl, nil
}

// joinDir joins directory segments into one path. Segments that are all
// empty (the url-path "//x" or "///x") mean the root, "/", since the joined
// path would otherwise lose them.
func joinDir(segs []string) string {
	d := strings.Join(segs, "/")
	if d == "" && len(segs) > 0 {
		return "/"
	}
	return d
}

// loginDir returns the directory named by a reply to PWD, or "" when it
// names none that can be sent back in a CWD.
func loginDir(last *textproto.Error) string {
	if last == nil || last.Code != StatusPathCreated {
		return ""
	}
	dir, ok := parsePWD(last.Msg)
	if !ok || proto.CheckArg(dir) != nil {
		return ""
	}
	return dir
}

// parsePWD returns the directory name in the text of a 257 reply. RFC 959
// appendix II: the name comes first, in double quotes, and a double quote
// inside it is doubled ("/a""b" is /a"b); commentary follows. The name is
// taken as the server wrote it, in whatever syntax its system uses: VMS
// answers "DISK$USER:[ANONYMOUS]", and a CWD to exactly that text is how
// to come back to it. Some old servers send the name without quotes
// ("257 /home/ftp is the current directory"): then it is the first word.
func parsePWD(msg string) (string, bool) {
	open := strings.IndexByte(msg, '"')
	if open < 0 {
		word, _, _ := strings.Cut(strings.TrimSpace(msg), " ")
		return word, word != ""
	}
	var b strings.Builder
	for i := open + 1; i < len(msg); i++ {
		if msg[i] != '"' {
			b.WriteByte(msg[i])
			continue
		}
		if i+1 < len(msg) && msg[i+1] == '"' {
			b.WriteByte('"')
			i++
			continue
		}
		return b.String(), b.Len() > 0
	}
	return "", false // no closing quote
}

// Aliases of proto's typed methods and TLS modes, under this package's
// names, for callers that still use them.
const (
	// Deprecated: Use [proto.MethodMultiCWD] in Options.FTP.Method.
	MethodMultiCWD = proto.MethodMultiCWD
	// Deprecated: Use [proto.MethodSingleCWD] in Options.FTP.Method.
	MethodSingleCWD = proto.MethodSingleCWD
	// Deprecated: Use [proto.MethodNoCWD] in Options.FTP.Method.
	MethodNoCWD = proto.MethodNoCWD
	// Deprecated: Use [proto.TLSTry] in Options.FTP.TLS.
	TLSTry = proto.TLSTry
	// Deprecated: Use [proto.TLSRequire] in Options.FTP.TLS.
	TLSRequire = proto.TLSRequire
)
