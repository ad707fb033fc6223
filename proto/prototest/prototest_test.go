package prototest_test

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// lineDriver is the smallest well-behaved line-protocol driver: it sends the
// decoded path as one line and streams the reply.
type lineDriver struct{}

func (lineDriver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	arg, err := uri.Unescape(strings.TrimPrefix(u.Path, "/"))
	if err != nil {
		return nil, err
	}
	if err := proto.CheckArg(arg); err != nil {
		return nil, err
	}
	c, err := req.DialContext(ctx, "tcp", u.Host+":"+u.Port)
	if err != nil {
		return nil, err
	}
	if _, err := c.Write([]byte(arg + "\r\n")); err != nil {
		c.Close()
		return nil, err
	}
	return &proto.Response{Body: c, Size: -1}, nil
}

// serve answers "small" with a short text and anything else with an
// endless stream.
func serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			line, err := bufio.NewReader(c).ReadString('\n')
			if err != nil {
				return
			}
			if line == "small\r\n" {
				c.Write([]byte("hello\n"))
				return
			}
			buf := make([]byte, 32<<10)
			for {
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}()
	}
}

func TestRunLineDriver(t *testing.T) {
	rec := prototest.Listen(t)
	go serve(rec)
	host, port, _ := net.SplitHostPort(rec.Addr().String())
	base := "x://" + host + ":" + port + "/"
	prototest.Run(t, lineDriver{}, prototest.Fixture{
		Small:   base + "small",
		Want:    []byte("hello\n"),
		Endless: base + "endless",
		Unsafe: func(payload string) *uri.URL {
			return uri.MustParse(base + uri.Escape(payload, ""))
		},
		Wire: rec.Bytes,
	})
	if !rec.Contains("small\r\n") || rec.Contains(prototest.Marker) {
		t.Errorf("wire = %q; want the small request and no marker", rec.String())
	}
	if rec.Accepts() < 3 {
		t.Errorf("Accepts() = %d, want at least 3", rec.Accepts())
	}
}
