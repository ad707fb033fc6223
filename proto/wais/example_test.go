package wais_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/wais"
	"github.com/rfc1738/fetch/uri"
)

// Without a gateway the Driver has no access method; with one, it returns a
// *proto.Redirect to the gateway URL, which the caller checks and fetches.
func ExampleDriver_Fetch() {
	var d wais.Driver
	u := uri.MustParse("wais://127.0.0.1/rfcs?gopher+protocol")
	_, err := d.Fetch(context.Background(), u, nil)
	fmt.Println(errors.Is(err, proto.ErrNoAccessMethod), err)

	req := &proto.Request{Options: proto.Options{Gateways: map[string]string{
		"wais": "http://127.0.0.1:8080/wais/{database}?q={search}",
	}}}
	_, err = d.Fetch(context.Background(), u, req)
	var r *proto.Redirect
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.URL)
	}
	// Output:
	// true wais: no access method: the WAIS protocol (Z39.50, port 210) is not built in; configure --gateway wais=TEMPLATE
	// gateway http://127.0.0.1:8080/wais/rfcs?q=gopher%2Bprotocol
}
