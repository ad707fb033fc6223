package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/proto/ftp"
	"github.com/rfc1738/fetch/uri"
)

// An FTP file fetched without a typecode is text or binary by its name
// (RFC 1738 section 3.2.2 leaves the guess to the client; proto/ftp's
// table): text comes in TYPE A with its line ends converted, and then
// has neither the server's bytes nor its length. The command says so on
// stderr (noteConverted), --binary turns the guess off, and a .part
// records the type its bytes were written in, in a one-line file beside
// it (FILE.part.type: "A" or "I"), so that a resume never appends bytes
// of one type to bytes of the other, nor sends REST at an offset counted
// in converted text.
//
// A file beside the .part rather than an extended attribute or a header
// inside it: it works on every file system and system (Windows, FAT, a
// tmpfs without user xattrs), survives a plain cp, and the .part itself
// stays the exact prefix of the file.
const partTypeSuffix = ".type"

// noteConverted says, unless -s, that resp's data was converted as text
// because of its name.
func (o *getOptions) noteConverted(e *env, red *redactor, resp *fetch.Response) {
	typ, guessed := ftp.TypeOf(&resp.Response)
	if o.silent || !guessed || typ != "A" {
		return
	}
	fmt.Fprintln(e.err, red.redact(fmt.Sprintf("fetch: note: %s: text by its name: TYPE A, line ends converted; --binary keeps the bytes", resp.URL.Redacted())))
}

// readPartType returns the type recorded for the .part file part: "A",
// "I", or "" when none is; and the size of the remote file it was written
// from, or -1 when none is recorded.
func readPartType(part string) (string, int64) {
	b, err := os.ReadFile(part + partTypeSuffix)
	if err != nil || len(b) > 64 {
		return "", -1
	}
	t, size, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	n, err := strconv.ParseInt(size, 10, 64)
	if err != nil {
		n = -1
	}
	if t != "A" && t != "I" {
		return "", n
	}
	return t, n
}

// writePartType records the type of resp's data, and the size of the
// remote file, for the .part file part, or removes the record when resp
// is not FTP data.
func writePartType(part string, resp *fetch.Response) error {
	t, _ := ftp.TypeOf(&resp.Response)
	if t != "A" && t != "I" {
		if err := os.Remove(part + partTypeSuffix); err != nil && !os.IsNotExist(err) {
			return err
		}
		return nil
	}
	if resp.Size >= 0 {
		t += " " + strconv.FormatInt(resp.Size, 10)
	}
	return os.WriteFile(part+partTypeSuffix, []byte(t+"\n"), 0o644)
}

// restartReason says why the FTP file of u cannot be resumed from the
// .part file part, or "" when it can. A resumed retrieval is always TYPE
// I (a REST offset counts stored bytes), so the .part must hold stored
// bytes: recorded as "I", or, with no record, of a name that would not
// have been converted.
func (o *getOptions) restartReason(u *uri.URL, part string) string {
	p, err := u.FTP()
	if err != nil {
		return ""
	}
	if p.Type == "a" {
		return ";type=a is converted text, which cannot be resumed (a REST offset counts stored bytes)"
	}
	switch t, _ := readPartType(part); t {
	case "A":
		return "it holds text converted in TYPE A, which cannot be resumed (a REST offset counts stored bytes)"
	case "":
		if p.Type == "" && !o.binary && ftp.GuessType(p.Name) == "A" {
			return "it does not record its transfer type, and the name is text (TYPE A)"
		}
	}
	return ""
}

// checkResume makes d start from byte 0 when its .part cannot be resumed
// (restartReason), saying so unless -s.
func (o *getOptions) checkResume(e *env, u *uri.URL, d *dest) {
	if !d.resume || d.offset <= 0 || d.path == "" {
		return
	}
	part := d.path + partSuffix
	if why := o.restartReason(u, part); why != "" {
		if !o.silent {
			fmt.Fprintf(e.err, "fetch: note: %s: not resuming %s: %s; fetching the whole file again\n", u.Redacted(), part, why)
		}
		d.offset = 0
	}
}
