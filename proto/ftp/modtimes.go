package ftp

import (
	"context"
	"fmt"
	"net/textproto"
	"slices"
	"strings"
	"time"

	"github.com/rfc1738/fetch/internal/termtext"
	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/uri"
)

// mdtmBatch bounds the MDTM commands written at once, by count and by
// bytes: the client writes a batch before it reads a reply, and a server
// that answers while the client still writes must never have both
// directions' buffers full, each side waiting for the other to read.
const (
	mdtmBatch      = 64
	mdtmBatchBytes = 16 << 10
)

// ModTimes asks MDTM (RFC 3659 section 3) for each of names, files of
// the directory dir names, on one control connection: the commands go
// out together, in one write (up to 64 of them, or 16 KiB), and the
// replies are read in the order of the commands (RFC 959 section 4.2:
// each command has its reply, and replies come in order). A mirror
// checks the files of a directory whose listing cannot tell a change
// this way, for one round trip instead of one per file.
//
// times[i] is the time of names[i] in UTC, zero where the server refused
// MDTM (550) or gave a time that is not a time-val. A server whose FEAT
// does not list MDTM gets no command, and every time is zero. An error
// means the connection failed (or the server answered out of protocol),
// and no time is given. Request.Options used: as for Fetch (login, TLS,
// FTP.Method). ModTimes is safe for concurrent use.
func (d *Driver) ModTimes(ctx context.Context, dir *uri.URL, req *proto.Request, names []string) ([]time.Time, error) {
	if len(names) == 0 {
		return nil, nil
	}
	if req == nil {
		req = &proto.Request{}
	}
	p, err := dir.FTP()
	if err != nil {
		return nil, err
	}
	if p.Name != "" {
		p.CWD = append(p.CWD, p.Name)
	}
	args := make([]string, len(names))
	var pl plan
	for i, name := range names {
		fp := uri.FTPPath{CWD: p.CWD, Name: name, Type: "i"}
		if pl, err = makePlan(&fp, req); err != nil {
			return nil, err
		}
		args[i] = pl.arg
	}
	times := make([]time.Time, len(names))
	_, err = d.do(ctx, dir, p.CWD, req, func(c *conn) (*proto.Response, error) {
		defer d.release(c)
		if err := c.checkIAC(append(slices.Clip(pl.cwd), args...)...); err != nil {
			return nil, err
		}
		if _, err := c.enter(pl); err != nil {
			return nil, err
		}
		return nil, c.mdtmEach(args, times)
	})
	if err != nil {
		return nil, err
	}
	return times, nil
}

// mdtmEach sends MDTM for each of args, in batches of commands written
// at once, and puts the time of each reply into times.
func (c *conn) mdtmEach(args []string, times []time.Time) error {
	if !c.feat.has("MDTM") {
		return nil
	}
	for start := 0; start < len(args); {
		end, size := start, 0
		for end < len(args) && end-start < mdtmBatch && (end == start || size+len(args[end]) <= mdtmBatchBytes) {
			size += len("MDTM \r\n") + len(args[end])
			end++
		}
		batch := args[start:end]
		if err := c.send("MDTM " + strings.Join(batch, "\r\nMDTM ")); err != nil {
			c.dead = true
			return c.fail(displayCmd("MDTM", batch[0]), err)
		}
		for i, a := range batch {
			t, err := c.mdtmReply()
			if err != nil {
				// Replies to the batch are still owed: the
				// connection cannot serve another command.
				c.dead = true
				return c.fail(displayCmd("MDTM", a), err)
			}
			times[start+i] = t
		}
		start = end
	}
	return nil
}

// mdtmReply reads the reply to one MDTM of mdtmEach: 213 and a time-val
// (RFC 3659 section 3.1), or a refusal (the time unknown). 421, or a reply
// no MDTM can have, is an error: the replies would no longer match the
// commands.
func (c *conn) mdtmReply() (time.Time, error) {
	code, msg, err := c.reply(0)
	switch {
	case err != nil:
		return time.Time{}, err
	case code == StatusFile:
		t, _ := parseMLSDTime(strings.TrimSpace(msg))
		return t, nil
	case code == StatusNotAvailable:
		return time.Time{}, &textproto.Error{Code: code, Msg: msg}
	case code >= 400:
		return time.Time{}, nil
	}
	return time.Time{}, &proto.ProtocolError{Proto: "ftp", Msg: fmt.Sprintf("MDTM answered %d %s", code, termtext.Escape(msg, 80))}
}
