package fetch

import (
	"errors"
	"testing"

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
