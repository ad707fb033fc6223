package nntp

import (
	"bufio"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// conformanceServer answers MODE READER, ARTICLE <small@x> (a short
// article), ARTICLE <endless@x> (a body that never ends) and QUIT; any
// other article is 430.
func conformanceServer(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	r := bufio.NewReader(c)
	io.WriteString(c, "201 conformance (no posting)\r\n")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		switch strings.TrimRight(line, "\r\n") {
		case "MODE READER":
			io.WriteString(c, "201 ok\r\n")
		case "ARTICLE <small@x>":
			io.WriteString(c, "220 0 <small@x>\r\nSubject: small\r\n\r\nhello\r\n..dot\r\n.\r\n")
		case "ARTICLE <endless@x>":
			endless(c, "220 0 <endless@x>\r\nSubject: endless\r\n\r\n", "endless line\r\n")
			return
		case "QUIT":
			io.WriteString(c, "205 bye\r\n")
			return
		default:
			io.WriteString(c, "430 no such article\r\n")
		}
	}
}

func TestConformance(t *testing.T) {
	rec := prototest.Listen(t)
	go func() {
		for {
			c, err := rec.Accept()
			if err != nil {
				return
			}
			go conformanceServer(c)
		}
	}()
	addr := rec.Addr().String()
	prototest.Run(t, &Driver{}, prototest.Fixture{
		Small:   "news://" + addr + "/small@x",
		Want:    []byte("Subject: small\n\nhello\n.dot\n"),
		Endless: "news://" + addr + "/endless@x",
		Unsafe: func(payload string) *uri.URL {
			return uri.MustParse("news://" + addr + "/" + uri.Escape(payload, "") + "@x")
		},
		Wire: rec.Bytes,
		Request: func() *proto.Request {
			return &proto.Request{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
		},
	})
	// The same through nntp: with a group, the other URL form.
	prototest.Run(t, &Driver{}, prototest.Fixture{
		Endless: "news://" + addr + "/endless@x",
		Unsafe: func(payload string) *uri.URL {
			return uri.MustParse("nntp://" + addr + "/" + uri.Escape(payload, "") + "/1")
		},
		Wire: rec.Bytes,
	})
}
