package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// Rule ids of the redirects the client refuses, besides RuleRedirectToFile.
const (
	// RuleRedirectProtocol: an HTTP redirect to a scheme outside
	// Client.RedirectProtocols.
	RuleRedirectProtocol = "redirect-protocol"
	// RuleRedirectToPrivate: a redirect from a public address to a
	// loopback, private or link-local one (Client.AllowPrivateRedirect).
	RuleRedirectToPrivate = "redirect-to-private"
	// RuleRedirectOffMirror: a redirect that leaves the mirror's starting
	// server (scheme, host and port).
	RuleRedirectOffMirror = "redirect-off-mirror"
)

// ParseRedirectProtocols applies spec, in the syntax of curl's
// --proto-redir, to base (nil means the default set of DefaultRegistry,
// its proto.RedirectTarget drivers: ftp, http and https) and returns
// the resulting set, sorted. spec is a comma-separated list of scheme
// names, each with an optional modifier: "+" (or none) adds the scheme,
// "-" removes it, "=" first empties the set then adds it. The name "all"
// stands for every scheme of DefaultRegistry. So "=http,https" allows
// only those two, "+gopher" adds gopher to the default, "-all" allows
// none. An empty item is ignored; an unknown scheme name is an error.
func ParseRedirectProtocols(spec string, base []string) ([]string, error) {
	reg := DefaultRegistry()
	known := reg.Schemes()
	if base == nil {
		base = slices.DeleteFunc(slices.Clone(known), func(s string) bool { return !reg.redirectTarget(s) })
	}
	set := slices.Clone(base)
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		op := byte('+')
		if item != "" && strings.IndexByte("+-=", item[0]) >= 0 {
			op, item = item[0], item[1:]
		}
		if item == "" {
			continue
		}
		names := []string{strings.ToLower(item)}
		switch {
		case names[0] == "all":
			names = known
		case !slices.Contains(known, names[0]):
			return nil, fmt.Errorf("fetch: --proto-redir: unknown protocol %q", item)
		}
		if op == '=' {
			set = set[:0]
		}
		for _, n := range names {
			set = slices.DeleteFunc(set, func(s string) bool { return s == n })
			if op != '-' {
				set = append(set, n)
			}
		}
	}
	slices.Sort(set)
	return set, nil
}

// vetHop decides whether the redirect from u to next may be followed,
// before anything is sent to next: a *Error wrapping a *RedirectError
// when it may not. limited says that the redirect protocols bound next's
// scheme (proto.Redirect.Limited). stay, when not nil, is the mirror's
// starting URL, whose server a mirror never leaves. prev is the guard of
// the hop before, nil if none. The *privateHop returned is the private-address guard of the
// fetch of next, nil when it has none: a hop from a public address gets
// one, and so does every later hop of a fetch that took such a hop.
func (c *Client) vetHop(ctx context.Context, u, next *uri.URL, limited bool, stay *uri.URL, prev *privateHop) (*privateHop, error) {
	refuse := func(rule string) error {
		re := &RedirectError{Rule: rule, From: u.Redacted(), To: next.Redacted()}
		return &Error{Op: "redirect", URL: u.Redacted(), Err: re}
	}
	if stay != nil && !sameServer(stay, next) {
		return prev, refuse(RuleRedirectOffMirror)
	}
	if limited && !c.redirectAllowed(next.Scheme) {
		return prev, refuse(RuleRedirectProtocol)
	}
	if c.AllowPrivateRedirect {
		return prev, nil
	}
	if prev == nil && !c.publicHost(ctx, u) {
		return nil, nil
	}
	h := &privateHop{from: u.Redacted(), to: next.Redacted()}
	return h, c.localTarget(ctx, next, h)
}

