package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/internal/rate"
	"github.com/rfc1738/fetch/proto/ftp"
)

// politeOptions are the politeness flags of "fetch get" and "fetch
// mirror": curl's --limit-rate, wget's --wait and --random-wait.
type politeOptions struct {
	limitRate      int64 // --limit-rate: bytes a second, per transfer
	limitRateTotal int64 // --limit-rate-total: bytes a second, all transfers
	wait           seconds
	randomWait     bool
	maxHostConns   int
}

// addPoliteFlags declares the politeness flags.
func addPoliteFlags(f *pflag.FlagSet, o *politeOptions) {
	f.Var((*rateFlag)(&o.limitRate), "limit-rate", "hold each transfer to `RATE` bytes a second (suffixes k, M, G, T, P: 1024-based)")
	f.Var((*rateFlag)(&o.limitRateTotal), "limit-rate-total", "hold all the transfers of the run together to `RATE` bytes a second")
	f.Var(&o.wait, "wait", "start each request to a host `SECONDS` after the start of the one before")
	f.BoolVar(&o.randomWait, "random-wait", false, "wait between 0.5 and 1.5 times --wait, at random")
	f.IntVar(&o.maxHostConns, "max-host-conns", 0, "use at most `N` connections to one host at once (0: no limit)")
}

// validate checks the politeness flags.
func (o *politeOptions) validate() error {
	switch {
	case o.maxHostConns < 0:
		return flagErrorf("--max-host-conns %d: want 0 or more", o.maxHostConns)
	case o.randomWait && o.wait == 0:
		return flagErrorf("--random-wait needs --wait")
	}
	return nil
}

// apply sets the limits of o on c.
func (o *politeOptions) apply(c *fetch.Client) {
	c.LimitRate, c.LimitRateTotal = o.limitRate, o.limitRateTotal
	c.Wait, c.RandomWait = time.Duration(o.wait), o.randomWait
	c.MaxHostConns = o.maxHostConns
}

// limitFTP gives the FTP configuration c (of the command's own registry)
// the --max-host-conns limit on its pool, when it has none or a larger
// one (-Z's): at most that many control connections in use per server
// and user, as the client allows fetches.
func (o *politeOptions) limitFTP(c *ftp.Config) {
	if n := o.maxHostConns; n > 0 && (c.MaxConnsPerHost <= 0 || c.MaxConnsPerHost > n) {
		c.MaxConnsPerHost = n
	}
}

// rateFlag is a rate in bytes a second written as curl writes it ("100k",
// "1.5M"; see rate.Parse).
type rateFlag int64

var _ pflag.Value = (*rateFlag)(nil)

func (r *rateFlag) String() string {
	if *r == 0 {
		return ""
	}
	return rate.Format(int64(*r))
}

func (r *rateFlag) Set(v string) error {
	n, err := rate.Parse(v)
	if err != nil {
		return err
	}
	*r = rateFlag(n)
	return nil
}

func (r *rateFlag) Type() string { return "rate" }
