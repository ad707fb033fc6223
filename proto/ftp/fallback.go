package ftp

import (
	"net/textproto"
	"strings"

	"github.com/rfc1738/fetch/proto"
)

// maxProbes bounds how many names of one directory the NLST fallback
// probes; the names beyond it are listed with an unknown type.
const maxProbes = 2000

// nlstFallback lists the directory c is in with NLST, when not one line
// of its LIST answer fits a known layout, and probes what each name is
// (probeName), one command at a time, at most maxProbes names. It returns
// nil entries, and no error, when NLST is refused or names nothing: the
// LIST lines are then reported as unparsed. An error is a failed
// connection, or a directory that could not be returned to.
func (d *Driver) nlstFallback(c *conn, pl plan) ([]proto.Entry, error) {
	c.w.note("no line of the LIST answer fits a known layout: names from NLST, each probed with CWD, SIZE and MDTM")
	raw, err := d.fallbackNames(c)
	if err != nil || raw == nil {
		return nil, err
	}
	var entries []proto.Entry
	back, err := c.pwdName() // to come back to (returnTo)
	if err != nil {
		return nil, err
	}
	probed := 0
	for _, name := range raw {
		if name == "." || name == ".." {
			continue
		}
		e := proto.Entry{Name: name, Type: proto.EntryOther, Size: -1}
		if probed < maxProbes && proto.CheckArg(name) == nil {
			probed++
			if err := c.probeName(pl, &e, back); err != nil {
				return nil, err
			}
		}
		entries = append(entries, e)
	}
	if probed == maxProbes {
		c.w.note("NLST fallback: only the first %d names were probed", maxProbes)
	}
	return entries, nil // nil for none
}

// fallbackNames lists the directory c is in with NLST (dirList.once: in
// active, pipelined or plain passive mode, as any listing). A refused
// NLST returns nil names and no error (an empty listing, an empty
// slice); an error is a failed connection.
func (d *Driver) fallbackNames(c *conn) ([]string, error) {
	l := &dirList{d: d, c: c, verb: "NLST", format: formatNLST, cap: d.listingCap(c)}
	raw, err := l.once()
	if err != nil {
		if replyCode(err) != 0 {
			c.w.note("NLST refused (%v): no fallback", err)
			return nil, nil
		}
		return nil, c.fail("", err)
	}
	return splitText(raw.String()), nil // never nil
}

// pwdName asks PWD and returns the directory it names, "" when it names
// none; only a failed connection is an error.
func (c *conn) pwdName() (string, error) {
	if err := c.send("PWD"); err != nil {
		return "", c.fail("PWD", err)
	}
	return c.pwdReply()
}

// pwdReply reads the reply to PWD.
func (c *conn) pwdReply() (string, error) {
	code, msg, err := c.reply(0)
	if err != nil {
		return "", c.fail("PWD", err)
	}
	return loginDir(&textproto.Error{Code: code, Msg: msg}), nil
}

// probeName learns the type of e, a name of the directory of pl, by a
// CWD into it: a directory (probeDir), after which c goes back; a file,
// when the CWD is refused, with its size and time (fileFacts).
func (c *conn) probeName(pl plan, e *proto.Entry, back string) error {
	if err := c.ctxErr(); err != nil {
		return err
	}
	if err := c.checkIAC(e.Name); err != nil {
		return err
	}
	err := c.chdir(e.Name)
	switch {
	case err == nil:
		c.moved, c.atKnown = true, false
		if err := c.probeDir(e, back); err != nil {
			return err
		}
		return c.returnTo(pl, back)
	case replyCode(err) == 0:
		return c.fail("", err)
	}
	e.Type = proto.EntryFile
	e.Size, e.ModTime, err = c.fileFacts(e.Name, true, true)
	return err
}

// probeDir types e, into which a CWD has just succeeded, as a directory,
// unless PWD then names one not below back: a symbolic link to the
// directory or above it would be walked without end, so such an entry
// is of type other, with Extra["pwd"].
func (c *conn) probeDir(e *proto.Entry, back string) error {
	e.Type = proto.EntryDir
	if back == "" {
		return nil
	}
	here, err := c.pwdName()
	if err != nil {
		return err
	}
	if here != "" && !below(here, back) {
		c.w.note("%s leads to %s, not below %s: not followed", e.Name, here, back)
		e.Type, e.Extra = proto.EntryOther, map[string]string{"pwd": here}
	}
	return nil
}

// returnTo brings c back into the directory of pl after a CWD into one of
// its members: a CWD to back (a CDUP would go to the parent of wherever a
// symbolic link led); without it, through the login directory (enter);
// with neither, CDUP.
func (c *conn) returnTo(pl plan, back string) error {
	var err error
	switch {
	case back != "":
		err = c.chdir(back)
	case c.pwd != "":
		_, err = c.enter(pl)
		return err
	default:
		err = c.cdup()
	}
	if err != nil {
		return c.fail("", err)
	}
	c.at, c.atKnown = pl.cwd, true
	return nil
}

// below reports whether the directory named dir by PWD lies below parent:
// "/pub/sub" below "/pub" (or "/"), and in VMS syntax
// "DISK$USER:[ANONYMOUS.SUB]" below "DISK$USER:[ANONYMOUS]".
func below(dir, parent string) bool {
	if dir == parent {
		return false
	}
	if base, ok := strings.CutSuffix(parent, "]"); ok && strings.Contains(parent, "[") {
		return strings.HasPrefix(dir, base+".")
	}
	return strings.HasPrefix(dir, strings.TrimSuffix(parent, "/")+"/")
}
