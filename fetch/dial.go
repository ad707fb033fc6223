package fetch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"

	"golang.org/x/net/idna"

	"github.com/rfc1738/fetch/proto"
)

// Resolver looks up the addresses of a host name. *net.Resolver
// implements it.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// dialer is the proto.DialFunc the client gives every driver: it
// resolves the host (internationalised names in their ASCII form), checks
// each address against the policy and the private-address guard h of a
// redirect hop (nil: none), and connects to the first one that works. An
// address refused is never connected to.
func (c *Client) dialer(h *privateHop) proto.DialFunc {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		return c.dial(ctx, network, address, h)
	}
}

func (c *Client) dial(ctx context.Context, network, address string, h *privateHop) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	ips, err := c.lookup(ctx, network, host)
	if err != nil {
		return nil, err
	}
	var first error
	for _, ip := range ips {
		addr := net.JoinHostPort(ip.String(), port)
		conn, err := c.dialAddr(ctx, network, addr, h)
		if err == nil {
			if c.WARC != nil {
				c.WARC.NoteAddress(address, ip.String())
			}
			return conn, nil
		}
		de := &dialError{err: err}
		if ip.String() != host {
			de.addr = addr
		}
		first = cmp.Or(first, error(de))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// dialAddr connects to one resolved address, after the policy and the
// guard h allowed it.
func (c *Client) dialAddr(ctx context.Context, network, addr string, h *privateHop) (net.Conn, error) {
	err := c.Policy.Control(network, addr, nil)
	if err == nil {
		err = h.check(addr)
	}
	if err != nil {
		c.tracef("* refused %s: %v", addr, err)
		return nil, &net.OpError{Op: "dial", Net: network, Err: err}
	}
	c.tracef("* connect %s", addr)
	if c.Dial != nil {
		return c.Dial(ctx, network, addr)
	}
	d := net.Dialer{Control: c.Policy.Control}
	return d.DialContext(ctx, network, addr)
}

// lookup returns the addresses of host usable on network ("tcp", "tcp4",
// "tcp6"). An IP literal is used as is, without a look-up.
func (c *Client) lookup(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if ip, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{ip}, nil
	}
	name, err := asciiHost(host)
	if err != nil {
		return nil, &net.DNSError{Err: err.Error(), Name: host, IsNotFound: true}
	}
	c.tracef("* resolve %s", name)
	r := cmp.Or[Resolver](c.Resolver, net.DefaultResolver)
	addrs, err := r.LookupIPAddr(ctx, name)
	if err != nil {
		return nil, err
	}
	ips := make([]netip.Addr, 0, len(addrs))
	for _, a := range addrs {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		if network == "tcp4" && !ip.Is4() || network == "tcp6" && !ip.Is6() {
			continue
		}
		ips = append(ips, ip.WithZone(a.Zone))
	}
	if len(ips) == 0 {
		return nil, &net.DNSError{Err: "no suitable address", Name: name, IsNotFound: true}
	}
	return ips, nil
}

// asciiHost returns host in the ASCII form looked up in DNS: names with
// non-ASCII characters are converted with IDNA (RFC 5891); ASCII names are
// kept as they are (some hosts have names IDNA's rules reject, such as
// names with "_").
func asciiHost(host string) (string, error) {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			a, err := idna.Lookup.ToASCII(host)
			if err != nil {
				return "", fmt.Errorf("fetch: host name: %w", err)
			}
			return a, nil
		}
	}
	return host, nil
}

// dialError is a failed connection, said once: the reason alone ("connection
// refused", "i/o timeout"), since the URL around it names the host and
// port, with the address tried when the host was a name. It unwraps to the
// dialer's *net.OpError.
type dialError struct {
	addr string // the address tried, when the URL named a host
	err  error
}

func (e *dialError) Error() string {
	msg := e.err.Error()
	var (
		oe *net.OpError
		se *os.SyscallError
	)
	if errors.As(e.err, &oe) && oe.Err != nil {
		msg = oe.Err.Error()
		if errors.As(oe.Err, &se) {
			msg = se.Err.Error()
		}
	}
	if e.addr != "" {
		msg += " (" + e.addr + ")"
	}
	return msg
}

func (e *dialError) Unwrap() error { return e.err }
