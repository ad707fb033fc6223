package fetch

import (
	"errors"
	"slices"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
	"github.com/rfc1738/fetch/uri"
)

// TestRegistryWire: the policy of a client checks what the driver of each
// scheme says it writes (safety.Wire): an http path is sent escaped, so a
// %0D%0A in it is no danger, while the same bytes in an ftp name would end
// the command line; a driver that does not say gets every component
// checked; a scheme without a driver, nothing.
func TestRegistryWire(t *testing.T) {
	reg := DefaultRegistry()
	reg.Register("x-fake", &fake{})
	for _, tt := range []struct {
		url     string
		refused bool
	}{
		{"http://h/a%0D%0Ab", false},
		{"ftp://h/a%0D%0Ab", true},
		{"x-fake://h/a%0D%0Ab", true},
		{"x-none://h/a%0D%0Ab", false},
	} {
		c := &Client{Registry: reg}
		_, err := c.policy().Evaluate(uri.MustParse(tt.url))
		if got := errors.Is(err, safety.ErrRefused); got != tt.refused {
			t.Errorf("Evaluate(%s) = %v, want refused %v", tt.url, err, tt.refused)
		}
	}
}

// factsDriver is a driver that says the safety facts of its scheme.
type factsDriver struct {
	fake
	facts safety.Facts
}

func (d *factsDriver) SchemeFacts(string) safety.Facts { return d.facts }

func isFacter(d proto.Driver) bool {
	_, ok := d.(safety.Facter)
	return ok
}

// TestRegistryFacts: the port and user information rules take what the
// driver of each scheme says of it (safety.Facter): a driver's own facts,
// a line protocol for a driver that says none, nothing for a scheme
// without a driver. Every built-in driver says its facts.
func TestRegistryFacts(t *testing.T) {
	reg := DefaultRegistry()
	for _, s := range reg.Schemes() {
		if d, _ := reg.Lookup(s); !isFacter(d) {
			t.Errorf("the %s driver says no safety.Facts", s)
		}
	}
	reg.Register("x-line", &factsDriver{facts: safety.Facts{Port: 7000, Line: true, NoUserinfo: true, Section: "9.9"}})
	reg.Register("x-fake", &fake{})
	for _, tt := range []struct {
		url  string
		want []string // rules of the findings
	}{
		{"x-line://h:7000/", nil},
		{"x-line://u@h:6379/", []string{safety.RulePortOtherProtocol, safety.RuleUserinfoNotAllowed}},
		{"x-fake://u@h:6379/", []string{safety.RulePortOtherProtocol}},
		{"x-none://u@h:6379/", []string{safety.RulePortNonDefault}},
	} {
		c := &Client{Registry: reg}
		fs, _ := c.policy().Evaluate(uri.MustParse(tt.url))
		var got []string
		for _, f := range fs {
			got = append(got, f.Rule)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Evaluate(%s) = %v, want rules %q", tt.url, fs, tt.want)
		}
	}
}
