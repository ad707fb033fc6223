package nntp_test

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto/nntp"
	"github.com/rfc1738/fetch/uri"
)

// The Driver fetches an article by group and number (an nntp: URL, RFC 1738
// section 3.7), here from a news server in-process on 127.0.0.1.
func ExampleDriver_Fetch() {
	s := &fetchtest.NNTP{}
	s.Post("From: a@example.org\nSubject: Hello\nMessage-ID: <1@example.org>\n\nFirst post.\n", []string{"local.test"}, []int64{1})
	if err := s.Listen("127.0.0.1:0"); err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	var d nntp.Driver
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := d.Fetch(ctx, uri.MustParse("nntp://"+s.Addr+"/local.test/1"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(string(b))
	// Output:
	// From: a@example.org
	// Subject: Hello
	// Message-ID: <1@example.org>
	//
	// First post.
}
