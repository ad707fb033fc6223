package ftp

import (
	"errors"
	"net/textproto"
	"testing"

	"github.com/rfc1738/fetch/proto"
)

// classifyTests: RFC 959 section 4.2 reply codes to proto sentinels.
var classifyTests = []struct {
	verb string
	code int
	msg  string
	want error
}{
	{"PASS", 530, "Login incorrect.", proto.ErrLogin},                                                             // 530 not logged in
	{"USER", 530, "This FTP server is anonymous only.", proto.ErrLogin},                                           // refused at USER
	{"USER", 421, "Service closing", proto.ErrLogin},                                                              // any refusal of the login
	{"USER", 421, "Too many users", proto.ErrBusy},                                                                // but one for the number of connections: busy
	{"PASS", 530, "Sorry, the maximum number of clients (2) for this user are already connected.", proto.ErrBusy}, // proftpd MaxClientsPerUser
	{"greeting", 421, "There are too many connected users, please try later.", proto.ErrBusy},                     // vsftpd max_clients
	{"greeting", 421, "Service not available", proto.ErrBusy},                                                     // RFC 959 4.2: 421 refuses the connection
	{"greeting", 530, "Not logged in", proto.ErrLogin},
	{"greeting", 530, "Too many connections from this address", proto.ErrBusy}, // 530 not logged in
	{"PASS", 332, "Need account for login.", proto.ErrLogin},                   // 332 need account
	{"RETR", 550, "Failed to open file.", proto.ErrNotFound},                   // vsftpd
	{"RETR", 550, "Could not access file: open /x: file does not exist", proto.ErrNotFound},
	{"RETR", 550, "/x: Permission denied", proto.ErrPermission},
	{"CWD", 550, "Failed to change directory.", proto.ErrNotFound},
	{"STOR", 553, "Could not create file.", proto.ErrPermission}, // 553 name not allowed
	{"RETR", 450, "File busy; access denied", proto.ErrPermission},
	{"RETR", 426, "Connection closed; transfer aborted.", nil},
	{"TYPE", 504, "Command not implemented for that parameter", nil},
	{"REST", 502, "not implemented", nil},
}

func TestClassify(t *testing.T) {
	for _, tt := range classifyTests {
		got := classify(tt.verb, &textproto.Error{Code: tt.code, Msg: tt.msg})
		if got != tt.want {
			t.Errorf("classify(%s, %d %q) = %v, want %v", tt.verb, tt.code, tt.msg, got, tt.want)
		}
	}
}

func TestCommandError(t *testing.T) {
	te := &textproto.Error{Code: 550, Msg: "Failed to change directory."}
	err := cmdError("CWD (null argument)", te)
	if got, want := err.Error(), "ftp: CWD (null argument): "+te.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, proto.ErrNotFound) {
		t.Errorf("%v does not wrap ErrNotFound", err)
	}
	var got *textproto.Error
	if !errors.As(err, &got) || got != te {
		t.Errorf("%v does not keep the reply", err)
	}
	// A plain error is kept as it is.
	plain := errors.New("data connection refused")
	err = cmdError("EPSV", plain)
	if !errors.Is(err, plain) || replyCode(err) != 0 {
		t.Errorf("cmdError(plain) = %v, want the plain error kept", err)
	}
	if StatusText(StatusFileUnavailable) == "" || StatusText(999) != "" {
		t.Errorf("StatusText is wrong")
	}
}
