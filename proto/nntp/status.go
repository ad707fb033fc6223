package nntp

import (
	"net/textproto"
	"strings"

	"github.com/rfc1738/fetch/proto"
)

// NNTP response codes used by this package (RFC 3977 section 3.2 and the
// command sections; AUTHINFO codes from RFC 4643 section 2.3; XOVER from
// RFC 2980 section 2.8).
const (
	StatusCapabilities       = 101 // RFC 3977 5.2: capability list follows
	StatusPostingAllowed     = 200 // RFC 3977 5.1: service available, posting allowed
	StatusNoPosting          = 201 // RFC 3977 5.1: service available, posting prohibited
	StatusClosing            = 205 // RFC 3977 5.4: connection closing
	StatusGroupSelected      = 211 // RFC 3977 6.1.1: group selected
	StatusListFollows        = 215 // RFC 3977 7.6.1: information follows
	StatusArticleFollows     = 220 // RFC 3977 6.2.1: article follows
	StatusHeadFollows        = 221 // RFC 3977 6.2.2: headers follow
	StatusBodyFollows        = 222 // RFC 3977 6.2.3: body follows
	StatusArticleExists      = 223 // RFC 3977 6.2.4: article exists
	StatusOverviewFollows    = 224 // RFC 3977 8.3: overview information follows
	StatusAuthAccepted       = 281 // RFC 4643 2.3: authentication accepted
	StatusPasswordRequired   = 381 // RFC 4643 2.3: password required
	StatusServiceUnavailable = 400 // RFC 3977 3.2.1: service not available
	StatusNoSuchGroup        = 411 // RFC 3977 6.1.1: no such newsgroup
	StatusNoGroupSelected    = 412 // RFC 3977 6.2.1: no newsgroup selected
	StatusNoCurrentArticle   = 420 // RFC 3977 6.2.1, 8.3.2: current article number is invalid; RFC 2980 2.8: XOVER's "no article(s) selected"
	StatusNoSuchNumber       = 423 // RFC 3977 6.2.1: no article with that number; 8.3.2: OVER's "no articles in that range"
	StatusNoSuchMessageID    = 430 // RFC 3977 6.2.1: no article with that message-id
	StatusAuthRequired       = 480 // RFC 3977 3.2.1 / RFC 4643 2.2: authentication required
	StatusAuthRejected       = 481 // RFC 4643 2.3: authentication failed or rejected
	StatusAuthOutOfSequence  = 482 // RFC 4643 2.3: authentication commands out of sequence
	StatusEncryptionRequired = 483 // RFC 4643 2.2: encryption required
	StatusUnknownCommand     = 500 // RFC 3977 3.2.1: unknown command
	StatusSyntaxError        = 501 // RFC 3977 3.2.1: syntax error in command
	StatusUnavailable        = 502 // RFC 3977 3.2.1: command unavailable / access denied
	StatusNotSupported       = 503 // RFC 3977 3.2.1: feature not supported
)

// StatusNoArticleInRange is 420, the reply of RFC 2980's XOVER to a range
// without articles. RFC 3977's OVER answers such a range 423
// (StatusNoSuchNumber, section 8.3.2), as INN does; its 420 means no
// current article.
//
// Deprecated: Use [StatusNoCurrentArticle], and [StatusNoSuchNumber] for
// OVER's empty range.
const StatusNoArticleInRange = StatusNoCurrentArticle

