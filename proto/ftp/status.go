package ftp

import (
	"errors"
	"net/textproto"
	"slices"
	"strings"

	"github.com/rfc1738/fetch/proto"
)

// FTP reply codes used by this package (RFC 959 section 4.2.2, RFC 2428
// section 3, RFC 3659 sections 3-5).
const (
	StatusAlreadyOpen          = 125 // RFC 959: data connection already open; transfer starting
	StatusAboutToSend          = 150 // RFC 959: file status okay; about to open data connection
	StatusCommandOK            = 200 // RFC 959
	StatusSystem               = 211 // RFC 959 (FEAT reply, RFC 2389)
	StatusFile                 = 213 // RFC 959 (SIZE and MDTM replies, RFC 3659)
	StatusReady                = 220 // RFC 959: service ready for new user
	StatusClosing              = 221 // RFC 959
	StatusClosingDataConn      = 226 // RFC 959: closing data connection; transfer complete
	StatusPassiveMode          = 227 // RFC 959
	StatusExtendedPassiveMode  = 229 // RFC 2428
	StatusLoggedIn             = 230 // RFC 959
	StatusRequestedFileOK      = 250 // RFC 959: requested file action okay, completed
	StatusPathCreated          = 257 // RFC 959 (PWD reply)
	StatusUserOK               = 331 // RFC 959: user name okay, need password
	StatusNeedAccount          = 332 // RFC 959
	StatusRequestFilePending   = 350 // RFC 959 (REST reply, RFC 3659 section 5)
	StatusNotAvailable         = 421 // RFC 959: service not available, closing control connection
	StatusCannotOpenDataConn   = 425 // RFC 959
	StatusTransferAborted      = 426 // RFC 959
	StatusFileActionIgnored    = 450 // RFC 959: file unavailable (busy)
	StatusLocalError           = 451 // RFC 959
	StatusInsufficientStorage  = 452 // RFC 959
	StatusBadCommand           = 500 // RFC 959: syntax error, command unrecognized
	StatusBadArguments         = 501 // RFC 959
	StatusNotImplemented       = 502 // RFC 959
	StatusBadSequence          = 503 // RFC 959
	StatusNotImplementedParam  = 504 // RFC 959
	StatusNetProtoUnsupported  = 522 // RFC 2428 section 2: network protocol not supported
	StatusNotLoggedIn          = 530 // RFC 959
	StatusNeedAccountToStore   = 532 // RFC 959
	StatusFileUnavailable      = 550 // RFC 959: file unavailable (not found, no access)
	StatusPageTypeUnknown      = 551 // RFC 959
	StatusExceededStorage      = 552 // RFC 959
	StatusFileNameNotAllowed   = 553 // RFC 959
	StatusInvalidRESTParameter = 554 // RFC 3659 section 5.4
)

var statusText = map[int]string{
	StatusAlreadyOpen:          "Data connection already open; transfer starting",
	StatusAboutToSend:          "File status okay; about to open data connection",
	StatusCommandOK:            "Command okay",
	StatusSystem:               "System status",
	StatusFile:                 "File status",
	StatusReady:                "Service ready for new user",
	StatusClosing:              "Service closing control connection",
	StatusClosingDataConn:      "Closing data connection",
	StatusPassiveMode:          "Entering Passive Mode",
	StatusExtendedPassiveMode:  "Entering Extended Passive Mode",
	StatusLoggedIn:             "User logged in, proceed",
	StatusRequestedFileOK:      "Requested file action okay, completed",
	StatusPathCreated:          "Pathname created",
	StatusUserOK:               "User name okay, need password",
	StatusNeedAccount:          "Need account for login",
	StatusRequestFilePending:   "Requested file action pending further information",
	StatusNotAvailable:         "Service not available, closing control connection",
	StatusCannotOpenDataConn:   "Can't open data connection",
	StatusTransferAborted:      "Connection closed; transfer aborted",
	StatusFileActionIgnored:    "Requested file action not taken",
	StatusLocalError:           "Requested action aborted: local error in processing",
	StatusInsufficientStorage:  "Requested action not taken: insufficient storage space",
	StatusBadCommand:           "Syntax error, command unrecognized",
	StatusBadArguments:         "Syntax error in parameters or arguments",
	StatusNotImplemented:       "Command not implemented",
	StatusBadSequence:          "Bad sequence of commands",
	StatusNotImplementedParam:  "Command not implemented for that parameter",
	StatusNetProtoUnsupported:  "Network protocol not supported",
	StatusNotLoggedIn:          "Not logged in",
	StatusNeedAccountToStore:   "Need account for storing files",
	StatusFileUnavailable:      "Requested action not taken: file unavailable",
	StatusPageTypeUnknown:      "Requested action aborted: page type unknown",
	StatusExceededStorage:      "Requested file action aborted: exceeded storage allocation",
	StatusFileNameNotAllowed:   "Requested action not taken: file name not allowed",
	StatusInvalidRESTParameter: "Invalid REST parameter",
}

// StatusText returns the RFC's text for an FTP reply code, or "" when the
// code is not one this package names.
func StatusText(code int) string { return statusText[code] }

