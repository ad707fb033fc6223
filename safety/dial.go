package safety

import (
	"errors"
	"net/netip"
	"syscall"
)

// ErrPrivateAddress is wrapped, beside ErrRefused, by every destination
// refused by the private-address policy (Policy.DenyPrivate).
var ErrPrivateAddress = errors.New("safety: private address")

// AddressError is a destination refused at dial time. It satisfies
// errors.Is(err, ErrRefused) and errors.Is(err, ErrPrivateAddress).
type AddressError struct {
	// Address is the refused IP address, with its port when the check was
	// made on a dial (Control), as the kernel would have connected to it.
	Address string
	// Reason names the range: "loopback", "private (RFC 1918)", ...
	Reason string
}

func (e *AddressError) Error() string {
	return "safety: refused to connect to " + e.Address + ": " + e.Reason
}

// Unwrap returns ErrPrivateAddress and ErrRefused.
func (e *AddressError) Unwrap() []error { return []error{ErrPrivateAddress, ErrRefused} }

// Control is a net.Dialer Control function that enforces p.DenyPrivate on
// the address the socket is about to connect to: after name resolution, so
// a host name that resolves (or is rebound by its DNS) to a local address is
// refused, and before connect, so nothing reaches the network. With
// DenyPrivate false it allows every address. An address that is not
// IP:port is refused (fail closed).
//
//	d := net.Dialer{Control: policy.Control}
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	if !p.DenyPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &AddressError{Address: address, Reason: "not an IP address and port"}
	}
	if r := privateReason(ap.Addr()); r != "" {
		return &AddressError{Address: ap.String(), Reason: r}
	}
	return nil
}

// CheckIP returns an *AddressError when p.DenyPrivate is set and ip is a
// destination the private-address policy refuses (see the package
// documentation for the ranges); nil otherwise.
func (p Policy) CheckIP(ip netip.Addr) error {
	if !p.DenyPrivate {
		return nil
	}
	if r := privateReason(ip); r != "" {
		return &AddressError{Address: ip.String(), Reason: r}
	}
	return nil
}

var (
	thisNetwork  = netip.MustParsePrefix("0.0.0.0/8")
	sharedCGNAT  = netip.MustParsePrefix("100.64.0.0/10")
	limitedBcast = netip.MustParseAddr("255.255.255.255")
	siteLocal    = netip.MustParsePrefix("fec0::/10")
	v4Compatible = netip.MustParsePrefix("::/96")
	nat64        = netip.MustParsePrefix("64:ff9b::/96")
)

// privateReason names the local range that ip is in, or returns "".
func privateReason(ip netip.Addr) string {
	if !ip.IsValid() {
		return "not an IP address"
	}
	ip = ip.WithZone("")
	if ip.Is4In6() {
		if r := privateReason(ip.Unmap()); r != "" {
			return r + " (IPv4-mapped)"
		}
		return ""
	}
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		v4 := netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		if r := privateReason(v4); r != "" {
			return r + " (NAT64 form)"
		}
		return ""
	}
	switch {
	case ip.IsUnspecified(), thisNetwork.Contains(ip):
		return "unspecified address (this host)"
	case ip.IsLoopback():
		return "loopback"
	case ip.Is6() && v4Compatible.Contains(ip):
		return "IPv4-compatible address (deprecated, RFC 4291)"
	case ip.IsPrivate() && ip.Is4():
		return "private (RFC 1918)"
	case ip.IsPrivate():
		return "unique local (RFC 4193)"
	case sharedCGNAT.Contains(ip):
		return "shared address space (CGNAT, RFC 6598)"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case siteLocal.Contains(ip):
		return "site-local (deprecated, RFC 3879)"
	case ip.IsMulticast(), ip == limitedBcast:
		return "not a unicast address"
	}
	return ""
}
