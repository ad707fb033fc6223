// Package safety judges URLs before anything is sent: it reports findings
// (rules of DESIGN.md, stable ids) and lets the caller's Policy refuse.
package safety

import (
	"errors"

	"github.com/rfc1738/fetch/uri"
)

// Level orders findings by severity.
type Level int

const (
	Info Level = iota
	Warning
	Error
)

// Finding is one observation about a URL.
type Finding struct {
	Rule      string // stable id: "encoded-crlf", "port-other-protocol", ...
	Level     Level
	Component string // "path", "gopher selector", "port", "userinfo", ...
	Message   string // never contains a password
}

// Policy says which findings refuse a URL. The zero value is the default policy.
type Policy struct {
	// AllowPorts lifts the port rules for these ports.
	AllowPorts []int
	// DenyPrivate refuses loopback, private and link-local destinations at dial time.
	DenyPrivate bool
}

// ErrRefused is wrapped by every refusal of the policy.
var ErrRefused = errors.New("refused by the safety policy")

// Check returns the findings about u under p, most severe first.
func Check(u *uri.URL, p Policy) []Finding {
	return nil
}
