package fetch

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// refuseDial fails every connection as a port where nothing listens does
// (ECONNREFUSED), without touching the network.
func refuseDial(ctx context.Context, network, addr string) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: network, Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
}

// A refused connection is said once: the URL, then the reason, and the
// address tried only when the URL named the host; the error stays typed
// (*Error, ECONNREFUSED, exit 5). A mirror that cannot list its start
// says so the same way, with the number of attempts.
func TestErrorsSaidOnce(t *testing.T) {
	const port = "2121"
	c := &Client{Resolver: fakeResolver{c: &counters{}, hosts: map[string]string{"ftp.test": "127.0.0.1"}}, Dial: refuseDial, ConnectTimeout: 5 * time.Second}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for _, tc := range []struct{ url, want string }{
		{"ftp://127.0.0.1:" + port + "/pub/a", "fetch: ftp://127.0.0.1:" + port + "/pub/a: connection refused"},
		{"ftp://ftp.test:" + port + "/pub/a", "fetch: ftp://ftp.test:" + port + "/pub/a: connection refused (127.0.0.1:" + port + ")"},
		{"gopher://127.0.0.1:" + port + "/0a", "fetch: gopher://127.0.0.1:" + port + "/0a: connection refused"},
		{"nntp://127.0.0.1:" + port + "/g/1", "fetch: nntp://127.0.0.1:" + port + "/g/1: connection refused"},
		{"http://127.0.0.1:" + port + "/a", "fetch: http://127.0.0.1:" + port + "/a: connection refused"},
	} {
		_, err := c.Get(ctx, tc.url)
		checkRefused(t, tc.url, err, tc.want)
	}
	// A name that does not resolve: the look-up's own words, once.
	for _, url := range []string{"http://nohost.test/a", "ftp://nohost.test/a", "gopher://nohost.test/0a"} {
		_, err := c.Get(ctx, url)
		var de *net.DNSError
		if want := "fetch: " + url + ": lookup nohost.test: no such host"; !errors.As(err, &de) || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", url, err, want)
		}
	}
	url := "ftp://127.0.0.1:" + port + "/pub/"
	_, err := c.Mirror(ctx, url, t.TempDir(), MirrorOptions{Retry: &Retry{Max: 2, Base: time.Millisecond, Cap: time.Millisecond}})
	checkRefused(t, "mirror "+url, err, "fetch: "+url+": connection refused (3 attempts)")
}

func checkRefused(t *testing.T, what string, err error, want string) {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, syscall.ECONNREFUSED) || ExitCode(err) != ExitNetwork {
		t.Errorf("%s: %#v: not a refused connection", what, err)
		return
	}
	if err.Error() != want {
		t.Errorf("%s:\n got %s\nwant %s", what, err, want)
	}
}
