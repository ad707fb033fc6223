package fetchtest_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing/fstest"
	"time"

	"github.com/rfc1738/fetch/fetch"
	"github.com/rfc1738/fetch/fetch/fetchtest"
	"github.com/rfc1738/fetch/proto"
)

// A gopher server with a Gopher+ +ASK form, filled from the request's
// answers ("?" asks for the form, then sends it filled).
func ExampleStartGopherWith() {
	srv, err := fetchtest.StartGopherWith(fstest.MapFS{"about.txt": {Data: []byte("about\n")}}, fetchtest.GopherOptions{
		Items: map[string]fetchtest.GopherItem{
			"/form": {Type: "0", Ask: []string{"Ask: Your name?"}, Serve: func(_ string, answers []string) []byte {
				return []byte("Hello, " + strings.Join(answers, " ") + ".\n")
			}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	var c fetch.Client
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Fetch(ctx, "gopher://"+srv.Addr()+"/0/form%09%09?", &proto.Request{Form: map[string]string{"1": "Ada"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	fmt.Print(string(b))
	// Output: Hello, Ada.
}

// A news server for a program (Listen and Close; a test calls Start).
func ExampleNNTP() {
	s := &fetchtest.NNTP{Over: "OVER"}
	s.Post("From: a@example.org\nSubject: Hello\nMessage-ID: <1@example.org>\n\nFirst post.\n", []string{"local.test"}, []int64{1})
	if err := s.Listen("127.0.0.1:0"); err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()

	var c fetch.Client
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Get(ctx, "nntp://"+s.Addr+"/local.test/1")
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
