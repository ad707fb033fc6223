package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/rfc1738/fetch/fetch"
)

// redirectOptions are the flags that widen what a redirect may lead to.
type redirectOptions struct {
	protoRedir   string // --proto-redir, in curl's syntax; "" keeps the default
	allowPrivate bool   // --allow-private-redirect
}

// addRedirectFlags declares --proto-redir (curl's spelling) and
// --allow-private-redirect.
func addRedirectFlags(f *pflag.FlagSet, o *redirectOptions) {
	f.StringVar(&o.protoRedir, "proto-redir", "", "schemes an HTTP redirect may lead to, in curl's syntax: `LIST` such as =http,https or +gopher or -ftp (default ftp,http,https)")
	f.BoolVar(&o.allowPrivate, "allow-private-redirect", false, "follow redirects from a public address to loopback, private and link-local ones")
}

// protocols returns the schemes --proto-redir allows, nil for the
// default; a list that names an unknown scheme is a usage error.
func (o *redirectOptions) protocols() ([]string, error) {
	if o.protoRedir == "" {
		return nil, nil
	}
	p, err := fetch.ParseRedirectProtocols(o.protoRedir, nil)
	if err != nil {
		return nil, flagErrorf("%v", err)
	}
	return p, nil
}

// apply sets the redirect rules of o on c; o was validated (protocols).
func (o *redirectOptions) apply(c *fetch.Client) {
	c.RedirectProtocols, _ = o.protocols()
	c.AllowPrivateRedirect = o.allowPrivate
}

// warn says that the private-address rule of redirects is lifted: a
// protection turned off is always reported, even with -s.
func (o *redirectOptions) warn(e *env) {
	if o.allowPrivate {
		fmt.Fprintln(e.err, "fetch: warning: redirects from public to local addresses are allowed (--allow-private-redirect)")
	}
}
