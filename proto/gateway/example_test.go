package gateway_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rfc1738/fetch/proto"
	"github.com/rfc1738/fetch/proto/gateway"
	"github.com/rfc1738/fetch/uri"
)

// finger describes a scheme served only through a gateway: finger://host/user.
var finger = &gateway.Scheme{
	Name:         "finger",
	Protocol:     "the Finger protocol (RFC 1288, port 79)",
	Placeholders: []string{"user"},
	View: func(u *uri.URL) ([]gateway.Part, gateway.Values, error) {
		user, err := uri.Unescape(strings.TrimPrefix(u.Path, "/"))
		if err != nil {
			return nil, nil, err
		}
		return []gateway.Part{{Name: "user", Value: user}}, func(string, string) string { return user }, nil
	},
}

// Driver is the finger driver: its Fetch is the Scheme's.
type Driver struct{}

func (Driver) Fetch(ctx context.Context, u *uri.URL, req *proto.Request) (*proto.Response, error) {
	return finger.Fetch(ctx, u, req)
}

// A driver delegates to a Scheme, which maps its URL onto the configured
// template and returns a *proto.Redirect; templates are checked up front.
func ExampleScheme() {
	fmt.Println(finger.CheckTemplate("http://127.0.0.1:8080/{nosuch}"))

	req := &proto.Request{Options: proto.Options{Gateways: map[string]string{
		"finger": "gopher://127.0.0.1:7070/0finger/{user}",
	}}}
	_, err := Driver{}.Fetch(context.Background(), uri.MustParse("finger://127.0.0.1/ada%20l"), req)
	var r *proto.Redirect
	if errors.As(err, &r) {
		fmt.Println(r.Reason, r.URL)
	}
	_, err = Driver{}.Fetch(context.Background(), uri.MustParse("finger://127.0.0.1/ada"), nil)
	fmt.Println(err)
	// Output:
	// finger: gateway template "http://127.0.0.1:8080/{nosuch}": unknown placeholder "{nosuch}" at offset 22
	// gateway gopher://127.0.0.1:7070/0finger/ada%20l
	// finger: no access method: the Finger protocol (RFC 1288, port 79) is not built in; configure --gateway finger=TEMPLATE
}
