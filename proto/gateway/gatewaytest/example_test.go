package gatewaytest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway/gatewaytest"
	"github.com/rfc1738/fetch/proto/wais"
	"github.com/rfc1738/fetch/uri"
)

// Request configures one gateway template, as a driver's test needs it
// (Redirect does this in a test and returns the gateway URL; Run checks a
// whole Fixture).
func ExampleRequest() {
	req := gatewaytest.Request("wais", "http://127.0.0.1:8080/{database}/{wtype}/{wpath}")
	_, err := (&wais.Driver{}).Fetch(context.Background(), uri.MustParse("wais://127.0.0.1/db/TEXT/doc%2Fid"), req)
	var r *proto.Redirect
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.URL)
	}
	// Output: gateway http://127.0.0.1:8080/db/TEXT/doc/id
}