// localTarget refuses next, under the private-address guard h, when its
// host has a local address: judged here as well as at dial time, because
// a driver may have a connection to that host open already (a keep-alive
// pool, an FTP login kept between the URLs of one command) and dial
// nothing. A host that cannot be looked up is left to the driver, whose
// dial fails the same way.
func (c *Client) localTarget(ctx context.Context, next *uri.URL, h *privateHop) error {
	host := next.Hostname()
	if host == "" {
		return nil
	}
	ips, err := c.lookup(ctx, "tcp", host)
	if err != nil {
		return nil
	}
	port := strconv.Itoa(next.PortNumber())
	for _, ip := range ips {
		if err := h.check(net.JoinHostPort(ip.String(), port)); err != nil {
			return &Error{Op: "redirect", URL: next.Redacted(), Err: err}
		}
	}
	return nil
}

// hopRequest returns the request of a hop under the guard h: a copy of
// req whose Dial checks each resolved address against h right before
// connecting (see privateHop). ownDial tells that req.Dial is the
// client's own dial; a caller's own Request.Dial resolves and connects by
// itself, so it is kept as it is, and the hop is judged by localTarget
// alone. Without a guard, req is returned as it is.
func (c *Client) hopRequest(req *proto.Request, h *privateHop, ownDial bool) *proto.Request {
	if h == nil || !ownDial {
		return req
	}
	r := *req
	r.Dial = c.dialer(h)
	return &r
}

// redirectAllowed reports whether an HTTP redirect may lead to scheme:
// one of c.RedirectProtocols or, when nil, of a proto.RedirectTarget.
func (c *Client) redirectAllowed(scheme string) bool {
	if c.RedirectProtocols != nil {
		return slices.Contains(c.RedirectProtocols, strings.ToLower(scheme))
	}
	return c.registry().redirectTarget(scheme)
}

// redirectTarget reports whether the driver of scheme is a
// proto.RedirectTarget.
func (r *Registry) redirectTarget(scheme string) bool {
	d, _ := r.Lookup(scheme)
	t, ok := d.(proto.RedirectTarget)
	return ok && t.RedirectTarget()
}

// local reports whether the driver of scheme names this machine's
// resources (proto.Local).
func local(lookup lookupFunc, scheme string) bool {
	d, _ := lookup(scheme)
	l, ok := d.(proto.Local)
	return ok && l.Local()
}

// publicHost reports whether an address of u's host is public: neither
// loopback, private, link-local nor any other local range of
// safety.Policy.DenyPrivate. The look-up goes through the client's
// resolver; an IP literal is judged as it stands. A host that cannot be
// looked up counts as public, so that its redirect is held to the
// stricter rule.
func (c *Client) publicHost(ctx context.Context, u *uri.URL) bool {
	host := u.Hostname()
	if host == "" {
		return false
	}
	ips, err := c.lookup(ctx, "tcp", host)
	if err != nil {
		return true
	}
	return slices.ContainsFunc(ips, func(ip netip.Addr) bool { return localReason(ip) == "" })
}

// localReason names the local range of ip (loopback, private, link-local,
// ...), or returns "" for a public address. A variable, so that tests can
// take a loopback address for a public one: they must never send traffic
// to a public address.
var localReason = func(ip netip.Addr) string {
	var ae *safety.AddressError
	if err := (safety.Policy{DenyPrivate: true}).CheckIP(ip); errors.As(err, &ae) {
		return ae.Reason
	}
	return ""
}

// privateHop is the redirect whose target may be dialled only at a public
// address: checked in dialAddr on each resolved address, before connect,
// so that a host name that resolves (or is rebound) to a local address is
// refused too, and so are the connections a driver makes to a server the
// URL does not name (news: and its NNTP server). The request of the hop
// carries it in its Dial (hopRequest).
type privateHop struct{ from, to string }

// check refuses addr when addr is local; a nil guard refuses nothing.
func (h *privateHop) check(addr string) error {
	if h == nil {
		return nil
	}
	ap, err := netip.ParseAddrPort(addr)
	reason := "not an IP address and port"
	if err == nil {
		reason = localReason(ap.Addr())
	}
	if reason == "" {
		return nil
	}
	return &RedirectError{Rule: RuleRedirectToPrivate, From: h.from, To: h.to, Address: addr, Reason: reason}
}
