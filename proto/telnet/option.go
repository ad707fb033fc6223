package telnet

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
)

// Telnet commands (RFC 854, "TELNET COMMAND STRUCTURE").
const (
	cmdSE   = 240 // end of subnegotiation
	cmdNOP  = 241 // no operation
	cmdDM   = 242 // data mark (the data part of a Synch)
	cmdBRK  = 243 // break
	cmdIP   = 244 // interrupt process
	cmdAO   = 245 // abort output
	cmdAYT  = 246 // are you there
	cmdEC   = 247 // erase character
	cmdEL   = 248 // erase line
	cmdGA   = 249 // go ahead
	cmdSB   = 250 // begin subnegotiation
	cmdWILL = 251
	cmdWONT = 252
	cmdDO   = 253
	cmdDONT = 254
	cmdIAC  = 255 // interpret as command
)

// Telnet options this client knows.
const (
	optBinary = 0  // RFC 856
	optEcho   = 1  // RFC 857
	optSGA    = 3  // RFC 858, suppress go ahead
	optTTYPE  = 24 // RFC 1091, terminal type
	optNAWS   = 31 // RFC 1073, negotiate about window size
)

// Terminal-type subnegotiation qualifiers (RFC 1091).
const (
	ttypeIS   = 0
	ttypeSEND = 1
)

// maxSubneg bounds the bytes kept of one subnegotiation; the rest is
// dropped, so a hostile peer cannot grow memory without end.
const maxSubneg = 512

// maxTermType is the longest terminal type name RFC 1091 allows.
const maxTermType = 40

var cmdNames = map[byte]string{
	cmdSE: "SE", cmdNOP: "NOP", cmdDM: "DM", cmdBRK: "BRK", cmdIP: "IP",
	cmdAO: "AO", cmdAYT: "AYT", cmdEC: "EC", cmdEL: "EL", cmdGA: "GA",
	cmdSB: "SB", cmdWILL: "WILL", cmdWONT: "WONT", cmdDO: "DO", cmdDONT: "DONT",
	cmdIAC: "IAC",
}

// optNames names options in the trace (the ones this client uses, and the
// others telnetd offers, from the IANA telnet options registry).
var optNames = map[byte]string{
	optBinary: "BINARY", optEcho: "ECHO", optSGA: "SGA", 5: "STATUS", 6: "TIMING-MARK",
	optTTYPE: "TTYPE", optNAWS: "NAWS", 32: "TSPEED", 33: "LFLOW", 34: "LINEMODE",
	35: "XDISPLOC", 36: "ENVIRON", 37: "AUTHENTICATION", 38: "ENCRYPT", 39: "NEW-ENVIRON",
}

func optName(o byte) string {
	if s, ok := optNames[o]; ok {
		return s
	}
	return fmt.Sprintf("OPTION-%d", o)
}

// Parser states of optionConn.
const (
	stData  = iota
	stIAC   // after IAC
	stOpt   // after IAC WILL/WONT/DO/DONT
	stSBOpt // after IAC SB
	stSB    // inside a subnegotiation
	stSBIAC // IAC inside a subnegotiation
)

// optionConn is this package's telnet protocol layer (RFC 854, RFC 855). It
// sits between the raw connection and github.com/ziutek/telnet's Conn and
// takes every command out of the stream before that library sees it:
//
//   - WILL, WONT, DO and DONT are answered here, following RFC 854's rule
//     that a request for a mode already in force is not acknowledged, so
//     negotiation cannot loop. The client agrees to SGA, NAWS and (when it
//     has a terminal type) TTYPE on its side, and to ECHO and SGA on the
//     server's side; everything else is refused.
//   - NAWS is sent well formed (RFC 1073): IAC SB NAWS width16 height16 IAC
//     SE, with any 255 byte doubled.
//   - TTYPE SEND is answered with IAC SB TTYPE IS name IAC SE (RFC 1091).
//   - NOP, DM, GA, BRK, IP, AO, AYT, EC, EL and stray SE are dropped.
//   - CR NUL becomes CR (RFC 854: NUL after a bare CR is padding).
//
// What is left is data in which a 255 byte is still written IAC IAC, for
// ziutek to undo (see the package documentation for why the rest is done
// here).
//
// Read must be called from one goroutine at a time; setSize and the
// negotiation replies written by Read are serialised by mu. Writes of data
// go straight to the embedded connection, whose Write is safe for
// concurrent use and writes each call's bytes contiguously.
type optionConn struct {
	net.Conn

	termType string    // sent in TTYPE IS; empty refuses TTYPE
	trace    io.Writer // negotiation transcript; nil for none
	// persistent keeps Read waiting through idle timeouts: an interactive
	// session may be silent for as long as the person likes.
	persistent bool

	traceMu sync.Mutex // serialises trace lines

	mu     sync.Mutex
	us     [256]bool // options in force on our side
	him    [256]bool // options in force on the server's side
	width  int
	height int

	// Used only by Read.
	state   int
	verb    byte
	sbOpt   byte
	sb      []byte
	afterCR bool
	raw     []byte
	out     []byte
}

