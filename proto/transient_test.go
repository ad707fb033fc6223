package proto_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/safety"
)

// The two questions differ on purpose: a name that does not resolve and
// a certificate that does not verify are network failures (exit 5) that
// no retry mends; a server's "try later" reply is retried but the server
// was reached; a bare io.EOF is retried but not counted as lost.
func TestTransientAndUnreachable(t *testing.T) {
	tests := []struct {
		name                   string
		err                    error
		transient, unreachable bool
	}{
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true, true},
		{"cut", fmt.Errorf("reply: %w", io.ErrUnexpectedEOF), true, true},
		{"deadline", fmt.Errorf("read: %w", os.ErrDeadlineExceeded), true, true},
		{"name not found", &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}, false, true},
		{"name server down", &net.DNSError{Err: "timeout", Name: "x", IsTimeout: true}, true, true},
		{"certificate", &tls.CertificateVerificationError{Err: errors.New("x")}, false, true},
		{"try later", fmt.Errorf("x: %w", proto.ErrTransient), true, false},
		{"unavailable", fmt.Errorf("x: %w", proto.ErrUnavailable), true, true},
		{"busy", fmt.Errorf("x: %w", proto.ErrBusy), true, true},
		{"too slow", fmt.Errorf("x: %w", proto.ErrTooSlow), true, true},
		{"eof", fmt.Errorf("reply: %w", io.EOF), true, false},
		{"aborted", fmt.Errorf("x: %w", syscall.ECONNABORTED), true, false},
		{"refused by policy over a dial", &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("%w: loopback", safety.ErrRefused)}, false, true},
		{"not found with a 421", fmt.Errorf("%w: %w", proto.ErrNotFound, proto.ErrTransient), false, false},
		{"protocol", &proto.ProtocolError{Proto: "ftp", Msg: "bad"}, false, false},
		{"other", errors.New("x"), false, false},
		{"nil", nil, false, false},
	}
	for _, tt := range tests {
		if got := proto.Transient(tt.err); got != tt.transient {
			t.Errorf("Transient(%s) = %v, want %v", tt.name, got, tt.transient)
		}
		if got := proto.Unreachable(tt.err); got != tt.unreachable {
			t.Errorf("Unreachable(%s) = %v, want %v", tt.name, got, tt.unreachable)
		}
	}
}

func TestRefused(t *testing.T) {
	for _, err := range []error{proto.ErrNotFound, proto.ErrPermission, proto.ErrLogin, proto.ErrUnsafeArgument,
		proto.ErrNoAccessMethod, proto.ErrNeedInput, safety.ErrRefused} {
		if !proto.Refused(fmt.Errorf("x: %w", err)) {
			t.Errorf("Refused(%v) = false", err)
		}
	}
	if proto.Refused(proto.ErrTransient) || proto.Refused(proto.ErrProtocol) {
		t.Error("Refused counts a transient or protocol failure")
	}
}
