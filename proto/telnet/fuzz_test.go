package telnet

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// scriptConn is a net.Conn that reads from a script in fixed-size chunks
// and records each Write as one message.
type scriptConn struct {
	net.Conn // nil: only Read and Write are used
	in       []byte
	chunk    int
	msgs     [][]byte
}

func (c *scriptConn) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.in)
	c.in = c.in[n:]
	return n, nil
}

func (c *scriptConn) Write(p []byte) (int, error) {
	c.msgs = append(c.msgs, bytes.Clone(p))
	return len(p), nil
}

// runFilter feeds in through an optionConn in chunks of chunk bytes and
// returns the data and the replies.
func runFilter(in []byte, chunk int) (data []byte, replies [][]byte, err error) {
	sc := &scriptConn{in: in, chunk: chunk}
	oc := newOptionConn(sc, "xterm", nil)
	oc.setSize(80, 24)
	data, err = io.ReadAll(oc)
	return data, sc.msgs, err
}

// FuzzOptionFilter checks the telnet stream parser (RFC 854/855) on any
// input: it never panics; the data keeps 255 only as IAC IAC pairs (what
// ziutek's Read expects) and is never longer than the input; every reply is
// a well-formed command (IAC verb option, or IAC SB ... IAC SE); there is
// at most one reply message per command received (plus NAWS after WILL
// NAWS), so negotiation cannot loop; and the result does not depend on how
// the input is split into reads.
func FuzzOptionFilter(f *testing.F) {
	seeds := [][]byte{
		nil,
		[]byte("plain text\r\n"),
		cat([]byte("a"), iac(cmdNOP), []byte("b"), iac(cmdDM), []byte("c")), // NOP and DM mid-stream
		cat(iac(cmdDO, optTTYPE), iac(cmdDO, optNAWS), iac(cmdWILL, optEcho), iac(cmdWILL, optSGA)),
		cat(iac(cmdSB, optTTYPE, ttypeSEND, cmdIAC, cmdSE)),
		cat(iac(cmdSB, optNAWS, cmdIAC, cmdIAC, 1), iac(cmdNOP)), // unterminated SB
		cat([]byte("\r\x00\r\n"), iac(cmdIAC), iac(cmdIAC, cmdIAC)),
		{cmdIAC},
		{cmdIAC, cmdSB},
		cat(iac(cmdDO, optNAWS), iac(cmdDONT, optNAWS), iac(cmdDO, optNAWS)),
	}
	for _, s := range seeds {
		f.Add(s, uint8(1))
		f.Add(s, uint8(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		data, replies, err := runFilter(in, int(chunk)%16+1)
		if err != nil {
			t.Fatalf("ReadAll = %v", err)
		}
		if len(data) > len(in) {
			t.Errorf("data is %d bytes, longer than the %d input bytes", len(data), len(in))
		}
		for i := 0; i < len(data); i++ {
			if data[i] == cmdIAC {
				if i+1 >= len(data) || data[i+1] != cmdIAC {
					t.Fatalf("data % x has a lone IAC at %d", data, i)
				}
				i++
			}
		}
		commands := bytes.Count(in, []byte{cmdIAC})
		if len(replies) > 2*commands {
			t.Errorf("%d replies to at most %d commands", len(replies), commands)
		}
		for _, r := range replies {
			if !wellFormed(r) {
				t.Errorf("malformed reply % x", r)
			}
		}
		whole, wholeReplies, _ := runFilter(in, len(in)+1)
		if !bytes.Equal(whole, data) {
			t.Errorf("data depends on read size: % x vs % x", data, whole)
		}
		if !bytes.Equal(bytes.Join(wholeReplies, nil), bytes.Join(replies, nil)) {
			t.Errorf("replies depend on read size")
		}
	})
}

// wellFormed reports whether msg is IAC WILL/WONT/DO/DONT option or
// IAC SB option ... IAC SE with every 255 inside doubled.
func wellFormed(msg []byte) bool {
	if len(msg) == 3 && msg[0] == cmdIAC && msg[1] >= cmdWILL && msg[1] <= cmdDONT {
		return true
	}
	if len(msg) < 5 || msg[0] != cmdIAC || msg[1] != cmdSB ||
		msg[len(msg)-2] != cmdIAC || msg[len(msg)-1] != cmdSE {
		return false
	}
	body := msg[3 : len(msg)-2]
	for i := 0; i < len(body); i++ {
		if body[i] == cmdIAC {
			if i+1 >= len(body) || body[i+1] != cmdIAC {
				return false
			}
			i++
		}
	}
	return true
}
