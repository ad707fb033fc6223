package safety

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rfc1738/fetch/internal/probe"
	"github.com/rfc1738/fetch/uri"
)

// Level orders findings by severity: Info < Warning < Error.
type Level int

// The levels of a Finding. A policy refuses a URL with any Error finding.
const (
	Info Level = iota
	Warning
	Error
)

// levelNames are the String forms of the levels.
var levelNames = [...]string{Info: "info", Warning: "warning", Error: "error"}

// String returns "info", "warning" or "error".
func (l Level) String() string {
	if l < Info || l > Error {
		return "Level(" + strconv.Itoa(int(l)) + ")"
	}
	return levelNames[l]
}

// MarshalText encodes the level as its String form, so that JSON shows
// "error" rather than 2.
func (l Level) MarshalText() ([]byte, error) {
	if l < Info || l > Error {
		return nil, fmt.Errorf("safety: invalid level %d", int(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText decodes "info", "warning" or "error".
func (l *Level) UnmarshalText(b []byte) error {
	i := slices.Index(levelNames[:], string(b))
	if i < 0 {
		return fmt.Errorf("safety: unknown level %q", b)
	}
	*l = Level(i)
	return nil
}

// Stable rule ids. `fetch lint --json` prints them; they never change.
const (
	RuleMalformed          = "malformed"
	RuleEncodedCRLF        = "encoded-crlf"
	RuleEncodedNUL         = "encoded-nul"
	RuleEncodedTab         = "encoded-tab"
	RulePortOtherProtocol  = "port-other-protocol"
	RulePortReserved       = "port-reserved"
	RulePortNonDefault     = "port-non-default"
	RulePasswordInURL      = "password-in-url"
	RuleUserinfoNotAllowed = "userinfo-not-allowed"
	RuleUnsafeCharacter    = "unsafe-character"
)

// Finding is one observation about a URL.
type Finding struct {
	// Rule is one of the Rule* ids.
	Rule string `json:"rule"`
	// Level is the severity; a policy refuses on Error.
	Level Level `json:"level"`
	// Component names the part of the URL concerned: "port", "password",
	// "gopher selector", "ftp cwd 2", ...
	Component string `json:"component"`
	// Message explains the finding, naming byte offsets (into the URL as
	// written) and decoded characters where relevant. It never contains a
	// password.
	Message string `json:"message"`
}

// String formats the finding on one line: "error encoded-crlf (ftp name): ...".
func (f Finding) String() string {
	return f.Level.String() + " " + f.Rule + " (" + f.Component + "): " + f.Message
}

// Policy says which URLs and destinations are refused. The zero value is the
// default policy: every port rule applies, private destinations are allowed.
// A Policy is a plain value, safe for concurrent use once built.
type Policy struct {
	// AllowPorts lifts the port rules for these ports (--allow-port): Check
	// still reports the port, at most at Warning level, with a message
	// saying it was allowed. Nil means no port is allowed.
	AllowPorts []int

	// DenyPrivate refuses loopback, private, link-local and other local
	// destinations (--deny-private). It is enforced on the resolved address
	// at dial time by Control and CheckIP, never on the host name. False
	// means every destination may be dialled.
	DenyPrivate bool

	// Wire says which components of a URL its scheme's driver decodes
	// and writes (encoded-crlf, encoded-nul, encoded-tab), and checks the
	// scheme-specific syntax (malformed): fetch.Client sets its
	// registry. Nil takes every escaped component (user, password, path
	// and query, or the opaque part) for an argument of a command line,
	// and checks the generic syntax only. A Wire that is also a Facter
	// says each scheme's default port, line protocol and user
	// information; without one, the port rules are at their strictest.
	Wire Wire
}

// ErrRefused is wrapped by every refusal of a Policy: *RefusedError from
// Evaluate and *AddressError from Control and CheckIP.
var ErrRefused = errors.New("safety: refused by the safety policy")

// RefusedError is a URL refused by Policy.Evaluate. It satisfies
// errors.Is(err, ErrRefused).
type RefusedError struct {
	// URL is the refused URL, redacted: its password, and the password of
	// any URL written inside its path, query or fragment (see Redact), are
	// "xxxxx".
	URL string
	// Findings are all the findings about the URL, most severe first; at
	// least the first one is at Error level.
	Findings []Finding
}

func (e *RefusedError) Error() string {
	var b strings.Builder
	b.WriteString("safety: refused ")
	b.WriteString(e.URL)
	for _, f := range e.Findings {
		if f.Level == Error {
			b.WriteString(": ")
			b.WriteString(f.Rule)
			b.WriteString(": ")
			b.WriteString(f.Message)
			break
		}
	}
	return b.String()
}

// Is reports target == ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Rules returns the ids of the error-level findings, in order.
func (e *RefusedError) Rules() []string {
	var ids []string
	for _, f := range e.Findings {
		if f.Level == Error {
			ids = append(ids, f.Rule)
		}
	}
	return ids
}

// Evaluate checks u under p. It returns every finding, and a *RefusedError
// (errors.Is(err, ErrRefused)) when any finding is at Error level. A nil
// error means the URL may be fetched; findings at lower levels may still be
// worth showing to the user.
func (p Policy) Evaluate(u *uri.URL) ([]Finding, error) {
	fs := Check(u, p)
	if len(fs) > 0 && fs[0].Level == Error {
		return fs, &RefusedError{URL: redactedURL(u), Findings: fs}
	}
	return fs, nil
}

// Check returns the findings about u under p, most severe first; findings of
// the same level keep a fixed order (port, user information, the components
// in URL order, unsafe characters), so the result is deterministic.
//
// A URL whose components do not survive a round trip through String and
// uri.Parse (a hand-built URL with a control character or a bad escape), or
// whose scheme-specific view fails (an ftp typecode other than a, i and d, a
// gopher path with a search but no type, ...), gives a single malformed
// finding. Byte offsets in messages are offsets into u.String().
func Check(u *uri.URL, p Policy) []Finding {
	if u == nil {
		return []Finding{{Rule: RuleMalformed, Level: Error, Component: "url", Message: "no URL"}}
	}
	return check(u, p, "")
}

// CheckString parses raw and checks it under p. When raw does not parse it
// returns a nil URL and a single malformed finding that gives the offset and
// the reason of the *uri.Error (never text of a password). Offsets in
// messages are offsets into raw.
func CheckString(raw string, p Policy) (*uri.URL, []Finding) {
	u, err := uri.Parse(raw)
	if err != nil {
		return nil, []Finding{malformed(err, raw)}
	}
	return u, check(u, p, raw)
}

func check(u *uri.URL, p Policy, raw string) []Finding {
	probe.Check()
	s := u.String()
	if raw == "" {
		if err := roundTrip(u, s); err != nil {
			return []Finding{malformed(err, s)}
		}
		raw = s
	}
	lay := newLayout(u, raw)
	parts, err := wireParts(u, lay, p.Wire)
	if err != nil {
		return []Finding{malformed(err, raw)}
	}
	var fs []Finding
	sf := p.facts(u.Scheme)
	fs = append(fs, portFindings(u, p, sf)...)
	fs = append(fs, userinfoFindings(u, sf)...)
	for _, pt := range parts {
		fs = append(fs, pt.findings()...)
	}
	fs = append(fs, unsafeFindings(u, lay)...)
	slices.SortStableFunc(fs, func(a, b Finding) int { return int(b.Level) - int(a.Level) })
	return fs
}

// redactedURL is u.Redacted() with Redact applied to the text after the
// server part, where a URL with a password may be nested
// ("http://h/?next=ftp://u:pw@h2/").
func redactedURL(u *uri.URL) string {
	if u == nil {
		return ""
	}
	r := u.Redacted()
	s := u.String()
	l := newLayout(u, s)
	start := l.path
	if u.Opaque != "" {
		start = l.opaque
	}
	tail := s[start:]
	return r[:len(r)-len(tail)] + Redact(tail)
}

// roundTrip reports a hand-built URL that uri.Parse would not produce from
// its own String form: the checks below rely on the parser's guarantees (no
// control characters, valid escapes, a well-formed host and port).
func roundTrip(u *uri.URL, s string) error {
	v, err := uri.Parse(s)
	if err != nil {
		return err
	}
	same := v.Scheme == u.Scheme && v.Opaque == u.Opaque && v.Host == u.Host &&
		v.Port == u.Port && v.Path == u.Path && v.RawQuery == u.RawQuery &&
		v.Fragment == u.Fragment && (v.User == nil) == (u.User == nil) &&
		v.User.EscapedUsername() == u.User.EscapedUsername()
	vp, vok := v.User.EscapedPassword()
	up, uok := u.User.EscapedPassword()
	if !same || vp != up || vok != uok {
		return &uri.Error{Offset: 0, Component: "url", Err: uri.Reason("components do not survive a round trip through String and Parse")}
	}
	return nil
}

// malformed turns a parse or view error into a finding. The reason text of a
// *uri.Error may quote up to three bytes of the input, so it is dropped when
// the offset falls where a password may be.
func malformed(err error, raw string) Finding {
	var ue *uri.Error
	if !errors.As(err, &ue) {
		return Finding{Rule: RuleMalformed, Level: Error, Component: "url", Message: "the URL does not parse"}
	}
	reason := "invalid text"
	if ue.Err != nil && !inSpans(passwordSpans(raw), ue.Offset) {
		reason = strings.TrimPrefix(ue.Err.Error(), "uri: ")
	}
	comp := cmp.Or(ue.Component, "url")
	return Finding{
		Rule:      RuleMalformed,
		Level:     Error,
		Component: comp,
		Message:   fmt.Sprintf("%s at offset %d in the %s", reason, ue.Offset, comp),
	}
}

// userinfoFindings reports a password (never printed) and user information
// in a scheme whose syntax has none (sf).
func userinfoFindings(u *uri.URL, sf Facts) []Finding {
	if u.User == nil {
		return nil
	}
	var fs []Finding
	if sf.NoUserinfo {
		msg := u.Scheme + " URLs have no user name or password"
		if sf.Section != "" {
			msg += " (RFC 1738 section " + sf.Section + ")"
		}
		fs = append(fs, Finding{Rule: RuleUserinfoNotAllowed, Level: Warning, Component: "userinfo", Message: msg})
	}
	if pw, ok := u.User.EscapedPassword(); ok && pw != "" {
		fs = append(fs, Finding{
			Rule:      RulePasswordInURL,
			Level:     Warning,
			Component: "password",
			Message:   "the URL carries a password in clear text; it is never printed back (RFC 2396 section 3.2.2: not recommended)",
		})
	}
	return fs
}
