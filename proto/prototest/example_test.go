package prototest_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/rfc1738/fetch/proto/gopher"
	"github.com/rfc1738/fetch/proto/prototest"
	"github.com/rfc1738/fetch/uri"
)

// A fake server on a Recorder shows every byte a driver sent: here a
// one-file gopher server, whose Recorder.Bytes would be a Fixture's Wire.
func ExampleRecord() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := prototest.Record(ln)
	defer rec.Close()
	go func() {
		for c, err := rec.Accept(); err == nil; c, err = rec.Accept() {
			c.SetDeadline(time.Now().Add(30 * time.Second))
			bufio.NewReader(c).ReadString('\n')
			io.WriteString(c, "hello\n")
			c.Close()
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := (&gopher.Driver{}).Fetch(ctx, uri.MustParse("gopher://"+rec.Addr().String()+"/0hello"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Printf("got %q, sent %q, %d connection\n", b, rec.String(), rec.Accepts())
	// Output: got "hello\n", sent "hello\r\n", 1 connection
}