func newOptionConn(c net.Conn, termType string, trace io.Writer) *optionConn {
	if !validTermType(termType) {
		termType = ""
	}
	return &optionConn{Conn: c, termType: termType, trace: trace, raw: make([]byte, 4096)}
}

// validTermType reports whether s can be sent as a terminal type: 1 to 40
// printable ASCII characters (RFC 1091).
func validTermType(s string) bool {
	if s == "" || len(s) > maxTermType {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// Read returns the data the server sent, with every telnet command but
// IAC IAC taken out and answered.
func (c *optionConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(c.out) == 0 {
		n, err := c.Conn.Read(c.raw)
		if ferr := c.filter(c.raw[:n]); ferr != nil {
			return 0, ferr
		}
		if err != nil {
			if len(c.out) > 0 {
				break // deliver what came with the error first
			}
			var ne net.Error
			if c.persistent && errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return 0, err
		}
	}
	n := copy(p, c.out)
	c.out = c.out[n:]
	if len(c.out) == 0 {
		c.out = c.out[:0:0]
	}
	return n, nil
}

// filter runs the parser over b, appending data to c.out and answering
// commands.
func (c *optionConn) filter(b []byte) error {
	for _, x := range b {
		switch c.state {
		case stData:
			switch {
			case x == cmdIAC:
				c.state = stIAC
			case x == 0 && c.afterCR:
				// CR NUL is a bare CR. BINARY, where NUL would be data,
				// is never agreed to.
				c.afterCR = false
			default:
				c.out = append(c.out, x)
				c.afterCR = x == '\r'
			}
		case stIAC:
			c.command(x)
		case stOpt:
			c.state = stData
			if err := c.negotiate(c.verb, x); err != nil {
				return err
			}
		case stSBOpt:
			c.sbOpt, c.sb, c.state = x, c.sb[:0], stSB
		case stSB:
			if x == cmdIAC {
				c.state = stSBIAC
			} else if len(c.sb) < maxSubneg {
				c.sb = append(c.sb, x)
			}
		case stSBIAC:
			switch x {
			case cmdSE:
				c.state = stData
				if err := c.subnegotiation(c.sbOpt, c.sb); err != nil {
					return err
				}
			case cmdIAC:
				c.state = stSB
				if len(c.sb) < maxSubneg {
					c.sb = append(c.sb, cmdIAC)
				}
			default:
				// IAC followed by a command inside SB: the subnegotiation
				// was not terminated. Drop it and take the command.
				c.tracef("< SB %s (unterminated)", optName(c.sbOpt))
				c.command(x)
			}
		}
	}
	return nil
}

// command handles the byte after IAC.
func (c *optionConn) command(x byte) {
	c.state = stData
	switch x {
	case cmdIAC:
		c.out = append(c.out, cmdIAC, cmdIAC) // escaped 255: ziutek unescapes it
		c.afterCR = false
	case cmdWILL, cmdWONT, cmdDO, cmdDONT:
		c.verb, c.state = x, stOpt
	case cmdSB:
		c.state = stSBOpt
	default:
		// NOP, DM, GA, BRK, IP, AO, AYT, EC, EL, a stray SE, or a byte
		// that is no command: nothing for a client to do.
		if name, ok := cmdNames[x]; ok {
			c.tracef("< %s", name)
		} else {
			c.tracef("< IAC %d", x)
		}
	}
}

// localOK reports whether we agree to enable option o on our side.
func (c *optionConn) localOK(o byte) bool {
	switch o {
	case optSGA, optNAWS:
		return true
	case optTTYPE:
		return c.termType != ""
	}
	return false
}

// remoteOK reports whether we agree that the server enables option o.
func remoteOK(o byte) bool { return o == optEcho || o == optSGA }

// negotiate answers IAC verb opt: DO and DONT about our side, WILL and
// WONT about the server's. A request for the mode already in force is not
// answered (RFC 854), so that negotiation cannot loop.
func (c *optionConn) negotiate(verb, opt byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tracef("< %s %s", cmdNames[verb], optName(opt))
	inForce, agree, yes, no := &c.us, c.localOK(opt), byte(cmdWILL), byte(cmdWONT)
	if verb == cmdWILL || verb == cmdWONT {
		inForce, agree, yes, no = &c.him, remoteOK(opt), cmdDO, cmdDONT
	}
	enable := verb == cmdDO || verb == cmdWILL
	switch {
	case inForce[opt] == enable:
		return nil
	case !enable || !agree:
		inForce[opt] = false
		return c.send(no, opt)
	}
	inForce[opt] = true
	if err := c.send(yes, opt); err != nil {
		return err
	}
	if verb == cmdDO && opt == optNAWS {
		return c.sendNAWS()
	}
	return nil
}

// subnegotiation answers IAC SB opt data IAC SE.
func (c *optionConn) subnegotiation(opt byte, data []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if opt == optTTYPE && len(data) == 1 && data[0] == ttypeSEND {
		c.tracef("< SB TTYPE SEND")
		if !c.us[optTTYPE] {
			return nil
		}
		msg := []byte{cmdIAC, cmdSB, optTTYPE, ttypeIS}
		msg = append(msg, c.termType...) // printable ASCII: nothing to double
		msg = append(msg, cmdIAC, cmdSE)
		c.tracef("> SB TTYPE IS %s", c.termType)
		return c.write(msg)
	}
	c.tracef("< SB %s (%d bytes)", optName(opt), len(data))
	return nil
}

// setSize records the window size and, when NAWS is in force, tells the
// server.
func (c *optionConn) setSize(width, height int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if width == c.width && height == c.height {
		return nil
	}
	c.width, c.height = width, height
	if !c.us[optNAWS] {
		return nil
	}
	return c.sendNAWS()
}

// remoteEcho reports whether the server echoes what we send.
func (c *optionConn) remoteEcho() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.him[optEcho]
}

// sendNAWS writes the window size subnegotiation. c.mu is held.
func (c *optionConn) sendNAWS() error {
	c.tracef("> SB NAWS %d %d", clamp16(c.width), clamp16(c.height))
	return c.write(nawsMessage(c.width, c.height))
}

// nawsMessage returns IAC SB NAWS w16 h16 IAC SE, big-endian, with 255
// doubled (RFC 1073). Sizes outside 0..65535 are clamped; 0 means unknown.
func nawsMessage(width, height int) []byte {
	w, h := clamp16(width), clamp16(height)
	msg := []byte{cmdIAC, cmdSB, optNAWS}
	for _, b := range []byte{byte(w >> 8), byte(w), byte(h >> 8), byte(h)} {
		msg = append(msg, b)
		if b == cmdIAC {
			msg = append(msg, cmdIAC)
		}
	}
	return append(msg, cmdIAC, cmdSE)
}

func clamp16(n int) int { return max(0, min(n, 0xffff)) }

// send writes IAC verb opt. c.mu is held.
func (c *optionConn) send(verb, opt byte) error {
	c.tracef("> %s %s", cmdNames[verb], optName(opt))
	return c.write([]byte{cmdIAC, verb, opt})
}

func (c *optionConn) write(msg []byte) error {
	_, err := c.Conn.Write(msg)
	return err
}

func (c *optionConn) tracef(format string, args ...any) {
	if c.trace == nil {
		return
	}
	line := fmt.Sprintf(format, args...)
	if !strings.HasSuffix(line, "\n") {
		line += "\n"
	}
	c.traceMu.Lock()
	defer c.traceMu.Unlock()
	io.WriteString(c.trace, line)
}
