// Package secret holds the two forms in which the module shows a password
// it must not print, one for each kind of output (see DESIGN.md, "No
// password in any output"):
//
//   - in a URL, the password becomes URLMask: "ftp://ann:xxxxx@host/"
//     ((*uri.URL).Redacted, safety.Redact, the JSON views);
//   - in a protocol trace, a command as shown in an error, or the
//     command's stderr, the password (or credential) becomes TraceMask:
//     "PASS ****", "AUTHINFO PASS ****", "Authorization: Basic ****".
package secret

import "strings"

const (
	// URLMask replaces a password in a URL.
	URLMask = "xxxxx"
	// TraceMask replaces a password in a trace line, a command as shown
	// and any other text.
	TraceMask = "****"
)

// Hide replaces every occurrence of pw in s with TraceMask. An empty pw
// hides nothing.
func Hide(s, pw string) string {
	if pw == "" {
		return s
	}
	return strings.ReplaceAll(s, pw, TraceMask)
}

// Masked reports whether pw, a password as it appears in a URL, is one of
// the two masks rather than a password.
func Masked(pw string) bool { return pw == URLMask || pw == TraceMask }
