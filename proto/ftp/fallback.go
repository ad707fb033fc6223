package ftp

import (
	"errors"
	"strings"
	"time"

	"github.com/rfc1738/fetch/proto"
)

// maxProbes bounds how many names of one directory the NLST fallback
// probes; the names beyond it are listed with an unknown type.
const maxProbes = 2000

// nlstFallback lists the directory c is in with NLST, when not one line
// of its LIST answer fits a known layout, and learns what each name is:
// a CWD into it that succeeds makes it a directory (and the connection
// goes back at once), unless PWD then names a directory that is not below
// this one (a symbolic link, maybe to an ancestor: such an entry is of
// type other, with Extra["pwd"]); a CWD that is refused makes it a file,
// whose size and time SIZE and MDTM give when the server answers them.
// Everything runs on c, one command at a time, at most maxProbes names.
//
// It returns nil entries, and no error, when NLST is refused or names
// nothing: the caller reports the LIST lines as unparsed, as without the
// fallback. An error is a failed connection, or a directory that could
// not be returned to.
func (d *Driver) nlstFallback(c *conn, pl plan) ([]proto.Entry, error) {
	c.w.note("no line of the LIST answer fits a known layout: names from NLST, each probed with CWD, SIZE and MDTM")
	c.cap = &capture{max: d.listingCap(c)}
	err := errNoPipeline
	if d.PipelinePassive && !c.noPipeline {
		err = c.pipelinedList("NLST", "")
	}
	if errors.Is(err, errNoPipeline) {
		_, err = c.sc.NameList("")
	}
	raw := c.cap.text().String()
	c.cap = nil
	if err != nil {
		if replyCode(err) != 0 {
			c.w.note("NLST refused (%v): no fallback", err)
			return nil, nil
		}
		return nil, c.fail("", err)
	}
	var entries []proto.Entry
	// The listed directory's own name, to come back to after each CWD
	// that succeeds (a CDUP would go to the parent of wherever a
	// symbolic link led).
	if _, err := c.sc.CurrentDir(); err != nil && replyCode(err) == 0 && isConnError(err) {
		return nil, c.fail("", err)
	}
	back := loginDir(c.w.last)
	probed := 0
	for _, name := range splitText(raw) {
		if name == "." || name == ".." {
			continue
		}
		e := proto.Entry{Name: name, Type: proto.EntryOther, Size: -1}
		if probed >= maxProbes || proto.CheckArg(name) != nil {
			entries = append(entries, e)
			continue
		}
		probed++
		if err := c.ctxErr(); err != nil {
			return nil, err
		}
		if err := c.checkIAC(name); err != nil {
			return nil, err
		}
		err := c.sc.ChangeDir(name)
		switch {
		case err == nil:
			c.moved, c.atKnown = true, false
			e.Type = proto.EntryDir
			if back != "" {
				// A symbolic link to the directory or above it would
				// be walked without end: only a directory whose PWD is
				// below this one's is one.
				if _, err := c.sc.CurrentDir(); err != nil && replyCode(err) == 0 && isConnError(err) {
					return nil, c.fail("", err)
				}
				if here := loginDir(c.w.last); here != "" && !below(here, back) {
					c.w.note("%s leads to %s, not below %s: not followed", name, here, back)
					e.Type, e.Extra = proto.EntryOther, map[string]string{"pwd": here}
				}
			}
			if err := c.returnTo(pl, back); err != nil {
				return nil, err
			}
		case replyCode(err) == 0:
			return nil, c.fail("", err)
		default:
			e.Type = proto.EntryFile
			if e.Size, e.ModTime, err = c.probeFile(name); err != nil {
				return nil, err
			}
		}
		entries = append(entries, e)
	}
	if probed == maxProbes {
		c.w.note("NLST fallback: only the first %d names were probed", maxProbes)
	}
	if len(entries) == 0 {
		return nil, nil
	}
	return entries, nil
}

// returnTo brings c back into the directory of pl after a CWD into one of
// its members: an absolute CWD to back, the directory's name from PWD; or,
// without it, through the login directory and pl's CWD list as for a new
// URL (enter); or, with no login directory either, CDUP.
func (c *conn) returnTo(pl plan, back string) error {
	var err error
	switch {
	case back != "":
		err = c.sc.ChangeDir(back)
	case c.pwd != "":
		_, err = c.enter(pl)
		return err
	default:
		err = c.sc.ChangeDirToParent()
	}
	if err != nil {
		return c.fail("", err)
	}
	c.at, c.atKnown = pl.cwd, true
	return nil
}

// probeFile asks SIZE and, when FEAT offers it, MDTM for a name the NLST
// fallback found to be no directory. A refusal leaves the value unknown;
// only a failed connection is an error.
func (c *conn) probeFile(name string) (int64, time.Time, error) {
	size, mtime := int64(-1), time.Time{}
	n, err := c.sc.FileSize(name)
	switch {
	case err == nil && n >= 0:
		size = n
	case err != nil && replyCode(err) == 0 && isConnError(err):
		return -1, mtime, c.fail("", err)
	}
	if c.sc.IsGetTimeSupported() {
		t, err := c.sc.GetTime(name)
		switch {
		case err == nil:
			mtime = t
		case replyCode(err) == 0 && isConnError(err):
			return -1, mtime, c.fail("", err)
		}
	}
	return size, mtime, nil
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
