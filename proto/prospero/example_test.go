package prospero_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/prospero"
	"github.com/rfc1738/fetch/uri"
)

// Without a gateway the Driver has no access method; with one, it returns a
// *proto.Redirect to the gateway URL, which the caller checks and fetches.
func ExampleDriver_Fetch() {
	var d prospero.Driver
	u := uri.MustParse("prospero://127.0.0.1//pros/doc;OBJECT-VERSION=2")
	_, err := d.Fetch(context.Background(), u, nil)
	fmt.Println(errors.Is(err, proto.ErrNoAccessMethod), err)

	req := &proto.Request{Options: proto.Options{Gateways: map[string]string{
		"prospero": "http://127.0.0.1:8080/prospero{hsoname}?version={field:OBJECT-VERSION}",
	}}}
	_, err = d.Fetch(context.Background(), u, req)
	var r *proto.Redirect
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.URL)
	}
	// Output:
	// true prospero: no access method: the Prospero directory protocol (port 1525) is not built in; configure --gateway prospero=TEMPLATE
	// gateway http://127.0.0.1:8080/prospero/pros/doc?version=2
}