var statusText = map[int]string{
	StatusCapabilities:       "capability list follows",
	StatusPostingAllowed:     "service available, posting allowed",
	StatusNoPosting:          "service available, posting prohibited",
	StatusClosing:            "connection closing",
	StatusGroupSelected:      "group selected",
	StatusListFollows:        "information follows",
	StatusArticleFollows:     "article follows",
	StatusHeadFollows:        "headers follow",
	StatusBodyFollows:        "body follows",
	StatusArticleExists:      "article exists",
	StatusOverviewFollows:    "overview information follows",
	StatusAuthAccepted:       "authentication accepted",
	StatusPasswordRequired:   "password required",
	StatusServiceUnavailable: "service not available",
	StatusNoSuchGroup:        "no such newsgroup",
	StatusNoGroupSelected:    "no newsgroup selected",
	StatusNoCurrentArticle:   "current article number is invalid",
	StatusNoSuchNumber:       "no article with that number",
	StatusNoSuchMessageID:    "no article with that message-id",
	StatusAuthRequired:       "authentication required",
	StatusAuthRejected:       "authentication failed",
	StatusAuthOutOfSequence:  "authentication commands out of sequence",
	StatusEncryptionRequired: "encryption required",
	StatusUnknownCommand:     "unknown command",
	StatusSyntaxError:        "syntax error in command",
	StatusUnavailable:        "command unavailable",
	StatusNotSupported:       "feature not supported",
}

// emptyRange reports whether code is the refusal of an OVER or XOVER
// range that holds no article: 423 from OVER (RFC 3977 section 8.3.2, what
// INN's nnrpd sends), 420 from XOVER (RFC 2980 section 2.8, "no article(s)
// selected"), and either from servers that mix the two. A range without
// articles is not an error: an old group has gaps of any width.
func emptyRange(code int) bool {
	return code == StatusNoSuchNumber || code == StatusNoCurrentArticle
}

// ErrServiceUnavailable is wrapped by the *ReplyError of a 400 reply:
// the server is closing the connection and will not serve now, but
// expects to later (RFC 3977 sections 3.2.1 and 5.1.1). It is not a
// refusal of the request: trying again later, not at once, may succeed.
// It wraps proto.ErrUnavailable, which proto.Transient and
// proto.Unreachable count.
var ErrServiceUnavailable error = serviceUnavailable{}

type serviceUnavailable struct{}

func (serviceUnavailable) Error() string { return "nntp: service temporarily unavailable" }
func (serviceUnavailable) Unwrap() error { return proto.ErrUnavailable }

// StatusText returns a short description of an NNTP response code, or ""
// when the code is not one this package knows.
func StatusText(code int) string { return statusText[code] }

// ReplyError is a command the server refused: the command as sent (password
// redacted), the reply kept as a *textproto.Error, and the class of the
// refusal (proto.ErrNotFound, proto.ErrPermission, proto.ErrLogin) or
// ErrServiceUnavailable when the code has one. errors.Is and errors.As see
// both Kind and Reply.
type ReplyError struct {
	Cmd   string           // "GROUP local.test", "AUTHINFO PASS ****"
	Reply *textproto.Error // the server's code and text
	Kind  error            // a proto sentinel, or nil
}

func (e *ReplyError) Error() string {
	var b strings.Builder
	b.WriteString("nntp: ")
	b.WriteString(e.Cmd)
	b.WriteString(": ")
	switch e.Reply.Code {
	case StatusServiceUnavailable:
		b.WriteString("service temporarily unavailable, try again later: ")
	case StatusAuthRequired:
		b.WriteString("server requires authentication: put credentials in the URL or .netrc: ")
	case StatusAuthRejected:
		b.WriteString("authentication rejected: ")
	default:
		if e.Kind != nil {
			b.WriteString(e.Kind.Error())
			b.WriteString(": ")
		}
	}
	b.WriteString(e.Reply.Error())
	return b.String()
}

// Unwrap returns Kind (when set) and Reply.
func (e *ReplyError) Unwrap() []error {
	if e.Kind == nil {
		return []error{e.Reply}
	}
	return []error{e.Kind, e.Reply}
}

// kindOf classifies a refusal code: RFC 3977 section 3.2.1 and the
// per-command responses of sections 6 and 8; RFC 4643 section 2.
func kindOf(code int) error {
	switch code {
	case StatusServiceUnavailable:
		return ErrServiceUnavailable
	case StatusNoSuchGroup, StatusNoCurrentArticle, StatusNoSuchNumber, StatusNoSuchMessageID:
		return proto.ErrNotFound
	case StatusAuthRequired, StatusAuthRejected, StatusAuthOutOfSequence:
		return proto.ErrLogin
	case StatusEncryptionRequired, StatusUnavailable:
		return proto.ErrPermission
	}
	return nil
}
