package ftp

import (
	"strings"

	"github.com/rfc1738/fetch/internal/termtext"
)

// statusSystemType is the reply to SYST (RFC 959 section 4.1.3 and 4.2:
// "215 NAME system type", where NAME is a system name from the Assigned
// Numbers document, "UNIX Type: L8", "VMS V5.5", "Windows_NT").
const statusSystemType = 215

// askSYST sends SYST once on c, before its first LIST: the system it
// names helps tell apart the layouts of LIST (list.go). A connection that
// only retrieves files, or lists with MLSD or NLST, never pays for it.
func (c *conn) askSYST() error {
	if c.systAsked {
		return nil
	}
	c.systAsked = true
	if err := c.send("SYST"); err != nil {
		return c.fail("SYST", err)
	}
	return c.systReply()
}

// systReply reads the reply to SYST: a 215 names the system (c.syst); a
// refusal, or another reply, leaves it empty and is not an error; only a
// failed connection is.
func (c *conn) systReply() error {
	code, msg, err := c.reply(2)
	switch {
	case err == nil && code == statusSystemType:
		line, _, _ := strings.Cut(msg, "\n")
		c.syst = strings.TrimSpace(termtext.Escape(line, 200))
	case err == nil || replyCode(err) != 0:
		c.w.note("SYST gave no system type: the listing's layout is told from its lines alone")
	default:
		return c.fail("SYST", err)
	}
	return nil
}