// CommandError is the server's refusal of one command, or the failure of
// the connection while the command was under way. Cmd is the command as it
// was sent ("CWD pub", "RETR motd"), with a password shown as "****" and a
// null argument shown as "(null argument)". Err is the server's reply as a
// *textproto.Error, or the network error. Kind, when not nil, is the
// proto sentinel the reply was classified as (proto.ErrNotFound,
// proto.ErrPermission, proto.ErrLogin, or proto.ErrProtocol for a line
// that is no FTP reply); errors.Is sees both Kind and Err.
type CommandError struct {
	Cmd  string
	Kind error
	Err  error
}

func (e *CommandError) Error() string { return "ftp: " + e.Cmd + ": " + e.Err.Error() }

// Unwrap returns Kind (when set) and Err; with no Kind, a reply that says
// "not now" (transientReply) adds proto.ErrTransient.
func (e *CommandError) Unwrap() []error {
	var te *textproto.Error
	if e.Kind == nil && errors.As(e.Err, &te) && transientReply(te) {
		return []error{proto.ErrTransient, e.Err}
	}
	if e.Kind == nil {
		return []error{e.Err}
	}
	return []error{e.Kind, e.Err}
}

// classify names the proto sentinel that a reply to cmd (the command verb,
// upper case) stands for, or nil. RFC 959 section 4.2 gives 530 "not
// logged in", 550 "file unavailable (e.g., file not found, no access)",
// 553 "file name not allowed"; a 550 whose text speaks of permission or
// access is a refusal, not an absence.
func classify(verb string, te *textproto.Error) error {
	if verb == "greeting" && te.Code == StatusNotAvailable ||
		(verb == "greeting" || verb == "USER" || verb == "PASS") && te.Code >= 400 && tooManyText(te.Msg) {
		// A connection refused for the number of connections: the
		// server is busy, not refusing this user (vsftpd's max_clients
		// and max_per_ip answer 421 at once; proftpd's MaxClients 530).
		return proto.ErrBusy
	}
	switch te.Code {
	case StatusNotLoggedIn, StatusNeedAccount, StatusNeedAccountToStore:
		return proto.ErrLogin
	case StatusFileNameNotAllowed:
		return proto.ErrPermission
	case StatusFileUnavailable, StatusFileActionIgnored:
		if permissionText(te.Msg) {
			return proto.ErrPermission
		}
		switch verb {
		case "CWD", "RETR", "NLST", "LIST", "MLSD", "SIZE", "MDTM":
			return proto.ErrNotFound
		}
	}
	if verb == "USER" || verb == "PASS" {
		// Any refusal of the login sequence is a login failure, whatever
		// code the server chose for it (some say 500 or 421).
		if te.Code >= 400 {
			return proto.ErrLogin
		}
	}
	return nil
}

// transientReply reports whether a reply says "not now" rather than "no":
// 421 service not available, 425 cannot open the data connection, 426
// transfer aborted, 450 and 451 action not taken or aborted for now (RFC
// 959 section 4.2), and vsftpd's "500 OOPS: ...", its own failure (no
// free passive port, a child that died), not a refusal of the command: it
// ends the session, and a new one may work.
func transientReply(te *textproto.Error) bool {
	switch te.Code {
	case StatusNotAvailable, StatusCannotOpenDataConn, StatusTransferAborted, StatusFileActionIgnored, StatusLocalError:
		return true
	case StatusBadCommand:
		return strings.HasPrefix(te.Msg, "OOPS")
	}
	return false
}

// tooManyText reports whether a reply's text says the server has too many
// connections.
func tooManyText(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "too many") || strings.Contains(m, "maximum number of")
}

// permissionText reports whether a 550 reply's text says the file exists
// but may not be read. Text that speaks of absence wins.
func permissionText(msg string) bool {
	m := strings.ToLower(msg)
	says := func(w string) bool { return strings.Contains(m, w) }
	return !slices.ContainsFunc([]string{"no such", "not exist", "not found", "doesn't exist"}, says) &&
		slices.ContainsFunc([]string{"permission", "denied", "not allowed", "forbidden", "not authorized", "not authorised"}, says)
}

// cmdError builds the CommandError for err, the failure of cmd. A reply
// error keeps its *textproto.Error.
func cmdError(cmd string, err error) *CommandError {
	verb, _, _ := strings.Cut(cmd, " ")
	var te *textproto.Error
	errors.As(err, &te)
	ce := &CommandError{Cmd: cmd, Err: err}
	var tpe textproto.ProtocolError
	switch {
	case te != nil && (te.Code < 100 || te.Code > 599):
		// RFC 959 section 4.2: the first digit of a reply code is 1 to
		// 5; any other is no reply at all.
		ce.Kind = proto.ErrProtocol
	case te != nil:
		ce.Kind = classify(verb, te)
	case errors.As(err, &tpe):
		// A line that is not a reply ("hello", "22"), as net/textproto
		// reads it.
		ce.Kind = proto.ErrProtocol
	}
	return ce
}

// replyCode returns the FTP code of a reply error, or 0.
func replyCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// nullArg names a command with an empty argument in errors and traces.
func displayCmd(verb, arg string) string {
	if arg == "" {
		return verb + " (null argument)"
	}
	return verb + " " + arg
}

// replyMsg returns the text of a reply error, or the error's text.
func replyMsg(err error) string {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Msg
	}
	return err.Error()
}
